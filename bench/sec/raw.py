"""References for the SEC companyfacts ingest: a raw Neo4j ``UNWIND`` load of the same shape
(the speed limit on that server) and a naive in-memory load (``json.load`` + one dict insert per
row, the floor for the embedded store).

The raw load writes labels of its own (``BenchSec*``) that no Vintage query reads, and
:func:`cleanup` removes them again.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, LiteralString

import neo4j

from vintage.graph.core.model import Scope
from vintage.ingest.batches import BATCH_SIZE
from vintage.ingest.sec.companyfacts import plan, read_companyfacts

LABELS = ("BenchSecFact", "BenchSecSource", "BenchSecSubject")
_INDEXES: tuple[LiteralString, ...] = (
    "CREATE INDEX bench_sec_fact IF NOT EXISTS FOR (n:BenchSecFact) ON (n.id)",
    "CREATE INDEX bench_sec_source IF NOT EXISTS FOR (n:BenchSecSource) ON (n.id)",
    "CREATE INDEX bench_sec_subject IF NOT EXISTS FOR (n:BenchSecSubject) ON (n.id)",
)
_SUBJECT: LiteralString = "MERGE (:BenchSecSubject {id: $id})"
_SOURCES: LiteralString = "UNWIND $rows AS row CREATE (s:BenchSecSource) SET s = row"
_FACTS: LiteralString = """
UNWIND $rows AS row
MATCH (s:BenchSecSubject {id: row.subject})
CREATE (f:BenchSecFact)
SET f = row
CREATE (f)-[:BENCH_ABOUT {role: 'subject', recorded_at: row.recorded_at}]->(s)"""
_SUPPORTS: LiteralString = """
UNWIND $rows AS row
MATCH (f:BenchSecFact {id: row.fact})
MATCH (s:BenchSecSource {id: row.source})
CREATE (f)-[:BENCH_SUPPORTED_BY {available_at: row.available_at,
                                recorded_at: row.recorded_at}]->(s)"""


@dataclass
class RawBatch:
    subject: str | None  # named in a file's first batch only
    sources: list[dict[str, Any]] = field(default_factory=list)
    facts: list[dict[str, Any]] = field(default_factory=list)
    supports: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class RawPlan:
    batches: list[RawBatch]
    rows: int
    facts: int
    supports: int
    sources: int
    subjects: int


def raw_plan(files: Sequence[Path], scope: Scope, recorded_at: datetime) -> RawPlan:
    """Each file's rows in Vintage's batches of 10,000: per batch the sources it names that are
    new, one fact node per distinct (assertion, value) not seen before (what Vintage creates,
    give or take a value that flips back), and one support edge per row."""
    batches: list[RawBatch] = []
    n_rows = n_facts = n_sources = 0
    for path in files:
        planned = plan(read_companyfacts(path))
        seen_facts: dict[tuple[str, str], str] = {}
        seen_sources: set[str] = set()
        revisions: dict[str, int] = {}
        for start in range(0, len(planned.facts), BATCH_SIZE):
            batch = RawBatch(planned.subject.id if start == 0 else None)
            for draft in planned.facts[start:start + BATCH_SIZE]:
                source = planned.sources[str(draft.source)]
                if source.id not in seen_sources:
                    seen_sources.add(source.id)
                    batch.sources.append({"id": source.id, "kind": source.kind.value,
                                          "available_at": source.available_at,
                                          "accession": source.accession, "form": source.form,
                                          "uri": source.uri, "tenant": scope.tenant})
                key = draft.assertion_key(scope)
                identity = (key, draft.content_hash())
                fact_id = seen_facts.get(identity)
                if fact_id is None:
                    revisions[key] = revisions.get(key, 0) + 1
                    fact_id = seen_facts[identity] = f"{key}.r{revisions[key]}"
                    batch.facts.append({
                        "id": fact_id, "key": key, "revision": revisions[key],
                        "tenant": scope.tenant, "scope": scope.terms(),
                        "kind": draft.kind.value, "status": draft.status.value,
                        "subject": draft.subject, "predicate": draft.predicate,
                        "value": draft.value, "unit": draft.unit,
                        "valid_from": draft.valid_from, "valid_to": draft.valid_to,
                        "available_at": source.available_at, "recorded_at": recorded_at,
                        "authority": 4, "content_hash": identity[1], "event_id": "e-bench",
                    })
                batch.supports.append({"fact": fact_id, "source": source.id,
                                       "available_at": source.available_at,
                                       "recorded_at": recorded_at})
            batches.append(batch)
        n_rows += len(planned.facts)
        n_facts += len(seen_facts)
        n_sources += len(seen_sources)
    return RawPlan(batches, n_rows, n_facts, n_rows, n_sources, len(files))


def _write(tx: neo4j.ManagedTransaction, batch: RawBatch) -> None:
    if batch.subject is not None:
        tx.run(_SUBJECT, id=batch.subject).consume()
    if batch.sources:
        tx.run(_SOURCES, rows=batch.sources).consume()
    tx.run(_FACTS, rows=batch.facts).consume()
    tx.run(_SUPPORTS, rows=batch.supports).consume()


def cleanup(driver: neo4j.Driver) -> None:
    with driver.session() as session:
        for label in LABELS:
            session.run(f"""
MATCH (n:{label})
CALL (n) {{ DETACH DELETE n }} IN TRANSACTIONS OF 10000 ROWS""").consume()
        for name in ("bench_sec_fact", "bench_sec_source", "bench_sec_subject"):
            session.run(f"DROP INDEX {name} IF EXISTS").consume()


def bulk_load(driver: neo4j.Driver, raw: RawPlan) -> float:
    """Seconds to write every batch, one transaction each (indexes made beforehand, untimed)."""
    with driver.session() as session:
        for statement in _INDEXES:
            session.run(statement).consume()
        session.run("CALL db.awaitIndexes(300)").consume()
        began = time.perf_counter()
        for batch in raw.batches:
            session.execute_write(_write, batch)
        return time.perf_counter() - began


def naive_embedded(files: Sequence[Path]) -> tuple[int, float]:
    """(rows, seconds) for ``gzip`` + ``json.load`` of every file and one dict insert per row
    keyed by (concept, unit, start, end, value), repeats appended as supports. No validation,
    no revisions, no durability: the floor under any embedded ingest."""
    began = time.perf_counter()
    facts: dict[tuple[Any, ...], list[str]] = {}
    rows = 0
    for path in files:
        with gzip.open(path, "rb") as handle:
            document = json.load(handle)
        cik = document["cik"]
        for taxonomy, concepts in document["facts"].items():
            for concept, body in concepts.items():
                for unit, items in body["units"].items():
                    for item in items:
                        key = (cik, taxonomy, concept, unit, item.get("start"), item["end"],
                               item["val"])
                        facts.setdefault(key, []).append(item["accn"])
                        rows += 1
    return rows, time.perf_counter() - began
