"""Reference points on the same server: a bare bulk load (the speed limit) and a naive
one-query-per-fact load (what a first attempt usually looks like).

Both write to labels of their own (``BenchRaw*``) that no Vintage query reads, and remove them
before returning, so the Vintage tenant and the raw load never see each other.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, LiteralString

import neo4j

from bench.data import BATCH_SIZE

RAW_SUBJECT = "BenchRawSubject"
RAW_FACT = "BenchRaw"
NAIVE_FACT = "BenchNaive"
NAIVE_CAP = 5_000

_BULK: LiteralString = """
UNWIND $rows AS row
MATCH (s:BenchRawSubject {id: row.subject})
CREATE (f:BenchRaw)
SET f = row
CREATE (f)-[:ABOUT]->(s)"""

_NAIVE: LiteralString = """
MATCH (s:BenchRawSubject {id: $row.subject})
CREATE (f:BenchNaive)
SET f = $row
CREATE (f)-[:ABOUT]->(s)"""


@dataclass(frozen=True)
class LoadResult:
    facts: int  # actually written and timed
    seconds: float
    target: int  # the data set's size; larger than ``facts`` when the rate is projected

    @property
    def per_second(self) -> float:
        return self.facts / self.seconds if self.seconds > 0 else float("inf")

    @property
    def projected(self) -> bool:
        return self.target > self.facts

    @property
    def projected_seconds(self) -> float:
        return self.target / self.per_second


def _run(session: neo4j.Session, text: LiteralString, **params: Any) -> None:
    session.run(text, params).consume()


def _setup(session: neo4j.Session, subjects: list[str]) -> None:
    # Without this index every row's MATCH would scan the label; Vintage's Subject has its
    # (tenant, id) constraint, so the comparison stays like for like.
    _run(session, "CREATE INDEX bench_raw_subject IF NOT EXISTS FOR (s:BenchRawSubject) ON (s.id)")
    _run(session, "CALL db.awaitIndexes(300)")
    _run(session, "UNWIND $ids AS id MERGE (:BenchRawSubject {id: id})", ids=subjects)


def _write_rows(tx: neo4j.ManagedTransaction, rows: list[dict[str, Any]]) -> None:
    tx.run(_BULK, rows=rows).consume()


def cleanup(driver: neo4j.Driver) -> None:
    with driver.session() as session:
        for label in (RAW_FACT, NAIVE_FACT, RAW_SUBJECT):
            # Deleting 100k nodes in one transaction would need the heap to hold them all.
            _run(session, f"""
MATCH (n:{label})
CALL (n) {{ DETACH DELETE n }} IN TRANSACTIONS OF 10000 ROWS""")
        _run(session, "DROP INDEX bench_raw_subject IF EXISTS")


def bulk_load(driver: neo4j.Driver, rows: list[dict[str, Any]], subjects: list[str]) -> LoadResult:
    """``UNWIND`` batches of 10k rows, each creating its node and its ABOUT edge, one
    transaction per batch: the same shape of work as Vintage's fact write, minus everything
    Vintage does around it."""
    with driver.session() as session:
        _setup(session, subjects)
        began = time.perf_counter()
        for start in range(0, len(rows), BATCH_SIZE):
            session.execute_write(_write_rows, rows[start:start + BATCH_SIZE])
        seconds = time.perf_counter() - began
    return LoadResult(len(rows), seconds, len(rows))


def naive_load(driver: neo4j.Driver, rows: list[dict[str, Any]], subjects: list[str]) -> LoadResult:
    """One auto-commit query per fact, capped at :data:`NAIVE_CAP` facts; the rate is then
    projected to the full size (it is flat in N: every fact pays one round trip and one commit)."""
    written = rows[:NAIVE_CAP]
    with driver.session() as session:
        _setup(session, subjects)
        began = time.perf_counter()
        for row in written:
            session.run(_NAIVE, row=row).consume()
        seconds = time.perf_counter() - began
    return LoadResult(len(written), seconds, len(rows))


def plan_operators(driver: neo4j.Driver, text: str, params: dict[str, Any]) -> list[str]:
    """Operator names of the planner's choice for ``text``, root first (EXPLAIN: nothing runs)."""
    with driver.session() as session:
        summary = session.run("EXPLAIN " + text, params).consume()
    found: list[str] = []

    def walk(node: dict[str, Any]) -> None:
        name = str(node.get("operatorType", "?")).split("@")[0]
        details = node.get("args", {}).get("Details")
        found.append(f"{name}: {details}" if details else name)
        for child in node.get("children", []):
            walk(child)

    if summary.plan is not None:
        walk(dict(summary.plan))
    return found
