"""A metric question's plan persisted as derivations, so that a later restatement cascades to
the answer: level by level, each level one ``derive_all`` (one round trip per read or write for
the whole level). Repeated questions find every derivation of every plan by reads alone, in one
round trip (``persisted_all``), so they need no write transaction."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from vintage.graph.core.model import Fact, Scope
from vintage.graph.derivations.derived import (
    Derived,
    Output,
    Request,
    check_requests,
    derive_all,
    derived_fact_id,
    found_all,
)
from vintage.graph.sealing.sealed import sealed_in
from vintage.graph.store.protocol import StoreTx
from vintage.queries.metrics.plans import Computed, Observed, PlanNode


@dataclass(frozen=True)
class Plan:
    scope: Scope
    subject: str
    node: PlanNode


@dataclass(frozen=True)
class Persisted:
    fact: Fact  # the plan's root
    derivations: list[str]  # each computed node's derivation in post-order (the root's last)


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


def persisted_all(tx: StoreTx, plans: Sequence[Plan]) -> list[Persisted | None]:
    """What ``persist`` makes of each plan when every derivation of it exists already, found
    without writing; None for a plan that lacks one (``persist`` has to run, in a write
    transaction). One round trip for all: each plan's derivation ids are predicted from its
    leaves (``_predicted``) and looked up together, then checked level by level against what
    was found. A prediction fails only where ``derive_all`` kept an equal value current since
    earlier instead of a new fact; such a plan is looked up level by level, as it was made."""
    asked: set[str] = set()
    for p in plans:
        _predicted(p.scope, p.subject, p.node, asked)
    done = tx.generated_by(sorted(asked)) if asked else {}  # a filed figure derives nothing

    def looked_up(requests: Sequence[Request]) -> list[Derived] | None:
        check_requests(requests)  # as found_all does
        ids = [r.recipe.derivation(r.inputs, r.key).id for r in requests]
        if any(i not in done and i not in asked for i in ids):
            raise _Unpredicted  # a level below found another fact than predicted
        return None if any(i not in done for i in ids) else [Derived(done[i], i, False)
                                                               for i in ids]
    found: list[Persisted | None] = []
    for p in plans:
        try:
            found.append(_persisted(p, looked_up))
        except _Unpredicted:
            found.append(_persisted(p, lambda requests: found_all(tx, requests)))
    return found


class _Unpredicted(Exception):
    pass


def _persisted(p: Plan, level: Callable[[Sequence[Request]], list[Derived] | None],
               ) -> Persisted | None:
    derivations: list[str] = []
    fact = _through(p.scope, p.subject, p.node, level, derivations)
    return None if fact is None else Persisted(fact, derivations)


def _predicted(scope: Scope, subject: str, node: PlanNode,
               into: set[str]) -> tuple[str, datetime, bool]:
    """The id, ``available_at`` and sealing of the fact ``persist`` makes of ``node`` when it
    makes a new one (as ``derive_all`` decides them); every derivation id below goes ``into``."""
    if isinstance(node, Observed):
        return node.fact.id, node.fact.available_at, node.fact.sealed
    inputs = {role: _predicted(scope, subject, child, into) for role, child in node.inputs}
    r = _request(scope, subject, node, {role: made[0] for role, made in inputs.items()})
    derivation = r.recipe.derivation(r.inputs, r.key).id
    into.add(derivation)
    available = max(made[1] for made in inputs.values())
    sealed = sealed_in(scope) or any(made[2] for made in inputs.values())
    return (derived_fact_id(r.key, derivation, node.value, node.unit, available, sealed),
            available, sealed)


def _request(scope: Scope, subject: str, n: Computed, inputs: dict[str, str]) -> Request:
    return Request(scope, n.recipe, inputs,
                   Output(subject, n.predicate, n.span.valid_from, n.span.valid_to, n.unit))


def _through(scope: Scope, subject: str, node: PlanNode,
             level: Callable[[Sequence[Request]], list[Derived] | None],
             derivations: list[str]) -> Fact | None:
    """The plan's fact, each level bottom-up given to ``level``; None when ``level`` is."""
    made: dict[int, Fact] = {}  # id(node) -> its fact
    ids: dict[int, str] = {}  # id(node) -> its derivation

    def fact(n: PlanNode) -> Fact:
        return n.fact if isinstance(n, Observed) else made[id(n)]

    for nodes in _levels(node):
        done = level([_request(scope, subject, n, {role: fact(child).id
                                                    for role, child in n.inputs})
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
