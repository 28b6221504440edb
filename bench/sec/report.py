"""Tables and optional profiles for ``bench.sec``."""

from __future__ import annotations

import cProfile
import io
import pstats
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

Result = dict[str, Any]
INGEST_TARGET = 0.60  # Vintage on Neo4j: at least 60% of the raw UNWIND throughput (issue 15)
P95_TARGET_MS = 30.0  # a warm question on Neo4j: p95 at most 30 ms (issue 15)


class Profiles:
    """cProfile around named phases when enabled (timings are then inflated: use it for a
    separate run); the top functions by own time and by cumulative time land in the JSON."""

    def __init__(self, enabled: bool, top: int = 15) -> None:
        self.enabled = enabled
        self.top = top
        self.found: dict[str, dict[str, list[str]]] = {}

    @contextmanager
    def section(self, name: str) -> Iterator[None]:
        if not self.enabled:
            yield
            return
        profile = cProfile.Profile()
        profile.enable()
        try:
            yield
        finally:
            profile.disable()
            self.found[name] = {key: self._top(profile, key) for key in ("tottime", "cumulative")}

    def _top(self, profile: cProfile.Profile, key: str) -> list[str]:
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats(key).print_stats(self.top)
        lines = text.getvalue().splitlines()
        start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls")), 0)
        return [line.rstrip() for line in lines[start:] if line.strip()]


def _n(value: float) -> str:
    return f"{value:,.0f}"


def ingest_table(r: Result) -> list[str]:
    lines = [
        "| path | rows | facts created | seconds | rows/s | facts/s | vs raw | peak RSS MiB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    raw = r.get("raw_unwind")
    raw_rate = raw["rows_per_s"] if raw else None
    entries: list[tuple[str, Result, bool]] = []  # (label, figures, compared with raw)
    if "embedded" in r:
        entries.append(("Vintage embedded (`ingest_companyfacts`)", r["embedded"]["ingest"],
                        True))
    if "neo4j" in r:
        entries.append(("Vintage Neo4j (`ingest_companyfacts`)", r["neo4j"]["ingest"], True))
    if raw:
        entries.append(("raw UNWIND facts + support edges (Neo4j speed limit)", raw, True))
    if "parse_plan" in r:
        entries.append(("Vintage parse + validate + plan only (no writes)", r["parse_plan"],
                        False))
    if "naive_embedded" in r:
        entries.append(("naive: json.load + dict insert per row", r["naive_embedded"], False))
    for label, m, compared in entries:
        ratio = f"{m['rows_per_s'] / raw_rate:.2f}x" if raw_rate and compared else "-"
        created = _n(m["created"]) if "created" in m else "-"
        facts_s = _n(m["facts_per_s"]) if "facts_per_s" in m else "-"
        rss = f"{m['peak_rss_mib']:.0f}" if "peak_rss_mib" in m else "-"
        lines.append(f"| {label} | {_n(m['rows'])} | {created} | {m['seconds']:.1f} "
                     f"| {_n(m['rows_per_s'])} | {facts_s} | {ratio} | {rss} |")
    return lines


def question_table(r: Result) -> list[str]:
    lines = [
        "| backend | asks | cold p50 ms | cold p95 ms | warm asks | warm p50 ms | warm p95 ms "
        "| warm max ms | answered / refused |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for backend in ("embedded", "neo4j"):
        if backend not in r:
            continue
        q = r[backend]["questions"]
        cold, warm = q["cold"], q["warm"]
        lines.append(
            f"| {backend} | {cold['n']} | {cold['p50_ms']:.1f} | {cold['p95_ms']:.1f} "
            f"| {warm['n']} | {warm['p50_ms']:.1f} | {warm['p95_ms']:.1f} "
            f"| {warm['max_ms']:.1f} | {q['answered']} / {q['refused']} |")
    return lines


def verdicts(r: Result) -> list[str]:
    found = []
    if "ratio_neo4j_vs_raw" in r:
        ratio = r["ratio_neo4j_vs_raw"]
        found.append(f"Neo4j ingest at {ratio:.2f}x the raw UNWIND rows/s (target >= "
                     f"{INGEST_TARGET:.2f}x): {'met' if ratio >= INGEST_TARGET else 'MISSED'}")
    if "neo4j" in r:
        p95 = r["neo4j"]["questions"]["warm"]["p95_ms"]
        found.append(f"Neo4j warm question p95 {p95:.1f} ms (target <= {P95_TARGET_MS:.0f} ms): "
                     f"{'met' if p95 <= P95_TARGET_MS else 'MISSED'}")
    if "question_disagreements" in r:
        found.append(f"questions whose answers differ between backends: "
                     f"{len(r['question_disagreements'])}")
    return found


def tables(r: Result) -> str:
    return "\n".join([
        "Ingest of the six companyfacts files (batches of 10,000 rows, one transaction each)", "",
        *ingest_table(r), "", "As-of metric questions (everything loaded)", "",
        *question_table(r), "", *(f"* {v}" for v in verdicts(r)),
    ])
