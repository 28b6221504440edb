"""The launcher's server-side ranker (vintage.graph.neo4j.ranker, Rank.java): it answers as Cypher
does, and its columns are never used across a write to their tenant.

The equivalence here is a property over reads of every shape the ranker serves (cutoffs,
system instants, valid windows, statuses, kinds, predicates, ids, scopes) on one tenant whose
facts fail each hard filter; tests/test_search_index.py runs the search index's whole
specification on both paths as well."""

from __future__ import annotations

import itertools
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.factories import ACTOR, PinnedClock, batch, fact, make_store, source
from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import FactKind, Status
from vintage.graph.core.model import Event, Scope
from vintage.graph.core.temporal import Interval, as_of, parse_instant
from vintage.graph.memory.primitives import memory_tx
from vintage.graph.neo4j import cypher_search, ranker
from vintage.graph.neo4j.cypher import Query
from vintage.graph.neo4j.search import blind
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.retrieval.index import IndexEntry, TextQuery, index_tx
from vintage.graph.store.protocol import Erasure
from vintage.graph.writes.semantics import record

pytestmark = pytest.mark.neo4j

MODEL = "test-4d"
VOCABULARY = ("alphabet", "oper", "incom", "revenu", "ship", "offic", "e4031", "e4032", "door",
              "code", "refund", "us-gaap:operatingincomeloss")
VECTORS = ((1.0, 0.0, 0.0, 0.0), (0.0, 1.0, 0.0, 0.0), (0.6, 0.8, 0.0, 0.0),
           (0.0, 0.0, 0.6, 0.8))


@pytest.fixture
def store(clock: PinnedClock, tmp_path: Path, tenant: str,
          request: pytest.FixtureRequest) -> Iterator[Neo4jStore]:
    made = make_store("neo4j", clock, tmp_path, request)
    assert isinstance(made, Neo4jStore) and made.server_ranker, "the launcher's server ranks"
    yield made
    made.purge_tenant(tenant)


def put(store: Neo4jStore, tenant: str, entries: list[IndexEntry]) -> None:
    store.write(tenant, lambda tx: index_tx(tx).put_index(entries))


def columns(store: Neo4jStore, tenant: str) -> int:
    (row,) = store.run(ranker.build_columns(tenant))
    return int(row["entries"])


def from_columns(store: Neo4jStore, spec: AsOf, terms: tuple[str, ...] = ("oper",),
                 vector: tuple[float, ...] | None = VECTORS[0]) -> dict[str, Any] | None:
    """The ranker's row for a read, or None when it has no columns to rank from."""
    rows = store.run(ranker.rank_call(spec.resolved(store.now()),
                                      blinded(store, spec.scope.tenant, terms), (), vector,
                                      MODEL, 5))
    return rows[0] if rows else None


def blinded(store: Neo4jStore, tenant: str, terms: Sequence[str]) -> list[str]:
    """Terms as the index holds them (vintage.graph.neo4j.search.blind)."""
    tokens = blind(store.sealer, tenant, terms, create=False)
    return [tokens[t] for t in terms if t in tokens]


def filed_facts(store: Neo4jStore, tenant: str, count: int, name: str) -> list[str]:
    """``count`` facts of one filing public 2018-04-24 (metric.0, metric.1, ...): their ids."""
    src = source(name, "2018-04-24")
    return record(store, Scope(tenant=tenant),
                  batch(*(fact(n, src.id, predicate=f"metric.{n}") for n in range(count)),
                        sources=(src,)), actor=ACTOR).created


def everything(store: Neo4jStore, tenant: str, at: datetime) -> AsOf:
    """The tenant's shared facts of every status and valid time, as known at ``at``."""
    return AsOf(Scope(tenant=tenant), known_at=at, valid=Interval(None, None),
                statuses=frozenset(Status)).resolved(store.now())


