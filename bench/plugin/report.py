"""The plugin bench's tables: each leg's latencies, and b against c over the legs pooled."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from bench.plugin.legs import latencies
from bench.retrieval.queries import Query
from bench.retrieval.run import Answer, percentile

Result = dict[str, Any]
PARTS = ("memories", "sec", "all")


def _f(x: float | None, digits: int = 1) -> str:
    return "-" if x is None or math.isnan(x) else f"{x:.{digits}f}"


def pooled(queries: Sequence[Query], kinds: Sequence[str],
           answers: Sequence[Sequence[Answer]]) -> Result:
    """Per mode and part (memories, SEC, all): p50/p95 of every b leg's searches together,
    of every c leg's, and b/c (below 1: the plugin is faster)."""
    ms: dict[str, dict[str, dict[str, list[float]]]] = {}
    for kind, got in zip(kinds, answers, strict=True):
        for mode, timed in latencies(queries, got).items():
            for part, values in timed.items():
                mine = ms.setdefault(mode, {}).setdefault(part, {"b": [], "c": []})[kind]
                mine.extend(values)
    out: Result = {}
    for mode, parts in ms.items():
        parts["all"] = {k: [*parts["memories"][k], *parts["sec"][k]] for k in ("b", "c")}
        for part in PARTS:
            row: Result = {}
            for p in (50, 95):
                b, c = (percentile(parts[part][k], p) for k in ("b", "c"))
                row |= {f"b_p{p}_ms": b, f"c_p{p}_ms": c,
                        f"b/c_p{p}": b / c if c and not math.isnan(b / c) else None}
            out.setdefault(mode, {})[part] = row
    return out


def per_leg(result: Result) -> list[str]:
    lines = ["| leg | mode | memories p50 / p95 ms | SEC p50 / p95 ms | recall@5 | illegal "
             "| failed | load before -> after |", "|---|---|---:|---:|---:|---:|---:|---|"]
    counts: dict[str, int] = {}
    for leg in result["legs"]:
        counts[leg["kind"]] = counts.get(leg["kind"], 0) + 1
        name = f"{leg['kind']}{counts[leg['kind']]}"
        if "modes" not in leg:
            lines.append(f"| {name} | - | {leg.get('error', 'not run')} | | | | | |")
            continue
        load = (f"{leg['load_before']['loadavg'][0]:.1f} -> "
                f"{leg['load_after']['loadavg'][0]:.1f}")
        for mode, m in leg["modes"].items():
            lines.append(f"| {name} | {mode} | {_f(m['memories_p50_ms'])} / "
                         f"{_f(m['memories_p95_ms'])} | {_f(m['sec_p50_ms'])} / "
                         f"{_f(m['sec_p95_ms'])} | {_f(m['recall@5'], 3)} "
                         f"| {m['illegal']} ({m['illegal_considered']}) | {m['errors']} "
                         f"| {load} |")
    return lines


def ratios(result: Result) -> list[str]:
    lines = ["| mode | searches | b p50 / p95 ms | c p50 / p95 ms | b/c p50 | b/c p95 |",
             "|---|---|---:|---:|---:|---:|"]
    for mode, parts in result["pooled"].items():
        for part in PARTS:
            r = parts[part]
            lines.append(f"| {mode} | {part} | {_f(r['b_p50_ms'])} / {_f(r['b_p95_ms'])} "
                         f"| {_f(r['c_p50_ms'])} / {_f(r['c_p95_ms'])} "
                         f"| {_f(r['b/c_p50'], 2)} | {_f(r['b/c_p95'], 2)} |")
    return lines


def tables(result: Result) -> str:
    diffs = ", ".join(f"{k}: {len(v)}" for k, v in result["differences"].items()) or "-"
    return "\n".join([
        "Each leg (b: the plugin jar in plugins/; c: none, the Cypher fallback); latency end "
        "to end per search; illegal: in the results (in all fused candidates)", "",
        *per_leg(result), "",
        "b against c, every leg of a kind pooled (b/c below 1: the plugin is faster)", "",
        *ratios(result), "", f"Searches whose results differ: {diffs}",
        f"Checks: {result['checks']}"])
