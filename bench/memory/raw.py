"""References for ``bench.memory``, run on the same workload in the same process:

* raw Neo4j: one ``MERGE ... SET m.value`` per write (a managed transaction in its own
  session, as Vintage's store opens one per call), corrections overwrite; point reads are one
  ``MATCH ... RETURN m.value``. No history, gate, event, provenance or lock: the speed limit of
  "just store it in Neo4j". Label ``BenchMemRaw``, removed by :func:`cleanup`.
* in-process: a dict ``user -> key -> value`` (the embedded backend's floor), the same dict
  keeping every value as a list scanned backwards for an as-of read, and the dict plus one
  fsynced JSON line per write (the floor for a durable embedded write).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, LiteralString

import neo4j

from bench.memory.work import (
    WARMUP_READS,
    Answer,
    Pair,
    Result,
    Workload,
    Write,
    clock,
    time_each,
    writes_summary,
)
from bench.neo4j_raw import plan_operators

LABEL = "BenchMemRaw"
# One composite index serves all three: the user's reads and erase seek its (tenant, user)
# prefix through ``key IS NOT NULL``. (With a second (tenant, user) index beside it, Neo4j 5.26
# plans the MERGE as a scan of that one plus a filter: linear in the label.)
_INDEX: LiteralString = (
    "CREATE INDEX bench_mem_raw IF NOT EXISTS FOR (m:BenchMemRaw) ON (m.tenant, m.user, m.key)")
_MERGE: LiteralString = (
    "MERGE (m:BenchMemRaw {tenant: $tenant, user: $user, key: $key}) SET m.value = $value")
_POINT: LiteralString = (
    "MATCH (m:BenchMemRaw {tenant: $tenant, user: $user, key: $key}) RETURN m.value AS value")
_USER: LiteralString = (
    "MATCH (m:BenchMemRaw {tenant: $tenant, user: $user}) WHERE m.key IS NOT NULL "
    "RETURN m.key AS key, m.value AS value")
_ERASE: LiteralString = (
    "MATCH (m:BenchMemRaw {tenant: $tenant, user: $user}) WHERE m.key IS NOT NULL "
    "DETACH DELETE m")
_ALL: LiteralString = (
    "MATCH (m:BenchMemRaw {tenant: $tenant}) RETURN m.user AS user, m.key AS key, "
    "m.value AS value")


def cleanup(driver: neo4j.Driver) -> None:
    with driver.session() as session:
        session.run("""
