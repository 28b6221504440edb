"""Retracting the only source of a correction makes the version it corrected current again, as a
new system-time version of its knowledge interval; undoing the retraction puts the supersession
back in force (docs/semantics.md, "Reinstatement"). Both backends."""

from __future__ import annotations

from datetime import datetime

from tests.factories import (
    ACTOR,
    Q1_2018,
    PinnedClock,
    batch,
    fact,
    memory,
    mine,
    source,
    values,
)
from tests.sec_files import data_file
from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Fact, Scope, SourceIn
from vintage.graph.core.temporal import parse_instant
from vintage.graph.derivations.derived import Output, derive
from vintage.graph.derivations.recipes import expression
from vintage.graph.memory.remember import remember
from vintage.graph.store.protocol import Store
from vintage.graph.writes.cascade import Fate
from vintage.graph.writes.corrections import invalidate, restore_source, retract_source
from vintage.graph.writes.semantics import record
from vintage.ingest.sec.companyfacts import ingest_companyfacts
from vintage.queries.lineage.retraction import retract
from vintage.queries.memory.recall import recall
from vintage.queries.metrics.definitions import resolve_metric
from vintage.queries.metrics.periods import parse_period
from vintage.queries.metrics.question import ask

TEN_Q = source("0001652044-18-000016", "2018-04-24", form="10-Q")
RECAST = source("0001652044-19-000015", "2019-04-30", form="10-Q")
AGAIN = source("0001652044-20-000008", "2020-02-04", form="10-K")
BEFORE_RECAST, AFTER_RECAST = parse_instant("2018-06-30"), parse_instant("2019-06-30")
LATE = parse_instant("2021-01-01")


def income(store: Store, scope: Scope, known_at: datetime,
           system_at: datetime | None = None) -> list[object]:
    spec = AsOf(scope, known_at=known_at, predicates=("OperatingIncomeLoss",),
                system_at=system_at)
    return [f.value for f in store.read(spec)]


def write(store: Store, scope: Scope, clock: PinnedClock, value: int, src: SourceIn,
          predicate: str = "OperatingIncomeLoss") -> None:
    record(store, scope, batch(fact(value, src.id, predicate=predicate), sources=(src,)),
           actor="t")
    clock.advance(minutes=1)


def versions(store: Store, scope: Scope) -> list[Fact]:
    (any_fact,) = store.read(AsOf(scope, predicates=("OperatingIncomeLoss",)))
    return store.history(scope.tenant, any_fact.key)


