"""Where the numbers came from (machine, commit, date) and how they are shown."""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

Result = dict[str, Any]


def _run(*command: str) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return done.stdout.strip() or "unknown"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024**2, 1)
    except OSError:
        pass
    return None


def machine() -> Result:
    return {
        "uname": _run("uname", "-a"),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_gib": _memory_gib(),
        "python": platform.python_version(),
    }


def provenance() -> Result:
    # True / False, or None when git cannot tell (an empty status must not read as unknown).
    try:
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True, check=True, timeout=10)
        dirty: bool | None = bool(status.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        dirty = None
    return {
        "commit": _run("git", "rev-parse", "--short", "HEAD"),
        # Uncommitted edits to tracked files mean the commit alone does not pin the code run.
        "dirty_worktree": dirty,
        "date_utc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def finish(result: Result, out: Path, shown: str, after: str = "") -> int:
    """Write a run's JSON, print where it came from, its tables (``shown``), any lines ``after``
    them and the JSON's path; 1 when one of ``result["checks"]`` is not zero, since a run whose
    answers are wrong has no figures worth reading."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, default=str) + "\n", encoding="utf-8")
    cpu = result["machine"]
    print(f"commit {result['commit']}  {result['date_utc']}  {cpu['cpu']} "
          f"({cpu['cores']} cores, {cpu['memory_gib']} GiB)\n")
    print(shown)
    if after:
        print(f"\n{after}")
    print(f"\nJSON: {out}")
    failed = {name: n for name, n in result.get("checks", {}).items() if n}
    if failed:
        print(f"\nFAILED: {failed}: the answers or decisions are wrong, the numbers are void",
              file=sys.stderr)
        return 1
    return 0


def store_mib(path: Path) -> float:
    """What a store directory holds on disk (the SQLite file, its WAL, anything beside)."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1024**2


def disk_mib(r: Result) -> float:
    """A run's store size: ``store_mib`` since the benches run the SQLite store users run;
    ``log_mib`` in the JSON of runs on the old log-replay store."""
    return float(r["store_mib"] if "store_mib" in r else r["log_mib"])


def peak_rss_mib() -> float:
    # Linux reports ru_maxrss in KiB. It is a high-water mark for the whole process, so later
    # sizes include whatever earlier ones reached.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mib() -> float:
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return float("nan")
    return pages * os.sysconf("SC_PAGE_SIZE") / 1024**2


def _n(value: float) -> str:
    return f"{value:,.0f}"


def tables(results: list[Result]) -> str:
    ingest = [
        "| facts | path | seconds | facts/s | vs raw UNWIND |",
        "|---:|---|---:|---:|---:|",
    ]
    reads = [
        "| facts | backend | reads | p50 ms | p95 ms | p99 ms | rows/read |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    other = [
        "| facts | embedded store MiB | RSS after embedded MiB | peak RSS MiB | Neo4j purge s "
        "| answers that differ |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        n = _n(r["facts"])
        raw = r["raw_unwind"]["facts_per_s"]
        naive = r["naive_per_fact"]
        naive_label = "naive: one CREATE query per fact"
        if naive["projected"]:
            naive_label += f" ({_n(naive['timed_facts'])} timed, projected)"
        rows = [
            ("Vintage embedded (`record`)", r["embedded"]["ingest"]),
            ("Vintage Neo4j (`record`)", r["neo4j"]["ingest"]),
            ("raw UNWIND + edge (speed limit)", r["raw_unwind"]),
            (naive_label, naive),
        ]
        for label, m in rows:
            ingest.append(f"| {n} | {label} | {m['seconds']:.1f} | {_n(m['facts_per_s'])} "
                          f"| {m['facts_per_s'] / raw:.2f}x |")
        for backend in ("embedded", "neo4j"):
            s = r[backend]["reads"]
            reads.append(
                f"| {n} | {backend} | {s['reads']} | {s['p50_ms']:.2f} | {s['p95_ms']:.2f} "
                f"| {s['p99_ms']:.2f} | {s['rows'] / s['reads']:.2f} |"
            )
        other.append(
            f"| {n} | {disk_mib(r['embedded']):.1f} | {r['embedded']['rss_after_mib']:.0f} "
            f"| {r['peak_rss_mib']:.0f} | {r['neo4j']['purge_seconds']:.1f} "
            f"| {r['read_disagreements']} |"
        )
    return "\n".join([
        "Ingest (batches of 10,000 facts; 10% of facts are restatements that supersede)", "",
        *ingest, "", "As-of point reads (one subject, one predicate, a cutoff, a valid instant)",
        "", *reads, "", "Footprint and checks", "", *other,
    ])
