"""The store contract, run unchanged against the embedded store and a real Neo4j server."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

import pytest

from tests.conftest import store_for
from tests.factories import WITH_STOCK, PinnedClock, batch, fact, source
from vintage.graph.core.asof import AsOf, TenantRequired
from vintage.graph.core.kinds import FactKind, Status
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import as_of, from_to, parse_instant
from vintage.graph.store.protocol import (
    Confirmation,
    ConflictError,
    Direction,
    Store,
    StoreError,
    UnknownReference,
)
from vintage.graph.writes.corrections import restore_source, retract_source
from vintage.graph.writes.semantics import Batch, record
from vintage.queries.lineage.asof import facts_as_of

A1 = source("0001652044-18-000016", "2018-04-24", form="10-Q")
A2 = source("0001652044-19-000010", "2019-04-30", form="10-Q")


@pytest.fixture(params=WITH_STOCK)
def store(request: pytest.FixtureRequest, clock: PinnedClock, tmp_path: Path,
          tenant: str) -> Iterator[Store]:
    """The contract holds on every backend, and on a stock Neo4j without the plugin too."""
    yield from store_for(request, clock, tmp_path, tenant)


def values(store: Store, scope: Scope, **spec: object) -> list[object]:
    return [f.value for f in store.read(AsOf(scope, **spec))]  # type: ignore[arg-type]


def restated(store: Store, scope: Scope) -> None:
    record(store, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    record(store, scope, batch(fact(7633, A2.id), sources=(A2,)), actor="test")


# -- knowledge time ---------------------------------------------------------------------------

def test_fact_available_exactly_at_the_cutoff_is_visible(store: Store, scope: Scope) -> None:
    record(store, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    assert values(store, scope, known_at=parse_instant("2018-04-24")) == [7001]


def test_fact_is_invisible_one_microsecond_before_it_became_public(
    store: Store, scope: Scope,
) -> None:
    record(store, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    assert values(store, scope, known_at=parse_instant("2018-04-23T23:59:59.999999Z")) == []


def test_restated_value_is_invisible_before_its_filing_date(store: Store, scope: Scope) -> None:
    restated(store, scope)
    assert values(store, scope, known_at=parse_instant("2019-04-29T23:59:59Z")) == [7001]


def test_superseded_value_is_invisible_exactly_at_the_restatement(
    store: Store, scope: Scope,
) -> None:
    restated(store, scope)
    assert values(store, scope, known_at=parse_instant("2019-04-30")) == [7633]


def test_open_knowledge_interval_stays_visible_for_every_later_cutoff(
    store: Store, scope: Scope,
) -> None:
    record(store, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    assert values(store, scope, known_at=parse_instant("2999-01-01")) == [7001]


# -- valid time -------------------------------------------------------------------------------

def test_period_ending_exactly_at_the_instant_does_not_hold_then(
    store: Store, scope: Scope,
) -> None:
    record(store, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    assert values(store, scope, valid=as_of(parse_instant("2018-04-01"))) == []
    assert values(store, scope, valid=as_of(parse_instant("2018-03-31T23:59:59Z"))) == [7001]
    assert values(store, scope, valid=as_of(parse_instant("2018-01-01"))) == [7001]


def test_window_touching_a_period_end_does_not_overlap_it(store: Store, scope: Scope) -> None:
    record(store, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    after = from_to(parse_instant("2018-04-01"), parse_instant("2018-07-01"))
    before = from_to(parse_instant("2017-10-01"), parse_instant("2018-01-01"))
    inside = from_to(parse_instant("2018-03-01"), None)
    assert values(store, scope, valid=after) == []
    assert values(store, scope, valid=before) == []
    assert values(store, scope, valid=inside) == [7001]


def test_open_valid_interval_holds_for_every_later_instant(store: Store, scope: Scope) -> None:
    open_ended = fact("Mountain View", A1.id, predicate="Headquarters", period=("2018-01-01", None),
                      unit=None)
    record(store, scope, batch(open_ended, sources=(A1,)), actor="test")
    assert values(store, scope, valid=as_of(parse_instant("2030-01-01"))) == ["Mountain View"]
    assert values(store, scope, valid=as_of(parse_instant("2017-12-31"))) == []


# -- system time ------------------------------------------------------------------------------

def test_system_time_before_a_correction_was_recorded_sees_the_old_answer(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    record(store, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    before = clock.now
    clock.advance(days=1)
    record(store, scope, batch(fact(7633, A2.id), sources=(A2,)), actor="test")
    late_cutoff = parse_instant("2020-01-01")
    assert values(store, scope, known_at=late_cutoff, system_at=before) == [7001]
    assert values(store, scope, known_at=late_cutoff) == [7633]


def test_nothing_is_visible_at_a_system_time_before_it_was_recorded(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    earlier = clock.now
    clock.advance(seconds=1)
    record(store, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    assert values(store, scope, system_at=earlier) == []


# -- writes -----------------------------------------------------------------------------------

def test_rewriting_the_same_batch_changes_nothing(store: Store, scope: Scope) -> None:
    restated(store, scope)
    events = len(store.events(scope.tenant))
    report = record(store, scope, batch(fact(7633, A2.id), sources=(A2,)), actor="test")
    assert not report.changed
    assert report.created == []
    assert len(store.events(scope.tenant)) == events
    key = store.read(AsOf(scope))[0].key
    assert [f.value for f in store.history(scope.tenant, key)] == [7001, 7633]


def test_a_later_filing_repeating_a_value_adds_support_not_a_fact(
    store: Store, scope: Scope,
) -> None:
    record(store, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    report = record(store, scope, batch(fact(7001, A2.id), sources=(A2,)), actor="test")
    assert report.created == [] and report.changed
    (current,) = store.read(AsOf(scope))
    assert current.available_at == A1.available_at
    cited = [s.source_id for s in store.supports(scope.tenant, [current.id])]
    assert cited == [A1.id, A2.id]


def test_confirmations_sum_up_the_supports_public_by_a_cutoff(
    store: Store, scope: Scope,
) -> None:
    record(store, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    record(store, scope, batch(fact(7001, A2.id), sources=(A2,)), actor="test")
    (current,) = store.read(AsOf(scope))
    late = store.confirmations(scope.tenant, [current.id, "nope"], parse_instant("2020-01-01"))
    assert late == {current.id: Confirmation(A1.id, A1.available_at, A2.available_at)}
    early = store.confirmations(scope.tenant, [current.id], parse_instant("2018-12-31"))
    assert early == {current.id: Confirmation(A1.id, A1.available_at, A1.available_at)}
    assert store.confirmations(scope.tenant, [current.id], parse_instant("2018-01-01")) == {}


def test_an_as_of_answer_cites_only_sources_public_by_its_cutoff_and_not_retracted(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    record(store, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    record(store, scope, batch(fact(7001, A2.id), sources=(A2,)), actor="test")
    (early,) = facts_as_of(store, scope, known_at=parse_instant("2018-12-31"))
    assert [s.id for s in early.sources] == [A1.id]
    clock.advance(minutes=1)
    before = clock.now
    clock.advance(minutes=1)
    retract_source(store, scope, A2.id, actor="test", reason="withdrawn")
    (now,) = facts_as_of(store, scope)
    assert [s.id for s in now.sources] == [A1.id]
    (then,) = facts_as_of(store, scope, system_at=before)
    assert [s.id for s in then.sources] == [A1.id, A2.id]
    assert store.confirmations(scope.tenant, [now.fact.id], parse_instant("2020-01-01"))[
        now.fact.id].last_at == A1.available_at


def test_a_confirmed_read_is_the_read_with_its_confirmations(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    record(store, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    record(store, scope, batch(fact(7001, A2.id), sources=(A2,)), actor="test")
    clock.advance(minutes=1)
    retract_source(store, scope, A2.id, actor="test", reason="withdrawn")
    for cutoff in ("2018-01-01", "2018-12-31", "2020-01-01"):
        spec = AsOf(scope, known_at=parse_instant(cutoff))
        facts = store.read(spec)
        seen = store.confirmations(scope.tenant, [f.id for f in facts], parse_instant(cutoff))
        assert store.read_confirmed(spec) == [(f, seen.get(f.id)) for f in facts]
    (both,) = store.read_confirmed(AsOf(scope, system_at=clock.now - timedelta(minutes=1)))
    assert both[1] is not None and both[1].last_at == A2.available_at


def test_a_cited_read_is_the_read_with_the_sources_public_and_holding_then(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    record(store, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    record(store, scope, batch(fact(7001, A2.id), sources=(A2,)), actor="test")
    clock.advance(minutes=1)
    before = clock.now
    clock.advance(minutes=1)
    retract_source(store, scope, A1.id, actor="test", reason="withdrawn")
    cases = {("2018-12-31", None): [], ("2020-01-01", None): [A2.id],
             ("2020-01-01", before): [A1.id, A2.id], ("2018-12-31", before): [A1.id]}
    for (cutoff, system_at), cited in cases.items():
        spec = AsOf(scope, known_at=parse_instant(cutoff), system_at=system_at)
        ((fact_seen, sources),) = store.read_cited(spec)
        assert [s.id for s in sources] == cited
        assert [fact_seen] == store.read(spec)
    assert store.read_cited(AsOf(scope, known_at=parse_instant("2018-01-01"))) == []


def test_an_assertion_written_again_after_its_source_was_retracted_is_a_new_revision(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    first = record(store, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    clock.advance(minutes=1)
    retract_source(store, scope, A1.id, actor="test", reason="withdrawn")  # left unsupported
    again = record(store, scope, batch(fact(7001, A2.id), sources=(A2,)), actor="test")
    assert again.created and again.created != first.created  # never a reused id
    (now,) = store.read(AsOf(scope))
    assert now.revision == 2 and now.id == again.created[0]


def test_undoing_a_retraction_never_makes_two_current_versions_of_one_assertion(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    record(store, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    clock.advance(minutes=1)
    retract_source(store, scope, A1.id, actor="test", reason="withdrawn")
    clock.advance(minutes=1)
    again = record(store, scope, batch(fact(7002, A2.id), sources=(A2,)), actor="test")
    clock.advance(minutes=1)
    undone = restore_source(store, scope, A1.id, actor="test", reason="it was fine")
    assert undone.invalidated == []  # written again while out: it stays out
    (current,) = store.read(AsOf(scope, known_at=parse_instant("2020-01-01")))
    assert (current.id, current.value) == (again.created[0], 7002)


def test_history_is_kept_after_a_supersede(store: Store, scope: Scope) -> None:
    restated(store, scope)
    key = store.read(AsOf(scope))[0].key
    old, new = store.history(scope.tenant, key)
    assert (old.value, old.revision, new.value, new.revision) == (7001, 1, 7633, 2)
    assert old.superseded_at == A2.available_at and new.superseded_at is None
    assert old.invalidated_at is None
    walk = store.walk(scope.tenant, [new.id], Direction.UPSTREAM, store.now(), max_depth=1)
    assert {(e.start, e.type, e.end) for e in walk.edges} >= {(new.id, "SUPERSEDES", old.id)}


def test_every_mutation_writes_one_event(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    record(store, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    clock.advance(seconds=1)
    record(store, scope, batch(fact(7633, A2.id), sources=(A2,)), actor="test")
    events = store.events(scope.tenant)
    assert [e.action for e in events] == ["record", "record"]
    assert events[1].details["superseded"] == 1


def test_compare_and_set_with_a_stale_revision_is_a_conflict(store: Store, scope: Scope) -> None:
    restated(store, scope)
    key = store.read(AsOf(scope))[0].key
    late = source("late", "2020-01-01")
    with pytest.raises(ConflictError):
        record(store, scope, batch(fact(1, late.id), sources=(late,)), actor="test",
               expected={key: 1})
    assert values(store, scope) == [7633]
    assert store.sources(scope.tenant, ["late"]) == []
    record(store, scope, batch(fact(1, late.id), sources=(late,)), actor="test",
           expected={key: 2})
    assert values(store, scope) == [1]


def test_compare_and_set_expecting_absence_fails_when_the_key_exists(
    store: Store, scope: Scope,
) -> None:
    record(store, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    key = store.read(AsOf(scope))[0].key
    with pytest.raises(ConflictError):
        record(store, scope, batch(fact(5, A2.id), sources=(A2,)), actor="t", expected={key: None})


def test_unknown_source_is_refused_and_nothing_is_written(store: Store, scope: Scope) -> None:
    with pytest.raises(UnknownReference, match="unknown source"):
        record(store, scope, batch(fact(1, A1.id), fact(2, "nope", predicate="X")), actor="t")
    assert store.read(AsOf(scope)) == [] and store.events(scope.tenant) == []


def test_unknown_subject_is_refused(store: Store, scope: Scope) -> None:
    with pytest.raises(UnknownReference, match="unknown subject"):
        record(store, scope, Batch(sources=[A1], facts=[fact(1, A1.id)]), actor="t")
    assert store.sources(scope.tenant, [A1.id]) == []


def test_an_out_of_order_correction_is_refused(store: Store, scope: Scope) -> None:
    record(store, scope, batch(fact(7633, A2.id), sources=(A2,)), actor="test")
    with pytest.raises(StoreError, match="out-of-order"):
        record(store, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    assert values(store, scope, known_at=parse_instant("2018-05-01")) == []


def test_a_late_older_filing_that_agrees_adds_support(store: Store, scope: Scope) -> None:
    restated(store, scope)
    older = source("older", "2018-05-01")
    report = record(store, scope, batch(fact(7001, older.id), sources=(older,)), actor="t")
    assert report.created == [] and len(report.repeated) == 1


# -- scope and status -------------------------------------------------------------------------

def test_two_tenants_writing_the_same_ids_never_see_each_other(store: Store) -> None:
    left, right = Scope(tenant=f"{_unique()}-left"), Scope(tenant=f"{_unique()}-right")
    try:
        record(store, left, batch(fact(1, A1.id), sources=(A1,)), actor="t")
        record(store, right, batch(fact(2, A1.id), sources=(A1,)), actor="t")
        assert values(store, left) == [1]
        assert values(store, right) == [2]
        assert store.read(AsOf(left))[0].id == store.read(AsOf(right))[0].id
    finally:
        for s in (left, right):
            if hasattr(store, "purge_tenant"):
                store.purge_tenant(s.tenant)


def test_a_read_without_a_tenant_fails() -> None:
    with pytest.raises(TenantRequired):
        AsOf(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tenant"):
        Scope(tenant="")


def test_further_scope_keys_are_hard_filters(store: Store, tenant: str) -> None:
    alice = Scope(tenant=tenant, keys={"user": "alice"})
    bob = Scope(tenant=tenant, keys={"user": "bob"})
    record(store, alice, batch(fact("aisle", A1.id, predicate="seat", unit=None), sources=(A1,)),
           actor="t")
    record(store, bob, batch(fact("window", A1.id, predicate="seat", unit=None)), actor="t")
    assert values(store, alice) == ["aisle"]
    assert values(store, bob) == ["window"]
    assert sorted(map(str, values(store, Scope(tenant=tenant)))) == ["aisle", "window"]
    thread = Scope(tenant=tenant, keys={"user": "alice", "thread": "9"})
    assert values(store, thread) == []


def test_candidates_are_not_admitted_by_default(store: Store, scope: Scope) -> None:
    guess = fact(9, A1.id, kind=FactKind.INFERENCE, status=Status.CANDIDATE)
    record(store, scope, batch(guess, sources=(A1,)), actor="t")
    assert values(store, scope) == []
    assert values(store, scope, statuses=frozenset({Status.CANDIDATE})) == [9]


def test_filtering_happens_before_the_limit(store: Store, scope: Scope) -> None:
    early = source("early", "2010-01-01")
    rows = [fact(i, A2.id, predicate=f"p{i}") for i in range(5)]
    record(store, scope, batch(*rows, sources=(A2,)), actor="t")
    record(store, scope, batch(fact("x", early.id, predicate="z", unit=None), sources=(early,)),
           actor="t")
    cutoff = parse_instant("2015-01-01")
    assert [f.value for f in store.read(AsOf(scope, known_at=cutoff), limit=1)] == ["x"]


def _unique() -> str:
    import uuid

    return uuid.uuid4().hex[:10]


def test_concurrent_compare_and_set_lets_exactly_one_writer_win(
    store: Store, scope: Scope,
) -> None:
    record(store, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    key = store.read(AsOf(scope))[0].key
    late = [source(f"late-{i}", "2020-01-01") for i in range(8)]

    def attempt(i: int) -> str:
        try:
            record(store, scope, batch(fact(i, late[i].id), sources=(late[i],)),
                   actor=f"writer-{i}", expected={key: 1})
        except ConflictError:
            return "conflict"
        return "won"

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(attempt, range(8)))
    assert sorted(results) == ["conflict"] * 7 + ["won"]
    history = store.history(scope.tenant, key)
    assert [f.revision for f in history] == [1, 2]
    assert history[0].superseded_at is not None
