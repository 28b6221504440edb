"""Corrections on the system axis against concurrent writers, on Neo4j.

A retraction and an invalidation take the write locks of their facts' subjects first, as every
write does (``vintage.graph.writes.locking``): a batch recording one of those facts again (a new
support) is decided wholly before or after them.

Two retractions of the two sources of one fact, at once, leave it resting on nothing: one of
them must invalidate it. Each sets only its own support edge, so no lock orders them; each then
asks whether the fact has a live support left. Asked before the other committed, each saw the
other's edge live, and the fact stayed current on no evidence. A retraction takes the fact's
write lock before it asks, so the second waits for the first and sees its edge retracted. The
race is made, not hoped for: a transaction retracts one source and holds, uncommitted, while
``retract_source`` retracts the other. (The embedded store has one writer at a time.)"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.factories import PinnedClock, batch, fact, make_store, source
from tests.test_cascade_close_race import blocked
from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import parse_instant
from vintage.graph.neo4j import cypher, cypher_lineage
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.writes.corrections import ExitReport, invalidate, restore_source, retract_source
from vintage.graph.writes.semantics import record

pytestmark = pytest.mark.neo4j

FIRST, SECOND = source("first", "2018-04-24"), source("second", "2018-05-02")


@pytest.fixture
def neo4j_store(request: pytest.FixtureRequest, clock: PinnedClock, tmp_path: Path,
                tenant: str) -> Iterator[Neo4jStore]:
    store = make_store("neo4j", clock, tmp_path, request)
    assert isinstance(store, Neo4jStore)
    yield store
    store.purge_tenant(tenant)


def racing(work: Callable[[], ExitReport], outcome: list[ExitReport | BaseException],
           ) -> threading.Thread:
    def run() -> None:
        try:
            outcome.append(work())
        except BaseException as exc:  # handed to the test thread
            outcome.append(exc)
    thread = threading.Thread(target=run)
    thread.start()
    return thread


@pytest.mark.parametrize("correction", ["retract", "undo", "invalidate"])
def test_a_correction_waits_for_a_writer_holding_its_facts_subject(
    neo4j_store: Neo4jStore, scope: Scope, clock: PinnedClock, correction: str,
) -> None:
    store = neo4j_store
    (figure,) = record(store, scope, batch(fact(100, FIRST.id), sources=(FIRST,)),
                       actor="t").created
    clock.advance(hours=1)
    if correction == "undo":
        retract_source(store, scope, FIRST.id, actor="t", reason="withdrawn")
        clock.advance(hours=1)
    outcome: list[ExitReport | BaseException] = []

    def correct() -> ExitReport:
        if correction == "retract":
            return retract_source(store, scope, FIRST.id, actor="t", reason="withdrawn")
        if correction == "undo":
            return restore_source(store, scope, FIRST.id, actor="t", reason="reinstated")
        return invalidate(store, scope, [figure], actor="t", reason="wrong")

    with store.driver.session(database=store.database) as session:
        writer = session.begin_transaction()  # a batch of GOOGL's, locked and deciding
        lock = cypher.lock_subjects(scope.tenant, ["GOOGL"])
        writer.run(lock.text, lock.params).consume()
        thread = racing(correct, outcome)
        assert blocked(session_of=store, within=15), "the correction never waited for the writer"
        assert not outcome
        writer.commit()
        thread.join(timeout=60)
    (report,) = outcome
    assert isinstance(report, ExitReport), report
    assert report.invalidated == [figure]  # closed, or held again by the undo


def test_retracting_both_sources_of_a_fact_at_once_invalidates_it(
    neo4j_store: Neo4jStore, scope: Scope, clock: PinnedClock,
) -> None:
    store = neo4j_store
    (figure,) = record(store, scope, batch(fact(100, FIRST.id), sources=(FIRST, SECOND)),
                       actor="t").created
    record(store, scope, batch(fact(100, SECOND.id)), actor="t")  # a second support, same fact
    clock.advance(hours=1)
    outcome: list[ExitReport | BaseException] = []
    with store.driver.session(database=store.database) as session:
        other = session.begin_transaction()
        first = cypher_lineage.retract_support(scope.tenant, FIRST.id,
                                               parse_instant("2030-01-01"))
        assert [r["id"] for r in other.run(first.text, first.params)] == []  # second is live
        thread = racing(lambda: retract_source(store, scope, SECOND.id, actor="t",
                                               reason="withdrawn"), outcome)
        assert blocked(session_of=store, within=15), "the retraction never waited for the other"
        other.commit()
        thread.join(timeout=60)
    (report,) = outcome
    assert isinstance(report, ExitReport), report
    assert report.invalidated == [figure]  # it saw the first source's edge retracted
    assert store.read(AsOf(scope)) == []
