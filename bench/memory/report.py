"""Ratios and Markdown tables for ``bench.memory``."""

from __future__ import annotations

from typing import Any

from bench.report import disk_mib

Result = dict[str, Any]
VINTAGE = (("embedded", "Vintage embedded"), ("neo4j", "Vintage Neo4j"))
REFERENCES = (
    ("raw_neo4j", "raw Neo4j: one MERGE per write (speed limit)"),
    ("dict", "naive: Python dict (in-process floor)"),
    ("dict_history", "naive: dict + history list, scanned for as-of"),
    ("dict_fsync", "naive: dict + one fsynced JSON line per write"),
)
READS = (("recall_key", "one key"), ("recall_user", "all keys of a user"),
         ("context", "`build_context(limit=10)`"))


def _ms(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.2f}" if value >= 0.1 else f"{value:.2g}"


def _x(ratio: float | None) -> str:
    if ratio is None:
        return "-"
    if ratio >= 10:
        return f"{ratio:,.0f}x"
    return f"{ratio:.2f}x" if ratio >= 0.1 else f"{ratio:.2g}x"


def _paths(r: Result) -> list[tuple[str, str, Result]]:
    found = [(name, f"{label} (`remember`)", r[name]) for name, label in VINTAGE if name in r]
    refs = r.get("references", {})
    return found + [(name, label, refs[name]) for name, label in REFERENCES if name in refs]


def ratios(r: Result) -> Result:
    """Vintage against its reference in the same run: writes/s as Vintage / reference (below 1:
    slower), latencies as Vintage / reference (above 1: slower)."""
    refs = r.get("references", {})
    out: Result = {}
    for backend, ref in (("neo4j", "raw_neo4j"), ("embedded", "dict"),
                         ("embedded", "dict_fsync")):
        if backend not in r or ref not in refs:
            continue
        v, base = r[backend], refs[ref]
        found: Result = {"writes_per_s": v["writes"]["all"]["per_s"]
                         / base["writes"]["all"]["per_s"]}
        for kind in ("new", "correction", "restated"):
            if kind in v["writes"] and kind in base["writes"]:
                found[f"{kind}_p50_latency"] = (v["writes"][kind]["p50_ms"]
                                                / base["writes"][kind]["p50_ms"])
        for read in ("recall_key", "recall_user", "erase"):
            if read in base:
                for p in ("p50_ms", "p95_ms"):
                    found[f"{read}_{p.removesuffix('_ms')}_latency"] = (v[read][p]
                                                                        / base[read][p])
        out[f"{backend}_vs_{ref}"] = found
    return out


SEALED_OPS = (("writes", "remember"), ("recall_key", "recall one key"),
              ("recall_user", "recall all keys of a user"), ("context", "build_context"),
              ("erase", "forget a user"))


def _op(run: Result, op: str) -> Result:
    found: Result = run["writes"]["all"] if op == "writes" else run[op]
    return found


def sealing(r: Result) -> Result:
    """Sealed against plain, per backend and operation, in the same run: p50 and p95 latency
    as sealed / plain (above 1: sealing costs that much more)."""
    out: Result = {}
    for name, _ in VINTAGE:
        sealed, plain = r.get(name), r.get(f"{name}_plain")
        if sealed is None or plain is None:
            continue
        out[name] = {op: {p: _op(sealed, op)[f"{p}_ms"] / _op(plain, op)[f"{p}_ms"]
                          for p in ("p50", "p95")} for op, _ in SEALED_OPS}
    return out


def sealing_table(r: Result) -> list[str]:
    if not r.get("sealing"):
        return []
    lines = ["Sealing: the same workload sealed (AES-GCM, a key per version) and plain (no key "
             "store), in this run", "",
             "| backend | operation | sealed p50 / p95 ms | plain p50 / p95 ms "
             "| p50 sealed / plain | p95 sealed / plain |", "|---|---|---:|---:|---:|---:|"]
    for name, label in VINTAGE:
        if name not in r["sealing"]:
            continue
        for op, what in SEALED_OPS:
            s, p = _op(r[name], op), _op(r[f"{name}_plain"], op)
            x = r["sealing"][name][op]
            lines.append(f"| {label} | {what} | {_ms(s['p50_ms'])} / {_ms(s['p95_ms'])} "
                         f"| {_ms(p['p50_ms'])} / {_ms(p['p95_ms'])} | {_x(x['p50'])} "
                         f"| {_x(x['p95'])} |")
    return [*lines, ""]


