"""A metric question's plan persisted as derivations, so that a later restatement cascades to
the answer: level by level, each level one ``derive_all`` (one round trip per read or write for
the whole level). A repeated question finds every derivation with ``persisted``, by reads alone
(a level per round trip), so it needs no write transaction."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from graph.derivations import Derived, Output, Request, derive_all, found_all
from graph.model import Fact, Scope
from graph.store import StoreTx
from queries.plans import Computed, Observed, PlanNode


def persist(tx: StoreTx, now: datetime, scope: Scope, subject: str, node: PlanNode, actor: str,
             derivations: list[str]) -> Fact:
    """Derive the plan bottom-up, one ``derive_all`` per level of its tree: a repeated question
    finds a level's derivations in one round trip, not one per node. ``derivations`` gets each
    computed node's derivation in post-order (the root's last)."""
    def level(requests: Sequence[Request]) -> list[Derived]:
        # Plans only ever feed derived:/metric: predicates from filed facts: no cycle can form.
        return derive_all(tx, now, requests, actor=actor, check_cycles=False)

    fact = _through(scope, subject, node, level, derivations)
    assert fact is not None  # derive_all always derives
    return fact


def persisted(tx: StoreTx, scope: Scope, subject: str, node: PlanNode,
              derivations: list[str]) -> Fact | None:
    """What ``persist`` returns (and puts in ``derivations``) when every derivation of the plan
    exists already, found without writing; None as soon as a level lacks one (nothing is put
    in ``derivations`` then: ``persist`` has to run, in a write transaction)."""
    return _through(scope, subject, node, lambda requests: found_all(tx, requests), derivations)


def _through(scope: Scope, subject: str, node: PlanNode,
             level: Callable[[Sequence[Request]], list[Derived] | None],
             derivations: list[str]) -> Fact | None:
    """The plan's fact, each level bottom-up given to ``level``; None when ``level`` is."""
    made: dict[int, Fact] = {}  # id(node) -> its fact
    ids: dict[int, str] = {}  # id(node) -> its derivation

    def fact(n: PlanNode) -> Fact:
        return n.fact if isinstance(n, Observed) else made[id(n)]

    for nodes in _levels(node):
        done = level([Request(
            scope, n.recipe, {role: fact(child).id for role, child in n.inputs},
            Output(subject, n.predicate, n.span.valid_from, n.span.valid_to, n.unit))
            for n in nodes])
        if done is None:
            return None
        for n, d in zip(nodes, done, strict=True):
            made[id(n)], ids[id(n)] = d.fact, d.derivation_id

    def post_order(n: PlanNode) -> None:
        if isinstance(n, Computed):
            for _, child in n.inputs:
                post_order(child)
            derivations.append(ids[id(n)])

    post_order(node)
    return fact(node)


def _levels(root: PlanNode) -> list[list[Computed]]:
    """The computed nodes of a plan by height (those over filed facts only first), each once."""
    height: dict[int, int] = {}
    nodes: dict[int, Computed] = {}

    def visit(n: PlanNode) -> int:
        if isinstance(n, Observed):
            return -1
        if id(n) not in height:
            height[id(n)] = 1 + max(visit(child) for _, child in n.inputs)
            nodes[id(n)] = n
        return height[id(n)]

    visit(root)
    levels: list[list[Computed]] = [[] for _ in range(max(height.values(), default=-1) + 1)]
    for key, n in nodes.items():
        levels[height[key]].append(n)
    return levels
