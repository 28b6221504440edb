"""A metric question's plan persisted as derivations, so that a later restatement cascades to
the answer: level by level, each level one ``derive_all`` (one round trip per read or write for
the whole level; a repeated question's reads find everything and write nothing)."""

from __future__ import annotations

from datetime import datetime

from graph.derivations import Output, Request, derive_all
from graph.model import Fact, Scope
from graph.store import StoreTx
from queries.plans import Computed, Observed, PlanNode


def persist(tx: StoreTx, now: datetime, scope: Scope, subject: str, node: PlanNode, actor: str,
             derivations: list[str]) -> Fact:
    """Derive the plan bottom-up, one ``derive_all`` per level of its tree: a repeated question
    finds a level's derivations in one round trip, not one per node. ``derivations`` gets each
    computed node's derivation in post-order (the root's last)."""
    made: dict[int, Fact] = {}  # id(node) -> its fact
    ids: dict[int, str] = {}  # id(node) -> its derivation

    def fact(n: PlanNode) -> Fact:
        return n.fact if isinstance(n, Observed) else made[id(n)]

    for level in _levels(node):
        # Plans only ever feed derived:/metric: predicates from filed facts: no cycle can form.
        done = derive_all(tx, now, [Request(
            scope, n.recipe, {role: fact(child).id for role, child in n.inputs},
            Output(subject, n.predicate, n.span.valid_from, n.span.valid_to, n.unit))
            for n in level], actor=actor, check_cycles=False)
        for n, d in zip(level, done, strict=True):
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