def write_tables(r: Result) -> list[str]:
    raw = r.get("references", {}).get("raw_neo4j")
    base = r.get("references", {}).get("dict")
    lines = [
        "| path | writes | writes/s | p50 ms | p95 ms | p99 ms | vs raw Neo4j | vs dict |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for _, label, m in _paths(r):
        w = m["writes"]["all"]
        vs_raw = w["per_s"] / raw["writes"]["all"]["per_s"] if raw else None
        vs_dict = w["per_s"] / base["writes"]["all"]["per_s"] if base else None
        lines.append(f"| {label} | {w['n']:,} | {w['per_s']:,.0f} | {_ms(w['p50_ms'])} "
                     f"| {_ms(w['p95_ms'])} | {_ms(w['p99_ms'])} | {_x(vs_raw)} "
                     f"| {_x(vs_dict)} |")
    kinds = [
        "| path | new p50 / p95 ms | correction p50 / p95 ms | restated p50 / p95 ms "
        "| round 1 writes/s | round 2 writes/s | round 1 p50 ms, first / last tenth |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for _, label, m in _paths(r):
        w = m["writes"]
        cells = [f"{_ms(w[k]['p50_ms'])} / {_ms(w[k]['p95_ms'])}" if k in w else "-"
                 for k in ("new", "correction", "restated")]
        d = w["drift"]["round1"]
        kinds.append(f"| {label} | {' | '.join(cells)} | {w['new']['per_s']:,.0f} "
                     f"| {w['round2']['per_s']:,.0f} | {_ms(d['first_tenth_p50_ms'])} / "
                     f"{_ms(d['last_tenth_p50_ms'])} |")
    return ["Writes: one call per memory (round 1: every user x key new; round 2: every user "
            "x key again, a share corrected, the rest restated from a new message)", "",
            *lines, "", "By kind of write", "", *kinds]


def read_table(r: Result) -> list[str]:
    refs = r.get("references", {})
    lines = [
        "| path | read | reads | p50 ms | p95 ms | p99 ms | p95 vs raw Neo4j | p95 vs dict |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for _, label, m in _paths(r):
        for read, name in READS:
            if read not in m:
                continue
            s = m[read]
            raw = refs.get("raw_neo4j", {}).get(read)
            base = refs.get("dict", {}).get(read)
            lines.append(
                f"| {label.removesuffix(' (`remember`)')} | {name} | {s['n']:,} "
                f"| {_ms(s['p50_ms'])} | {_ms(s['p95_ms'])} | {_ms(s['p99_ms'])} "
                f"| {_x(s['p95_ms'] / raw['p95_ms'] if raw else None)} "
                f"| {_x(s['p95_ms'] / base['p95_ms'] if base else None)} |")
    return lines


def erase_table(r: Result) -> list[str]:
    lines = ["| path | users | p50 ms | max ms | versions erased per user |",
             "|---|---:|---:|---:|---|"]
    for _, label, m in _paths(r):
        if "erase" not in m:
            continue
        e = m["erase"]
        per_user = ", ".join(str(n) for n in e.get("facts_per_user", [])) or "-"
        lines.append(f"| {label.removesuffix(' (`remember`)')} | {e['n']} "
                     f"| {_ms(e['p50_ms'])} | {_ms(e['max_ms'])} | {per_user} |")
    return lines


def phase_table(r: Result) -> list[str]:
    steps = ("gate_read (current_version)", "store.read", "store.supports", "store.sources",
             "ranking.weights")
    lines = ["| backend | after | events in tenant | "
             + " | ".join(f"{s} p50 / p95 ms" for s in steps) + " |",
             "|---|---|---:|" + "---:|" * len(steps)]
    for name, _ in VINTAGE:
        for after, p in r.get(name, {}).get("phases", {}).items():
            cells = " | ".join(f"{_ms(p[s]['p50_ms'])} / {_ms(p[s]['p95_ms'])}" for s in steps)
            lines.append(f"| {name} | {after.replace('_', ' ')} | {p['events_in_tenant']:,} "
                         f"| {cells} |")
    return lines


def trace_table(r: Result) -> list[str]:
    found = r.get("neo4j", {}).get("trace", {})
    if not found:
        return []
    lines = ["Round trips of one call on Neo4j (diagnostic)", "",
             "| operation | transactions | queries |", "|---|---:|---:|"]
    lines += [f"| {op} | {t['transactions']} | {t['queries']} |" for op, t in found.items()]
    return [*lines, ""]


def plan_lines(r: Result) -> list[str]:
    found = [f"* Vintage Neo4j plan, {name}: " + " <- ".join(op.split(":")[0] for op in ops)
             for name, ops in r.get("neo4j", {}).get("plans", {}).items()]
    plans = r.get("references", {}).get("raw_neo4j", {}).get("plans", {})
    found += [f"* raw Neo4j plan, {name}: "
              + " <- ".join(op.split(":")[0] for op in ops) for name, ops in plans.items()]
    if any(not any(op.startswith("NodeIndexSeek") for op in ops) for ops in plans.values()):
        found.append("* WARNING: a raw Neo4j query does not seek its index")
    return found


def footprint(r: Result) -> list[str]:
    emb, neo = r.get("embedded", {}), r.get("neo4j", {})
    log = f"{disk_mib(emb):.1f}" if "log_mib" in emb or "store_mib" in emb else "-"
    rss = f"{emb['rss_after_mib']:.0f}" if "rss_after_mib" in emb else "-"
    purge = f"{neo['purge_seconds']:.1f}" if "purge_seconds" in neo else "-"
    c = r["checks"]
    return ["| embedded store MiB | RSS after embedded MiB | peak RSS MiB | Neo4j tenant purge s "
            "| answers that differ | unexpected gate decisions | memories left after erase |",
            "|---:|---:|---:|---:|---:|---:|---:|",
            f"| {log} | {rss} | {r['peak_rss_mib']:.0f} | {purge} | {c['wrong_answers']} "
            f"| {c['unexpected_decisions']} | {c['left_after_erase']} |"]


def tables(r: Result) -> str:
    return "\n".join([
        *write_tables(r), "", "Recall (warm; answers checked against the dict)", "",
        *read_table(r), "", "Erase one user (`forget(user=...)`)", "", *erase_table(r), "",
        *sealing_table(r),
        "Steps of a write and a one-key recall, timed one by one (diagnostic)", "",
        *phase_table(r), "", *trace_table(r), "Footprint and checks", "", *footprint(r), "",
        *plan_lines(r),
    ])
