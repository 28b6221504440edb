"""A search's re-read from the launcher's columns (``vintage.reread``, Reread.java) gives the
row Cypher's ``read_cited_with_subjects`` gives, on every read of a grid over the as-of
predicate's inputs (support edges retracted, restored and invalidated among them); with a fact
the columns lack, or no usable columns, it gives none (and the store reads in Cypher)."""

from __future__ import annotations

import itertools
from datetime import timedelta
from typing import Any

import pytest

from tests.factories import ACTOR, PinnedClock, batch, fact, source
from tests.test_neo4j_ranker import columns, several_facts, store  # noqa: F401 (a fixture)
from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import Status
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import Interval, as_of, parse_instant
from vintage.graph.neo4j import cypher_reads, ranker
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.retrieval.index import index_tx
from vintage.graph.writes.semantics import record
from vintage.queries.lineage.retraction import retract

pytestmark = pytest.mark.neo4j


def as_cypher_says(row: dict[str, Any]) -> dict[str, Any]:
    """Cypher's row as the procedure sends it: a fact's map without its absent (null)
    properties; sources and subjects by id."""
    return {"rows": [{"f": {k: v for k, v in r["f"].items() if v is not None},
                      "sources": r["sources"]} for r in row["rows"]],
            "sources": sorted(row["sources"], key=lambda s: s["id"]),
            "subjects": sorted(row["subjects"], key=lambda s: s["id"])}


def test_on_a_grid_of_reads_the_reread_gives_cyphers_row(
    store: Neo4jStore, tenant: str, clock: PinnedClock,  # noqa: F811
) -> None:
    made = several_facts(store, tenant, clock)
    # Revenues filed again later: a second support, public after the first.
    clock.advance(days=1)
    later = source("src-revenues-again", "2018-06-01")
    echoed = record(store, Scope(tenant=tenant), batch(fact(1, later.id, predicate="Revenues"),
                                                       sources=(later,)), actor=ACTOR)
    assert not echoed.created
    # The later filing retracted, then restored: its support edge has a gap in system time.
    # One memory's only source retracted for good: the memory and its edge are invalidated.
    clock.advance(days=1)
    retract(store, Scope(tenant=tenant), later.id, reason="misfiled", actor=ACTOR)
    in_gap = clock.now + timedelta(hours=12)
    clock.advance(days=1)
    retract(store, Scope(tenant=tenant), later.id, reason="refiled", actor=ACTOR, undo=True)
    (only,) = store.supports(tenant, [made[3]])
    clock.advance(days=1)
    retract(store, Scope(tenant=tenant), only.source_id, reason="withdrawn", actor=ACTOR)
    indexed = tuple(made[:-1])  # the last was erased: it has no entry
    assert columns(store, tenant) == len(indexed)
    at = parse_instant
    scopes = [(Scope(tenant=tenant), False), (Scope(tenant=tenant), True),
              (Scope(tenant=tenant, keys={"user": "42"}), False),
              (Scope(tenant=tenant, keys={"user": "42", "project": "p"}), False)]
    windows = [Interval(None, None), as_of(at("2026-05-10")), as_of(at("2026-05-18")),
               Interval(None, at("2018-05-01"))]
    compared = 0
    citing: set[int] = set()  # how many sources a fact cited, over the reads
    for (scope, shared_only), known, valid, system, statuses, unexpired, ids in \
            itertools.product(scopes, (at("2018-04-30"), at("2026-05-20")), windows,
                              (None, clock.now - timedelta(days=6), in_gap),
                              (frozenset({Status.ACTIVE}), frozenset(Status)),
                              (None, at("2026-05-10")), (indexed, indexed[1::2])):
        spec = AsOf(scope, known_at=known, valid=valid, system_at=system, statuses=statuses,
                    shared_only=shared_only, unexpired_at=unexpired,
                    ids=ids).resolved(store.now())
        (row,) = store.run(ranker.reread_call(spec))
        (cypher,) = store.run(cypher_reads.read_cited_with_subjects(spec))
        assert as_cypher_says(row) == as_cypher_says(cypher), spec
        compared += 1
        citing.update(len(r["sources"]) for r in row["rows"])
    assert compared == 768 and {1, 2} <= citing


def test_a_reread_naming_a_fact_the_columns_lack_or_without_columns_gives_no_row(
    store: Neo4jStore, tenant: str, clock: PinnedClock,  # noqa: F811
) -> None:
    made = several_facts(store, tenant, clock)
    assert columns(store, tenant) > 0
    everything = AsOf(Scope(tenant=tenant), statuses=frozenset(Status), ids=tuple(made[:-1]))
    assert store.run(ranker.reread_call(everything.resolved(store.now())))
    erased = AsOf(Scope(tenant=tenant), statuses=frozenset(Status), ids=tuple(made))
    assert store.run(ranker.reread_call(erased.resolved(store.now()))) == []
    store.write(tenant, lambda tx: index_tx(tx).clear_index())  # a write: columns evicted
    assert store.run(ranker.reread_call(everything.resolved(store.now()))) == []
