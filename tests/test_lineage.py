"""Cascade, truth maintenance and recompute, on both backends (docs/contract.md, "Corrections,
cascade and exits")."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from tests.factories import Q1_2018, PinnedClock, batch, fact, source
from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Fact, Scope, Value
from vintage.graph.core.temporal import parse_instant
from vintage.graph.derivations.derived import CycleError, MixedVintage, Output, derive
from vintage.graph.derivations.recipes import RecipeError, expression, function, register
from vintage.graph.store.protocol import Direction, Store, StoreError
from vintage.graph.writes.cascade import Fate
from vintage.graph.writes.corrections import invalidate, restore_source, retract_source
from vintage.graph.writes.semantics import WriteReport, record

S1 = source("s1", "2018-04-24")
S2 = source("s2", "2018-04-24")
RESTATED = source("10-K/A", "2019-04-30")
BEFORE, AFTER = parse_instant("2019-01-01"), parse_instant("2019-06-01")


def out(predicate: str) -> Output:
    return Output("GOOGL", predicate, Q1_2018[0], Q1_2018[1], "USD")


def inputs(store: Store, scope: Scope, **values: int) -> dict[str, Fact]:
    record(store, scope, batch(*(fact(v, S1.id, predicate=p) for p, v in values.items()),
                               sources=(S1, S2)), actor="t")
    return {f.predicate: f for f in store.read(AsOf(scope))}


def restate(store: Store, scope: Scope, clock: PinnedClock, *, recompute: bool = False,
            **values: int) -> WriteReport:
    clock.advance(hours=1)
    return record(store, scope, batch(*(fact(v, RESTATED.id, predicate=p)
                                        for p, v in values.items()), sources=(RESTATED,)),
                  actor="t", recompute=recompute)


def step(store: Store, scope: Scope, name: str, formula: str, **args: str) -> Fact:
    recipe = expression(name, "1", formula)
    return derive(store, scope, recipe, args, out(name), actor="t").fact


def chain(store: Store, scope: Scope, depth: int = 5) -> list[Fact]:
    base = inputs(store, scope, Revenues=100)["Revenues"]
    facts = [base]
    for level in range(1, depth + 1):
        facts.append(step(store, scope, f"Level{level}", "x + 1", x=facts[-1].id))
    return facts


def value_at(store: Store, scope: Scope, predicate: str, cutoff: object) -> list[object]:
    spec = AsOf(scope, known_at=cutoff, predicates=(predicate,))  # type: ignore[arg-type]
    return [f.value for f in store.read(spec)]


def test_a_restatement_closes_every_derived_fact_of_a_deep_chain(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    facts = chain(store, scope, depth=5)
    report = restate(store, scope, clock, Revenues=110)
    assert [(o.fact.predicate, o.fate, o.depth) for o in report.cascade] == [
        (f"Level{n}", Fate.CLOSED, n) for n in range(1, 6)]
    assert report.cascade[-1].path == tuple(f.id for f in facts)
    history = store.history(scope.tenant, facts[5].key)
    assert [f.superseded_at for f in history] == [RESTATED.available_at]


def test_as_of_before_a_correction_keeps_the_old_derived_value(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    chain(store, scope, depth=2)
    restate(store, scope, clock, Revenues=110)
    assert value_at(store, scope, "Level2", BEFORE) == [102]
    assert value_at(store, scope, "Level2", AFTER) == []  # not recomputed: no current value


def test_recompute_gives_the_new_value_after_and_keeps_the_old_before(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    chain(store, scope, depth=2)
    report = restate(store, scope, clock, recompute=True, Revenues=110)
    assert [o.fate for o in report.cascade] == [Fate.RECOMPUTED, Fate.RECOMPUTED]
    assert value_at(store, scope, "Level2", BEFORE) == [102]
    assert value_at(store, scope, "Level2", AFTER) == [112]
    new = report.cascade[-1].replacement
    assert new is not None
    assert [f.value for f in store.history(scope.tenant, new.key)] == [102, 112]


def test_a_derived_fact_ends_when_any_one_of_its_inputs_is_corrected(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    given = inputs(store, scope, Revenues=100, CostOfRevenue=60)
    gross = step(store, scope, "GrossProfit", "revenue - cost", revenue=given["Revenues"].id,
                 cost=given["CostOfRevenue"].id)
    report = restate(store, scope, clock, Revenues=110)
    assert [(o.fact.id, o.fate, o.ends_at) for o in report.cascade] == [
        (gross.id, Fate.CLOSED, RESTATED.available_at)]
    assert value_at(store, scope, "GrossProfit", BEFORE) == [40]
    assert value_at(store, scope, "GrossProfit", AFTER) == []


def test_a_diamond_is_reached_once_and_closed_once(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    base = inputs(store, scope, Revenues=100)["Revenues"]
    left = step(store, scope, "Left", "x * 2", x=base.id)
    right = step(store, scope, "Right", "x * 3", x=base.id)
    step(store, scope, "Join", "a + b", a=left.id, b=right.id)
    report = restate(store, scope, clock, Revenues=1)
    assert sorted((o.fact.predicate, o.depth) for o in report.cascade) == [
        ("Join", 2), ("Left", 1), ("Right", 1)]
    assert all(o.fate is Fate.CLOSED for o in report.cascade)


def test_a_derived_fact_with_another_valid_justification_survives(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    given = inputs(store, scope, Revenues=100, Sales=100)
    one = step(store, scope, "Top", "x", x=given["Revenues"].id)
    two = derive(store, scope, expression("Top", "2", "y"), {"y": given["Sales"].id},
                 out("Top"), actor="t").fact
    assert one.id == two.id  # the same value, known at the same time: one fact, two reasons
    first = restate(store, scope, clock, Revenues=90)
    assert [o.fate for o in first.cascade] == [Fate.SURVIVES]
    assert value_at(store, scope, "Top", AFTER) == [100]
    second = restate(store, scope, clock, Sales=80)
    assert [o.fate for o in second.cascade] == [Fate.CLOSED]
    assert value_at(store, scope, "Top", AFTER) == []


def test_the_same_value_derived_later_is_another_justification_not_a_second_version(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    given = inputs(store, scope, Revenues=100)
    one = step(store, scope, "Top", "x", x=given["Revenues"].id)
    clock.advance(hours=1)
    record(store, scope, batch(fact(100, RESTATED.id, predicate="Sales"),
                               sources=(RESTATED,)), actor="t")
    (sales,) = [f for f in store.read(AsOf(scope)) if f.predicate == "Sales"]
    two = derive(store, scope, expression("Top", "2", "y"), {"y": sales.id}, out("Top"),
                 actor="t").fact
    assert two.id == one.id and two.available_at == one.available_at  # known since the first
    assert value_at(store, scope, "Top", AFTER) == [100]  # one current version, not two


def test_recompute_with_an_unchanged_value_stops_the_cascade(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    given = inputs(store, scope, Revenues=100, CostOfRevenue=60)
    gross = step(store, scope, "GrossProfit", "revenue - cost", revenue=given["Revenues"].id,
                 cost=given["CostOfRevenue"].id)
    doubled = step(store, scope, "Doubled", "2 * x", x=gross.id)
    report = restate(store, scope, clock, recompute=True, Revenues=110, CostOfRevenue=70)
    assert [(o.fact.id, o.fate) for o in report.cascade] == [
        (gross.id, Fate.UNCHANGED), (doubled.id, Fate.SURVIVES)]
    (current,) = store.read(AsOf(scope, predicates=("Doubled",)))
    assert current.id == doubled.id
    assert current.superseded_at is None


def test_a_derivation_whose_output_feeds_its_own_inputs_is_refused(
    store: Store, scope: Scope,
) -> None:
    base = inputs(store, scope, Revenues=100)["Revenues"]
    level = step(store, scope, "Level1", "x + 1", x=base.id)
    with pytest.raises(CycleError, match="depend on itself"):
        derive(store, scope, expression("back", "1", "x - 1"), {"x": level.id},
               out("Revenues"), actor="t")


def test_inputs_never_current_together_are_refused(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    old = inputs(store, scope, Revenues=100)["Revenues"]
    restate(store, scope, clock, Revenues=110)
    later = source("later", "2020-01-01")
    record(store, scope, batch(fact(5, later.id, predicate="Other"), sources=(later,)),
           actor="t")
    other = store.read(AsOf(scope, predicates=("Other",)))[0]
    with pytest.raises(MixedVintage, match="never current together"):
        derive(store, scope, expression("mix", "1", "a + b"), {"a": old.id, "b": other.id},
               out("Mixed"), actor="t")


def test_retracting_a_source_invalidates_what_rests_on_it_alone(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    facts = chain(store, scope, depth=2)
    before = clock.now
    clock.advance(hours=1)
    report = retract_source(store, scope, S1.id, actor="t", reason="withdrawn")
    assert report.invalidated == [facts[0].id]
    assert [(o.fact.predicate, o.fate) for o in report.cascade] == [
        ("Level1", Fate.CLOSED), ("Level2", Fate.CLOSED)]
    assert store.read(AsOf(scope)) == []
    assert len(store.read(AsOf(scope, system_at=before))) == 3  # history kept


def test_a_fact_with_a_second_source_survives_a_retraction(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    chain(store, scope, depth=1)
    record(store, scope, batch(fact(100, S2.id, predicate="Revenues")), actor="t")
    clock.advance(hours=1)
    report = retract_source(store, scope, S1.id, actor="t", reason="withdrawn")
    assert report.invalidated == []
    assert report.cascade == []
    assert len(store.read(AsOf(scope))) == 2


def test_invalidating_an_input_cascades_on_system_time(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    facts = chain(store, scope, depth=3)
    clock.advance(hours=1)
    report = invalidate(store, scope, [facts[1].id], actor="t", reason="bad recipe input")
    assert [o.fact.predicate for o in report.cascade] == ["Level2", "Level3"]
    assert [f.predicate for f in store.read(AsOf(scope))] == ["Revenues"]
    events = [e.action for e in store.events(scope.tenant)]
    assert events[-1] == "invalidate"


def test_undoing_a_retraction_reopens_what_it_closed_and_keeps_the_gap(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    facts = chain(store, scope, depth=2)
    before = clock.now
    retracted = clock.advance(hours=1)
    retract_source(store, scope, S1.id, actor="t", reason="withdrawn by mistake")
    restored = clock.advance(hours=1)
    report = restore_source(store, scope, S1.id, actor="t", reason="undo")
    assert report.invalidated == [facts[0].id]  # the facts it held again
    assert [(o.fact.predicate, o.fate) for o in report.cascade] == [
        ("Level1", Fate.REOPENED), ("Level2", Fate.REOPENED)]
    ids = {f.id for f in facts}
    assert {f.id for f in store.read(AsOf(scope, system_at=before))} == ids
    assert store.read(AsOf(scope, system_at=retracted)) == []  # the retracted stretch
    assert {f.id for f in store.read(AsOf(scope, system_at=restored))} == ids
    assert {f.id for f in store.read(AsOf(scope))} == ids
    (level2,) = store.history(scope.tenant, facts[2].key)
    assert (level2.gaps_from, level2.gaps_to) == ((retracted,), (restored,))
    assert [e.action for e in store.events(scope.tenant)][-2:] == ["retract", "restore"]
    walk = store.walk(scope.tenant, [facts[2].id], Direction.UPSTREAM, retracted)
    assert "s1" not in walk.ids("Source")  # the support edge was not held then either


def test_a_retraction_can_be_undone_and_done_again(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    facts = chain(store, scope, depth=1)
    for _ in range(2):
        clock.advance(hours=1)
        retract_source(store, scope, S1.id, actor="t", reason="r")
        assert store.read(AsOf(scope)) == []
        clock.advance(hours=1)
        restore_source(store, scope, S1.id, actor="t", reason="u")
        assert {f.id for f in store.read(AsOf(scope))} == {f.id for f in facts}
    (base,) = store.history(scope.tenant, facts[0].key)
    assert len(base.gaps_from) == 2


def test_restoring_a_source_never_retracted_is_refused(store: Store, scope: Scope) -> None:
    chain(store, scope, depth=1)
    with pytest.raises(StoreError, match="no retraction to undo"):
        restore_source(store, scope, S1.id, actor="t", reason="u")


@register("ratio_of_sums", "1")
def _ratio_of_sums(inputs: Mapping[str, Value], parameters: Mapping[str, Value]) -> Value:
    numerator, denominator = inputs["part"], inputs["whole"]
    assert isinstance(numerator, int | float)
    assert isinstance(denominator, int | float)
    scale = parameters.get("scale", 1)
    assert isinstance(scale, int | float)
    return scale * numerator / denominator


def test_a_registered_python_recipe_derives_and_recomputes_by_name_and_version(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    given = inputs(store, scope, Revenues=200, CostOfRevenue=50)
    recipe = function("ratio_of_sums", "1", scale=100)
    share = derive(store, scope, recipe, {"part": given["CostOfRevenue"].id,
                                          "whole": given["Revenues"].id},
                   out("CostShare"), actor="t").fact
    assert share.value == 25.0
    report = restate(store, scope, clock, recompute=True, Revenues=100)
    (outcome,) = report.cascade
    assert outcome.fate is Fate.RECOMPUTED
    assert outcome.replacement is not None
    assert outcome.replacement.value == 50.0
    with pytest.raises(RecipeError, match="no Python recipe"):
        function("ratio_of_sums", "2")
