"""Traversal primitives over SUPPORTED_BY / USED / GENERATED / SUPERSEDES, on both backends."""

from __future__ import annotations

import pytest

from tests.factories import Q1_2018, PinnedClock, batch, fact, source
from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Fact, Scope
from vintage.graph.core.temporal import parse_instant
from vintage.graph.derivations.derived import Output, derive
from vintage.graph.derivations.recipes import expression
from vintage.graph.store.protocol import Direction, Store, StoreError, UnknownReference
from vintage.graph.writes.semantics import record

S1 = source("s1", "2018-04-24")
S2 = source("s2", "2018-05-02")


def out(predicate: str) -> Output:
    return Output("GOOGL", predicate, Q1_2018[0], Q1_2018[1], "USD")


GROSS = expression("gross_profit", "1", "revenue - cost")
DOUBLE = expression("double", "1", "2 * x")
COPY = expression("copy", "1", "x")


def chain(store: Store, scope: Scope) -> tuple[Fact, Fact, Fact]:
    """revenue (s1), cost (s2) -> gross profit (d1) -> doubled (d2)."""
    record(store, scope, batch(fact(100, S1.id, predicate="Revenues"),
                               fact(60, S2.id, predicate="CostOfRevenue"),
                               sources=(S1, S2)), actor="t")
    revenue, cost = sorted(store.read(AsOf(scope)), key=lambda f: f.predicate, reverse=True)
    gross = derive(store, scope, GROSS, {"revenue": revenue.id, "cost": cost.id},
                   out("GrossProfit"), actor="t").fact
    doubled = derive(store, scope, DOUBLE, {"x": gross.id}, out("Doubled"), actor="t").fact
    assert (gross.value, doubled.value) == (40, 80)
    return revenue, gross, doubled


def derivation_of(store: Store, scope: Scope, fact: Fact) -> str:
    walk = store.walk(scope.tenant, [fact.id], Direction.UPSTREAM, store.now(), max_depth=1)
    (did,) = walk.ids("Derivation")
    return did


def test_upstream_walk_reaches_every_input_and_source_with_its_depth(
    store: Store, scope: Scope,
) -> None:
    revenue, gross, doubled = chain(store, scope)
    d1, d2 = derivation_of(store, scope, gross), derivation_of(store, scope, doubled)
    walk = store.walk(scope.tenant, [doubled.id], Direction.UPSTREAM, store.now())
    depth = {(r.label, r.id): r.depth for r in walk.reached}
    assert depth[("Derivation", d2)] == 1
    assert depth[("Fact", gross.id)] == 2
    assert depth[("Derivation", d1)] == 3
    assert depth[("Fact", revenue.id)] == 4
    assert depth[("Source", "s1")] == 5 and depth[("Source", "s2")] == 5
    used = {(e.start, e.end, e.props.get("role")) for e in walk.edges if e.type == "USED"}
    assert (d1, revenue.id, "revenue") in used


def test_downstream_walk_from_a_source_reaches_every_consequence(
    store: Store, scope: Scope,
) -> None:
    revenue, gross, doubled = chain(store, scope)
    walk = store.walk(scope.tenant, ["s1"], Direction.DOWNSTREAM, store.now())
    assert walk.ids("Fact") == {revenue.id, gross.id, doubled.id}
    assert walk.ids("Source") == set()


def test_walk_depth_is_bounded(store: Store, scope: Scope) -> None:
    _, gross, doubled = chain(store, scope)
    walk = store.walk(scope.tenant, [doubled.id], Direction.UPSTREAM, store.now(), max_depth=2)
    assert walk.ids() == {derivation_of(store, scope, doubled), gross.id}


def test_walk_ignores_edges_recorded_after_the_system_instant(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    record(store, scope, batch(fact(100, S1.id), sources=(S1,)), actor="t")
    (base,) = store.read(AsOf(scope))
    before = clock.now
    clock.advance(hours=1)
    derive(store, scope, COPY, {"x": base.id}, out("Copy"), actor="t")
    assert store.walk(scope.tenant, [base.id], Direction.DOWNSTREAM, before).reached == ()
    assert store.walk(scope.tenant, [base.id], Direction.DOWNSTREAM, clock.now).ids() != set()


def test_walks_never_cross_tenants(store: Store, scope: Scope) -> None:
    _, _, doubled = chain(store, scope)
    assert store.walk("someone-else", [doubled.id], Direction.UPSTREAM, store.now()).reached == ()


def test_derived_fact_is_knowable_once_all_inputs_are(store: Store, scope: Scope) -> None:
    _, gross, _ = chain(store, scope)
    assert gross.available_at == S2.available_at
    cutoff = parse_instant("2018-05-01")
    assert [f.predicate for f in store.read(AsOf(scope, known_at=cutoff))] == ["Revenues"]


def test_rederiving_the_same_recipe_is_idempotent(store: Store, scope: Scope) -> None:
    revenue, gross, _ = chain(store, scope)
    again = derive(store, scope, GROSS, {"revenue": revenue.id, "cost": cost_id(store, scope)},
                   out("GrossProfit"), actor="t")
    assert again.fact.id == gross.id
    assert not again.created
    assert len([e for e in store.events(scope.tenant) if e.action == "derive"]) == 2


def test_derivation_over_an_unknown_input_is_refused(store: Store, scope: Scope) -> None:
    record(store, scope, batch(fact(1, S1.id), sources=(S1,)), actor="t")
    with pytest.raises(UnknownReference, match="unknown input"):
        derive(store, scope, COPY, {"x": "nope"}, out("Y"), actor="t")
    with pytest.raises(StoreError, match="at least one input"):
        derive(store, scope, COPY, {}, out("Y"), actor="t")


def cost_id(store: Store, scope: Scope) -> str:
    return next(f.id for f in store.read(AsOf(scope)) if f.predicate == "CostOfRevenue")


def test_a_walk_whose_starts_reach_only_each_other_still_returns_the_edges_between_them(
    store: Store, scope: Scope,
) -> None:
    """Nothing but the starts is reached (a start is never in ``reached``), yet the edge from
    one to the other is in the walk: a walk that stopped at "nothing reached" would lose it."""
    _, gross, doubled = chain(store, scope)
    d2 = derivation_of(store, scope, doubled)
    walk = store.walk(scope.tenant, [d2, gross.id], Direction.UPSTREAM, store.now(),
                      types=("USED",))
    assert walk.reached == ()
    assert {(e.start, e.type, e.end) for e in walk.edges} == {(d2, "USED", gross.id)}
