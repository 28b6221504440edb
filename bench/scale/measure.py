"""What the scale benchmark times and weighs: Vintage's ingest against a raw ``UNWIND`` load of
the same files, the cascade of the restated rate, and the server's disk and heap."""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import neo4j
from neo4j.exceptions import Neo4jError

from bench.scale import data as scale_data
from bench.sec import raw as sec_raw
from bench.sec.questions import nearest_rank
from vintage.graph.core.model import Scope
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.store.protocol import StoreError
from vintage.graph.writes.semantics import record
from vintage.ingest.sec.companyfacts import ingest_companyfacts

Result = dict[str, Any]
RAW_FILES_PER_PLAN = 200  # files planned (and held as rows) at a time by the raw load
MIB = 1024**2


def say(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def rates(rows: int, seconds: float, facts: int) -> Result:
    return {"rows": rows, "facts": facts, "seconds": seconds, "rows_per_s": rows / seconds,
            "facts_per_s": facts / seconds}


def ingest(store: Neo4jStore, scope: Scope, files: Sequence[Path]) -> Result:
    """``ingest_companyfacts`` per company file, as a user would load EDGAR."""
    totals: Counter[str] = Counter()
    revisions: Counter[str] = Counter()
    per_file: list[float] = []
    began = time.perf_counter()
    for i, path in enumerate(files, start=1):
        t0 = time.perf_counter()
        s = ingest_companyfacts(store, scope, path, actor="bench-scale")
        per_file.append((time.perf_counter() - t0) * 1000)
        totals.update(rows=s.rows, created=s.created, repeated=s.repeated,
                      superseded=len(s.superseded), sources=s.sources)
        revisions.update(s.revisions)
        if i % max(1, len(files) // 10) == 0:
            say(f"  ingested {i:,}/{len(files):,} files, {totals['created']:,} facts, "
                f"{time.perf_counter() - began:.0f} s")
    seconds = time.perf_counter() - began
    return {**rates(totals["rows"], seconds, totals["created"]), **totals,
            "revisions": dict(revisions), "files": len(files),
            "file_p50_ms": nearest_rank(per_file, 50), "file_p95_ms": nearest_rank(per_file, 95)}


def raw_load(uri: str, auth: tuple[str, str] | None, files: Sequence[Path]) -> Result:
    """``bench.sec.raw``'s load of the same files (one transaction per file, as Vintage's),
    planned ``RAW_FILES_PER_PLAN`` files at a time so memory stays flat; only writes timed."""
    rows = facts = supports = sources = 0
    seconds = 0.0
    with neo4j.GraphDatabase.driver(uri, auth=auth) as driver:
        try:
            sec_raw.cleanup(driver)  # leftovers of an interrupted run would skew the load
            for start in range(0, len(files), RAW_FILES_PER_PLAN):
                raw = sec_raw.raw_plan(files[start:start + RAW_FILES_PER_PLAN],
                                       Scope(tenant="bench-scale-raw"), datetime.now(UTC))
                seconds += sec_raw.bulk_load(driver, raw)
                rows, facts = rows + raw.rows, facts + raw.facts
                supports, sources = supports + raw.supports, sources + raw.sources
        finally:
            sec_raw.cleanup(driver)
    return {**rates(rows, seconds, facts), "support_edges": supports, "sources": sources}


def cascade(store: Neo4jStore, scope: Scope, expected: int) -> Result:
    """``record`` of the restated rate: the supersede and its cascade, one transaction."""
    began = time.perf_counter()
    try:
        report = record(store, scope, scale_data.fx_restatement(), actor="bench-scale")
    except (Neo4jError, StoreError) as exc:  # the transaction memory pool, most likely
        return {"error": f"{type(exc).__name__}: {str(exc)[:400]}", "expected": expected,
                "seconds": time.perf_counter() - began}
    seconds = time.perf_counter() - began
    reached = len(report.cascade)
    return {"seconds": seconds, "reached": reached, "expected": expected,
            "fates": dict(Counter(o.fate.value for o in report.cascade)),
            "facts_per_s": reached / seconds, "ok": reached == expected}


def data_directory(store: Neo4jStore) -> Path | None:
    """The server's data directory, when it is on this machine (``--neo4j-uri`` may not be)."""
    with store.driver.session(database="system") as session:
        found = session.run("CALL dbms.listConfig('server.directories.data') YIELD value "
                            "RETURN value").single()
    path = Path(str(found["value"])) if found else None
    return path if path is not None and path.is_dir() else None


def _size(folder: Path) -> tuple[int, int]:
    """(apparent bytes, allocated bytes) of every file under ``folder``."""
    apparent = allocated = 0
    for root, _, names in os.walk(folder):
        for name in names:
            try:
                st = os.stat(Path(root) / name)
            except OSError:  # a transaction log rotated away while we walked
                continue
            apparent += st.st_size
            allocated += st.st_blocks * 512
    return apparent, allocated


def disk(data: Path | None, database: str) -> Result:
    if data is None:
        return {}
    out: Result = {}
    for part in ("databases", "transactions"):
        apparent, allocated = _size(data / part / database)
        out[f"{part}_mib"] = allocated / MIB
        out[f"{part}_apparent_mib"] = apparent / MIB
    out["total_mib"] = out["databases_mib"] + out["transactions_mib"]
    return out


_HEAP = "CALL dbms.queryJmx('java.lang:type=Memory') YIELD attributes " \
        "RETURN attributes.HeapMemoryUsage.value.properties AS heap"
_POOLS = "CALL dbms.queryJmx('java.lang:type=MemoryPool,*') YIELD name, attributes " \
         "RETURN name, attributes.PeakUsage.value.properties AS peak"


def heap(store: Neo4jStore) -> Result:
    """The JVM heap now (used, committed, max) and the old generation's peak since the JVM
    started (a reused server's peak includes earlier work)."""
    try:
        with store.driver.session(database="system") as session:
            now = session.run(_HEAP).single()
            pools = [r.data() for r in session.run(_POOLS)]
    except Neo4jError as exc:  # JMX procedures can be disabled by the server's settings
        return {"error": f"{type(exc).__name__}: {str(exc)[:200]}"}
    out: Result = {}
    if now is not None:
        out.update({f"{k}_mib": now["heap"][k] / MIB for k in ("used", "committed", "max")})
    for pool in pools:
        if "Old Gen" in pool["name"] and pool["peak"]:
            out["old_gen_peak_mib"] = pool["peak"]["used"] / MIB
    return out