def several_facts(store: Neo4jStore, tenant: str, clock: PinnedClock) -> list[str]:
    """Facts that fail each hard filter, written at distinct system instants; their ids."""
    shared, mine, theirs = (Scope(tenant=tenant), Scope(tenant=tenant, keys={"user": "42"}),
                            Scope(tenant=tenant, keys={"user": "43"}))
    made: list[str] = []

    def write(scope: Scope, predicate: str, available: str, value: int = 1,
              **extra: Any) -> None:
        clock.advance(days=1)
        src = source(f"src-{uuid.uuid4().hex[:8]}", available)
        made.extend(record(store, scope, batch(fact(value, src.id, predicate=predicate,
                                                    **extra), sources=(src,)),
                           actor=ACTOR).created)

    write(shared, "OperatingIncomeLoss", "2018-04-24", 100)
    write(shared, "OperatingIncomeLoss", "2019-02-05", 120)  # restated: the first superseded
    write(shared, "Revenues", "2018-04-24")
    write(mine, "shipping.preference", "2018-03-01")
    write(theirs, "shipping.preference", "2018-03-02")
    # Two scope terms: a read of both sees the first alone, though the second shares a term.
    for user in ("42", "43"):
        write(Scope(tenant=tenant, keys={"user": user, "project": "p"}), "shipping.preference",
              "2018-03-03")
    write(mine, "door.code", "2026-05-01", period=("2026-05-01", None),
          expires_at=parse_instant("2026-05-15"))
    for n, (until, ends) in enumerate((("2026-05-12", None), ("2026-06-01", "2026-05-18"))):
        write(shared, f"door.code.{n}", "2026-04-20", period=("2026-04-20", ends),
              expires_at=parse_instant(until))
    write(shared, "refund.policy", "2018-05-01", status=Status.CANDIDATE)
    write(shared, "gift.wrap", "2018-05-02")
    # Every other entry says its terms twice: an identifier counts once however often it
    # repeats.
    put(store, tenant, [
        IndexEntry(fid, tuple(VOCABULARY[(n + k * 5) % len(VOCABULARY)]
                              for k in range(n % 4 + 1)) * (1 + n % 2),
                   VECTORS[n % len(VECTORS)], MODEL)
        for n, fid in enumerate(made)])
    clock.advance(days=1)
    store.write(tenant, lambda tx: memory_tx(tx).erase_facts([Erasure(made[-1], store.now())]))
    return made