def test_retracting_the_only_source_of_a_restatement_makes_the_restated_value_current_again(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    write(store, scope, clock, 7001, TEN_Q)
    write(store, scope, clock, 7633, RECAST)
    before = clock.now
    retracted = clock.advance(minutes=1)
    report = retract_source(store, scope, RECAST.id, actor="t", reason="wrong filing")
    assert income(store, scope, AFTER_RECAST) == [7001]  # public since 2018, never retracted
    assert income(store, scope, BEFORE_RECAST) == [7001]
    reinstated = report.knowledge[0].fact.id
    key = store.reading(scope.tenant, lambda tx: tx.get_facts([reinstated]))[reinstated].key
    first, recast = store.history(scope.tenant, key)
    assert [(o.fact.id, o.fate, o.ends_at) for o in report.knowledge] == [
        (first.id, Fate.REINSTATED, None)]
    # A new system-time version of the interval: open again from its original available_at...
    assert (first.available_at, first.superseded_at) == (TEN_Q.available_at, None)
    assert recast.invalidated_at == retracted
    # ...and history keeps the closed one: as of before the retraction, the recast answered.
    assert income(store, scope, AFTER_RECAST, system_at=before) == [7633]
    assert income(store, scope, BEFORE_RECAST, system_at=before) == [7001]
    assert (first.past_superseded_at, first.past_superseded_to) == (
        (RECAST.available_at,), (retracted,))
    assert store.events(scope.tenant)[-1].details["knowledge_reinstated"] == 1


def test_undoing_the_retraction_puts_the_supersession_back_in_force(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    write(store, scope, clock, 7001, TEN_Q)
    write(store, scope, clock, 7633, RECAST)
    held = versions(store, scope)
    retracted = clock.advance(minutes=1)
    retract_source(store, scope, RECAST.id, actor="t", reason="wrong filing")
    clock.advance(minutes=1)
    undone = restore_source(store, scope, RECAST.id, actor="t", reason="it was right")
    first, recast = versions(store, scope)
    assert [(o.fact.id, o.fate, o.ends_at) for o in undone.knowledge] == [
        (first.id, Fate.CLOSED, RECAST.available_at)]
    for cutoff, value in ((BEFORE_RECAST, 7001), (AFTER_RECAST, 7633)):
        assert income(store, scope, cutoff) == [value]
        assert income(store, scope, cutoff, system_at=held[1].recorded_at) == [value]
    assert income(store, scope, AFTER_RECAST, system_at=retracted) == [7001]  # the stretch
    assert [(f.id, f.value, f.superseded_at, f.invalidated_at) for f in (first, recast)] == [
        (f.id, f.value, f.superseded_at, f.invalidated_at) for f in held]


def test_undoing_the_retraction_of_a_superseded_version_brings_it_back_closed_where_it_was(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    write(store, scope, clock, 7001, TEN_Q)
    write(store, scope, clock, 7633, RECAST)
    first, _ = versions(store, scope)
    retract_source(store, scope, TEN_Q.id, actor="t", reason="wrong filing")
    assert income(store, scope, BEFORE_RECAST) == []
    clock.advance(minutes=1)
    undone = restore_source(store, scope, TEN_Q.id, actor="t", reason="it was right")
    assert undone.invalidated == [first.id]  # its correction was there before: no clash
    assert [income(store, scope, c) for c in (BEFORE_RECAST, AFTER_RECAST)] == [[7001], [7633]]


def test_retracting_a_correction_in_the_middle_of_a_chain_ends_the_first_where_the_third_begins(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    write(store, scope, clock, 7001, TEN_Q)
    write(store, scope, clock, 7633, RECAST)
    write(store, scope, clock, 7700, AGAIN)
    retract_source(store, scope, RECAST.id, actor="t", reason="wrong filing")
    first, _recast, third = versions(store, scope)
    assert (first.superseded_at, third.superseded_at) == (AGAIN.available_at, None)
    assert [income(store, scope, c) for c in (AFTER_RECAST, LATE)] == [[7001], [7700]]


def test_a_derived_fact_follows_its_input_back_and_forth(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    write(store, scope, clock, 7001, TEN_Q)
    write(store, scope, clock, 28000, TEN_Q, predicate="Revenues")
    (op, rev) = sorted(store.read(AsOf(scope)), key=lambda f: f.predicate)
    margin = derive(store, scope, expression("margin", "1", "100 * op / rev"),
                    {"op": op.id, "rev": rev.id},
                    Output("GOOGL", "OperatingMargin", *Q1_2018, "percent"), actor="t").fact
    clock.advance(minutes=1)
    record(store, scope, batch(fact(7633, RECAST.id), sources=(RECAST,)), actor="t",
           recompute=True)

    def margins() -> list[object]:
        spec = AsOf(scope, known_at=AFTER_RECAST, predicates=("OperatingMargin",))
        return [round(float(f.value), 2) for f in store.read(spec)]

    assert margins() == [27.26]
    clock.advance(minutes=1)
    report = retract_source(store, scope, RECAST.id, actor="t", reason="wrong filing")
    assert [o.fate for o in report.cascade] == [Fate.CLOSED]  # the recomputed margin
    assert {(o.fact.id, o.fate) for o in report.knowledge} == {
        (op.id, Fate.REINSTATED), (margin.id, Fate.REINSTATED)}
    assert margins() == [25.0]
    clock.advance(minutes=1)
    restore_source(store, scope, RECAST.id, actor="t", reason="it was right")
    assert margins() == [27.26]


def test_an_invalidated_correction_does_not_bring_back_what_it_corrected(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    write(store, scope, clock, 7001, TEN_Q)
    write(store, scope, clock, 7633, RECAST)
    _, recast = versions(store, scope)
    report = invalidate(store, scope, [recast.id], actor="t", reason="not ours to hold")
    assert report.knowledge == []
    assert income(store, scope, AFTER_RECAST) == []


def test_retracting_the_source_of_a_memory_correction_makes_the_previous_value_current_again(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    remember(store, memory(scope), actor=ACTOR)
    clock.advance(minutes=1)
    remember(store, memory(scope, value="ship to a locker", source_id="msg-3",
                           observed_at="2026-05-02T10:00:00Z"), actor=ACTOR)
    assert values(recall(store, mine(scope), "user:42")) == ["ship to a locker"]
    clock.advance(minutes=1)
    retract_source(store, mine(scope), "msg-3", actor="ops", reason="sent in error")
    assert values(recall(store, mine(scope), "user:42")) == ["ship to the office"]


def test_retracting_googles_recast_filing_leaves_the_2018_value_answering(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    metric = resolve_metric("operating_income")
    ingest_companyfacts(store, scope, data_file("GOOGL"), actor="t",
                        concepts=metric.predicates_for("any"))

    def answer() -> tuple[object, object]:
        (found,) = ask(store, scope, metric, ["GOOGL"], AFTER_RECAST,
                       parse_period("FY2018Q1")).answers
        return found.value, found.refused

    assert answer() == (7633000000, None)
    clock.advance(minutes=1)
    retract(store, scope, RECAST.id, reason="test", actor="t")
    assert answer() == (7001000000, None)  # the 2018 10-Q's value: public, never retracted
    clock.advance(minutes=1)
    retract(store, scope, RECAST.id, reason="test", actor="t", undo=True)
    assert answer() == (7633000000, None)