MATCH (n:BenchMemRaw)
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS""").consume()
        session.run("DROP INDEX bench_mem_raw IF EXISTS").consume()


def _write(driver: neo4j.Driver, tenant: str, w: Write) -> None:
    def work(tx: neo4j.ManagedTransaction) -> None:
        tx.run(_MERGE, tenant=tenant, user=w.user, key=w.key, value=w.value).consume()

    with driver.session() as session:
        session.execute_write(work)


def _read(driver: neo4j.Driver, text: LiteralString, **params: str) -> Answer:
    def work(tx: neo4j.ManagedTransaction) -> list[dict[str, Any]]:
        return [r.data() for r in tx.run(text, params)]

    with driver.session() as session:
        rows = session.execute_read(work)
    key = params.get("key")
    return tuple(sorted((str(r.get("key", key)), str(r["value"])) for r in rows))


def neo4j_reference(driver: neo4j.Driver, tenant: str, work: Workload) -> tuple[Result, int]:
    """The whole workload on raw Neo4j; returns the timings and how many answers (timed reads
    and a full sweep) differ from the expected values."""
    with driver.session() as session:
        session.run(_INDEX).consume()
        session.run("CALL db.awaitIndexes(300)").consume()
    for w in work.warmup():
        _write(driver, f"{tenant}-warmup", w)
    first, _ = time_each(work.first, lambda w: _write(driver, tenant, w))
    second, _ = time_each(work.second, lambda w: _write(driver, tenant, w))
    point, got_points = time_each(
        work.points, lambda p: _read(driver, _POINT, tenant=tenant, user=p[0], key=p[1]),
        WARMUP_READS)
    lists, got_lists = time_each(
        work.lists, lambda u: _read(driver, _USER, tenant=tenant, user=u), WARMUP_READS)
    wrong = sum(got != work.answer(u, k) for (u, k), got in zip(work.points, got_points,
                                                                strict=True))
    wrong += sum(got != work.answer(u) for u, got in zip(work.lists, got_lists, strict=True))
    with driver.session() as session:
        held = {(r["user"], r["key"]): r["value"]
                for r in session.run(_ALL, tenant=tenant)}
    wrong += sum(held.get(p) != v for p, v in work.expected.items())
    wrong += len(set(held) - set(work.expected))

    def erase(user: str) -> None:
        with driver.session() as session:
            session.execute_write(lambda tx: tx.run(_ERASE, tenant=tenant, user=user).consume())

    erased, _ = time_each(work.erased, erase)
    plans = {name: plan_operators(driver, text, {"tenant": tenant, "user": "u00000",
                                                 "key": "pref.k000", "value": "-"})
             for name, text in (("merge", _MERGE), ("point", _POINT), ("user", _USER),
                                       ("erase", _ERASE))}
    return {"writes": writes_summary(work, first, second),
            "recall_key": point.summary(), "recall_user": lists.summary(),
            "erase": erased.summary(), "plans": plans}, wrong


class DictRef:
    """``user -> key -> value``; a write overwrites."""

    def __init__(self) -> None:
        self.data: dict[str, dict[str, str]] = {}

    def write(self, w: Write) -> None:
        self.data.setdefault(w.user, {})[w.key] = w.value

    def point(self, p: Pair) -> Answer:
        value = self.data.get(p[0], {}).get(p[1])
        return () if value is None else ((p[1], value),)

    def user(self, user: str) -> Answer:
        return tuple(sorted(self.data.get(user, {}).items()))

    def erase(self, user: str) -> None:
        self.data.pop(user, None)


class HistoryRef:
    """Every value kept as ``(recorded_at, value)`` in a list; a read scans it backwards for
    the last value recorded by its instant (now, here): the naive as-of store."""

    def __init__(self) -> None:
        self.data: dict[str, dict[str, list[tuple[datetime, str]]]] = {}

    def write(self, w: Write) -> None:
        self.data.setdefault(w.user, {}).setdefault(w.key, []).append((clock(), w.value))

    @staticmethod
    def _as_of(versions: list[tuple[datetime, str]], at: datetime) -> str | None:
        return next((v for t, v in reversed(versions) if t <= at), None)

    def point(self, p: Pair) -> Answer:
        value = self._as_of(self.data.get(p[0], {}).get(p[1], []), clock())
        return () if value is None else ((p[1], value),)

    def user(self, user: str) -> Answer:
        at = clock()
        found = ((k, self._as_of(vs, at)) for k, vs in self.data.get(user, {}).items())
        return tuple(sorted((k, v) for k, v in found if v is not None))

    def erase(self, user: str) -> None:
        self.data.pop(user, None)


class FsyncRef(DictRef):
    """The dict plus one JSON line per write, flushed and fsynced (as the embedded log is)."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.file = path.open("a", encoding="utf-8")

    def write(self, w: Write) -> None:
        super().write(w)
        self.file.write(json.dumps({"user": w.user, "key": w.key, "value": w.value}) + "\n")
        self.file.flush()
        os.fsync(self.file.fileno())

    def close(self) -> None:
        self.file.close()


def in_process(ref: DictRef | HistoryRef, work: Workload,
               reads: bool = True) -> tuple[Result, int]:
    """The workload on one in-process reference; returns timings and wrong answers."""
    write: Callable[[Write], None] = ref.write
    first, _ = time_each(work.first, write)
    second, _ = time_each(work.second, write)
    out: Result = {"writes": writes_summary(work, first, second)}
    if not reads:
        return out, 0
    point, got_points = time_each(work.points, ref.point, WARMUP_READS)
    lists, got_lists = time_each(work.lists, ref.user, WARMUP_READS)
    wrong = sum(got != work.answer(u, k) for (u, k), got in zip(work.points, got_points,
                                                                strict=True))
    wrong += sum(got != work.answer(u) for u, got in zip(work.lists, got_lists, strict=True))
    wrong += sum(ref.user(u) != work.answer(u) for u in work.users)
    erased, _ = time_each(work.erased, ref.erase)
    out.update(recall_key=point.summary(), recall_user=lists.summary(),
               erase=erased.summary())
    return out, wrong