def test_every_read_the_ranker_serves_ranks_and_counts_as_cypher_does(
    store: Neo4jStore, tenant: str, clock: PinnedClock,
) -> None:
    made = several_facts(store, tenant, clock)
    assert columns(store, tenant) == len(made) - 1  # the erased fact has no entry
    instants = [parse_instant(d) for d in ("2018-01-01", "2018-04-30", "2019-03-01",
                                           "2026-05-10", "2026-05-20")]
    system = [None, *(clock.now - timedelta(days=d) for d in (1, 3, 6))]
    scopes = [Scope(tenant=tenant), Scope(tenant=tenant, keys={"user": "42"}),
              Scope(tenant=tenant, keys={"user": "43"}),
              Scope(tenant=tenant, keys={"user": "42", "project": "p"})]

    @st.composite
    def reads(draw: st.DrawFn) -> AsOf:
        scope = draw(st.sampled_from(scopes))
        window = draw(st.sampled_from(["all", "instant", "from", "until"]))
        at = draw(st.sampled_from(instants))
        valid = {"all": Interval(None, None), "instant": as_of(at),
                 "from": Interval(at, None), "until": Interval(None, at)}[window]
        # Each narrowing is drawn one time in four: most reads then meet most facts, and
        # their counts by reason compare the two predicates on each.
        def sometimes(value: Any) -> Any:
            return value if draw(st.integers(0, 3)) == 0 else None

        return AsOf(
            scope, known_at=draw(st.sampled_from(instants)), valid=valid,
            system_at=draw(st.sampled_from(system)),
            statuses=draw(st.sampled_from([frozenset({Status.ACTIVE}), frozenset(Status)])),
            predicates=sometimes(("OperatingIncomeLoss", "shipping.preference")),
            kinds=sometimes((FactKind.OBSERVATION,)),
            ids=sometimes(tuple(draw(st.lists(st.sampled_from(made), min_size=1,
                                              unique=True)))),
            shared_only=not scope.keys and draw(st.booleans()),
            unexpired_at=draw(st.sampled_from([None, *instants])))

    @settings(max_examples=100, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(spec=reads(), terms=st.just(list(VOCABULARY))
           | st.lists(st.sampled_from(VOCABULARY), max_size=4, unique=True),
           identified=st.booleans(), vector=st.none() | st.sampled_from(VECTORS),
           per_leg=st.integers(1, 4), counted=st.booleans())
    def same(spec: AsOf, terms: list[str], identified: bool, vector: tuple[float, ...] | None,
             per_leg: int, counted: bool) -> None:
        resolved = spec.resolved(store.now())
        identifiers = [t for t in terms if identified and t[-1].isdigit()]
        args = (resolved, blinded(store, tenant, terms), blinded(store, tenant, identifiers),
                vector, MODEL if vector else None, per_leg, counted)
        served = store.run(ranker.rank_call(*args))
        assert served, "the tenant's columns were built and nothing wrote since"
        (cypher,) = store.run(cypher_search.rank(*args))
        (row,) = served
        for leg in ("exact", "keyword", "semantic"):
            assert [i for i, _ in row[leg]] == [i for i, _ in cypher[leg]], leg
            assert [s for _, s in row[leg]] == pytest.approx([s for _, s in cypher[leg]],
                                                             abs=1e-6), leg
        assert (row["legal"], row["matched"]) == (cypher["legal"], cypher["matched"])
        assert sorted(map(tuple, row["excluded"])) == sorted(map(tuple, cypher["excluded"]))
        also_as_cypher_asks_by_id(store, row, resolved, args[1], vector)

    same()


def also_as_cypher_asks_by_id(store: Neo4jStore, row: dict[str, Any], spec: AsOf,
                              terms: list[str], vector: tuple[float, ...] | None) -> list[str]:
    """That the ranker's row gives each leg's scores of the other legs' items it did not
    return as Cypher does when asked by id (search.run._rescore); the leg of each score."""
    legs = {"keyword": bool(terms), "semantic": vector is not None}
    assert set(row["also"]) == {leg for leg, ranked in legs.items() if ranked}
    found = {i for leg in ("exact", "keyword", "semantic") for i, _ in row[leg]}
    scored: list[str] = []
    for leg, pairs in row["also"].items():
        asked = sorted(found - {i for i, _ in row[leg]})
        expected = store.run(cypher_search.rank(
            replace(spec, ids=tuple(asked)), terms if leg == "keyword" else [], [],
            vector if leg == "semantic" else None, MODEL if leg == "semantic" else None,
            max(1, len(asked)), False))[0][leg] if asked else []
        assert sorted(i for i, _ in pairs) == sorted(i for i, _ in expected), leg
        assert [s for _, s in sorted(map(tuple, pairs))] == pytest.approx(
            [s for _, s in sorted(map(tuple, expected))], abs=1e-6), leg
        scored.extend(leg for _ in pairs)
    return scored


def test_each_leg_scores_the_other_legs_best_in_the_same_read_as_cypher_asked_by_id(
    store: Neo4jStore, tenant: str, clock: PinnedClock,
) -> None:
    """One item per leg, each leg's best a different item: every leg scores the others'."""
    several_facts(store, tenant, clock)
    assert columns(store, tenant) > 0
    spec = AsOf(Scope(tenant=tenant), known_at=parse_instant("2026-05-20"),
                valid=Interval(None, None), statuses=frozenset(Status)).resolved(store.now())
    terms = blinded(store, tenant, VOCABULARY)
    codes = blinded(store, tenant, [t for t in VOCABULARY if t[-1].isdigit()])
    for vector in VECTORS:
        (row,) = store.run(ranker.rank_call(spec, terms, codes, vector, MODEL, 1))
        assert len({i for leg in ("exact", "keyword", "semantic") for i, _ in row[leg]}) > 1
        scored = also_as_cypher_asks_by_id(store, row, spec, terms, vector)
        assert {"keyword", "semantic"} <= set(scored), row


def test_an_identifier_counts_once_however_often_an_entry_repeats_it(
    store: Neo4jStore, tenant: str, clock: PinnedClock,
) -> None:
    made = several_facts(store, tenant, clock)
    assert columns(store, tenant) > 0
    spec = AsOf(Scope(tenant=tenant), known_at=parse_instant("2026-05-20"),
                valid=Interval(None, None), statuses=frozenset(Status)).resolved(store.now())
    terms = blinded(store, tenant, VOCABULARY)
    codes = blinded(store, tenant, ["e4031", "e4032"])  # no entry carries both
    (row,) = store.run(ranker.rank_call(spec, terms, codes, None, None, 10))
    (cypher,) = store.run(cypher_search.rank(spec, terms, codes, None, None, 10))
    assert row["exact"] == cypher["exact"]
    assert {s for _, s in row["exact"]} == {1}
    assert {made[1], made[3], made[7]} <= {i for i, _ in row["exact"]}  # said twice


def test_on_a_grid_of_reads_the_ranker_gives_every_fact_cyphers_reason(
    store: Neo4jStore, tenant: str, clock: PinnedClock,
) -> None:
    """Every combination of the predicate's inputs that the facts above tell apart, each
    read matching every entry: the counts by reason compare the two predicates fact by fact."""
    several_facts(store, tenant, clock)
    assert columns(store, tenant) > 0
    at = parse_instant
    scopes = [(Scope(tenant=tenant), False), (Scope(tenant=tenant), True),
              (Scope(tenant=tenant, keys={"user": "42"}), False),
              (Scope(tenant=tenant, keys={"user": "42", "project": "p"}), False)]
    # Instants on the facts' own bounds (an expiry, a valid_to) as well as between them.
    windows = [Interval(None, None), as_of(at("2026-05-10")), as_of(at("2026-05-15")),
               as_of(at("2026-05-18")), Interval(at("2026-05-18"), None),
               Interval(None, at("2018-05-01"))]
    terms = blinded(store, tenant, VOCABULARY)
    compared = 0
    for (scope, shared_only), known, valid, system, statuses, unexpired in itertools.product(
            scopes, (at("2018-04-30"), at("2026-05-20")), windows,
            (None, clock.now - timedelta(days=3)), (frozenset({Status.ACTIVE}), frozenset(Status)),
            (None, at("2026-05-10"), at("2026-05-20"))):
        spec = AsOf(scope, known_at=known, valid=valid, system_at=system, statuses=statuses,
                    shared_only=shared_only, unexpired_at=unexpired).resolved(store.now())
        (row,) = store.run(ranker.rank_call(spec, terms, [], None, None, 10))
        (cypher,) = store.run(cypher_search.rank(spec, terms, [], None, None, 10))
        assert (row["keyword"], row["legal"], row["matched"]) == (
            cypher["keyword"], cypher["legal"], cypher["matched"]), spec
        assert sorted(map(tuple, row["excluded"])) == sorted(map(tuple, cypher["excluded"])), spec
        compared += 1
    assert compared == 576


def test_a_write_evicts_the_tenants_columns_before_it_commits_and_none_are_kept_while_it_runs(
    store: Neo4jStore, tenant: str, clock: PinnedClock,
) -> None:
    several_facts(store, tenant, clock)
    everything = AsOf(Scope(tenant=tenant), statuses=frozenset(Status))
    assert columns(store, tenant) > 0 and from_columns(store, everything) is not None
    with store.driver.session() as session, session.begin_transaction() as tx:
        mark = ranker.search_write(tenant)
        tx.run(mark.text, mark.params).consume()
        assert from_columns(store, everything) is None  # evicted at once, not at commit
        assert columns(store, tenant) == -1  # and none are kept while the write is open
        tx.rollback()
    assert columns(store, tenant) > 0 and from_columns(store, everything) is not None
    # Another tenant's write leaves these columns alone.
    store.write(tenant + "-other", lambda tx: index_tx(tx).clear_index())
    assert from_columns(store, everything) is not None


def test_an_erased_fact_is_out_of_the_columns_as_soon_as_its_erasure_runs(
    store: Neo4jStore, tenant: str, clock: PinnedClock,
) -> None:
    made = several_facts(store, tenant, clock)
    everything = AsOf(Scope(tenant=tenant), statuses=frozenset(Status))
    assert columns(store, tenant) == len(made) - 1
    clock.advance(days=1)
    store.write(tenant, lambda tx: memory_tx(tx).erase_facts([Erasure(made[0], store.now())]))
    assert from_columns(store, everything) is None
    assert columns(store, tenant) == len(made) - 2
    row = from_columns(store, everything, terms=tuple(VOCABULARY), vector=VECTORS[0])
    assert row is not None
    assert made[0] not in {i for leg in ("keyword", "semantic") for i, _ in row[leg]}


def test_recording_only_an_event_leaves_the_columns_in_use(
    store: Neo4jStore, tenant: str, clock: PinnedClock,
) -> None:
    several_facts(store, tenant, clock)
    assert columns(store, tenant) > 0
    event = Event(id="ev-" + uuid.uuid4().hex[:8], tenant=tenant, at=store.now(), actor=ACTOR,
                  action="context")
    store.write(tenant, lambda tx: tx.append_events(event))
    assert from_columns(store, AsOf(Scope(tenant=tenant))) is not None


def test_a_search_without_columns_ranks_in_cypher_while_they_are_built_in_the_background(
    store: Neo4jStore, tenant: str, clock: PinnedClock,
) -> None:
    several_facts(store, tenant, clock)
    spec = AsOf(Scope(tenant=tenant))
    assert from_columns(store, spec) is None  # the write evicted them; this asks for a build
    deadline = datetime.now() + timedelta(seconds=30)
    while (row := from_columns(store, spec)) is None and datetime.now() < deadline:
        time.sleep(0.05)
    assert row is not None, "the background build kept the tenant's columns"


def test_a_stock_server_without_the_procedures_is_never_asked_to_rank(
    store: Neo4jStore, tenant: str, clock: PinnedClock, monkeypatch: pytest.MonkeyPatch,
) -> None:
    several_facts(store, tenant, clock)
    asked: list[str] = []
    run = store.run

    def recording(query: Query) -> list[dict[str, Any]]:
        asked.append(query.text)
        return run(query)

    monkeypatch.setattr(store, "run", recording)
    store.server_ranker = False
    hits = store.rank(AsOf(Scope(tenant=tenant)), TextQuery(("oper",), (), VECTORS[0], MODEL, 3))
    assert hits.legal > 0
    assert not any(ranker.RANK in text for text in asked)
