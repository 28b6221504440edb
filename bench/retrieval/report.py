"""The retrieval benchmark's tables (Markdown) and its verdict on the issue's targets."""

from __future__ import annotations

from typing import Any

Result = dict[str, Any]
RECALL_TARGET = 0.9
P95_TARGET_MS = 50.0
GRAPHITI = (
    "Not run. Graphiti (graphiti-core) extracts entities and edges with an LLM and embeds with "
    "an embedding API on every write (add_episode); neither is reachable from this machine, "
    "and a fake LLM would measure the fake. No Graphiti number is reported.")


def _f(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _n(x: float | None) -> str:
    return "-" if x is None else f"{x:,.0f}"


def _runs(out: Result) -> list[tuple[str, Result]]:
    """(backend, its run) for every size, in the order run."""
    return [(backend, run) for by in out["sizes"].values()
            for backend, run in by.items() if isinstance(run, dict) and "modes" in run]


def ladder(out: Result) -> list[str]:
    lines = ["| items | backend | mode | recall@1 | recall@5 | MRR | illegal | failed | p50 ms "
             "| p95 ms | memories p50 / p95 ms |",
             "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for backend, run in _runs(out):
        for mode, m in run["modes"].items():
            lines.append(f"| {_n(run['corpus_items'])} | {backend} | {mode} | {_f(m['recall@1'])} "
                         f"| {_f(m['recall@5'])} | {_f(m['mrr'])} "
                         f"| {m['illegal']} ({m['illegal_considered']}) | {m['errors']} "
                         f"| {_f(m['p50_ms'], 1)} | {_f(m['p95_ms'], 1)} "
                         f"| {_f(m['memories_p50_ms'], 1)} / {_f(m['memories_p95_ms'], 1)} |")
    return lines


def halves(out: Result) -> list[str]:
    """Recall@5 of each mode on each half of the set (bench.retrieval.queries.half)."""
    runs = _runs(out)
    head = " | ".join(f"{backend} {_n(run['corpus_items'])}" for backend, run in runs)
    lines = [f"| mode | half | {head} |", "|---|---|" + "---:|" * len(runs)]
    for mode in ("exact", "keyword", "semantic", "hybrid"):
        for h in ("tuning", "held-out"):
            cells = [_f(run["modes"][mode]["by_half"][h]["recall@5"])
                     if mode in run["modes"] else "-" for _, run in runs]
            lines.append(f"| {mode} | {h} | " + " | ".join(cells) + " |")
    return lines


def categories(out: Result, mode: str = "hybrid") -> list[str]:
    runs = _runs(out)
    head = " | ".join(f"{backend} {_n(run['corpus_items'])}" for backend, run in runs)
    lines = [f"| category | queries | {head} |", "|---|---:|" + "---:|" * len(runs)]
    cats = sorted({c for _, run in runs for c in run["modes"][mode]["by_category"]})
    for c in cats:
        cells = []
        n = 0
        for _, run in runs:
            m = run["modes"][mode]["by_category"].get(c)
            n = m["queries"] if m else n
            cells.append("-" if m is None else f"{_f(m['recall@5'], 2)} / {_f(m['mrr'], 2)}"
                         if m["scored"] else f"illegal {m['illegal']}")
        lines.append(f"| {c} | {n} | " + " | ".join(cells) + " |")
    return lines


def naive(out: Result) -> list[str]:
    lines = ["| items | mode | legal set first: recall@5 | naive: recall@5 | answers lost "
             "| illegal in naive's unfiltered top 10 |", "|---:|---|---:|---:|---:|---:|"]
    for _, run in _runs(out):
        for mode, m in run.get("naive", {}).items():
            ours = run["modes"][mode]["recall@5"]
            lines.append(f"| {_n(run['corpus_items'])} | {mode} | {_f(ours)} "
                         f"| {_f(m['recall@5'])} | {m['answers_lost']} "
                         f"| {m['illegal_in_unfiltered_top']} |")
    return lines


def raw(out: Result) -> list[str]:
    lines = ["| items | query | recall@5 | answers lost vs hybrid | illegal | p50 ms | p95 ms |",
             "|---:|---|---:|---:|---:|---:|---:|"]
    for _, run in _runs(out):
        for name, m in run.get("raw", {}).get("queries", {}).items():
            lines.append(f"| {_n(run['corpus_items'])} | {name} | {_f(m['recall@5'])} "
                         f"| {m['answers_lost_vs_hybrid']} | {m['illegal']} "
                         f"| {_f(m['p50_ms'], 1)} | {_f(m['p95_ms'], 1)} |")
    return lines


def loading(out: Result) -> list[str]:
    lines = ["| items | backend | load | facts | transactions | s | facts/s | index entries "
             "| index s | of which model s |", "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for backend, run in _runs(out):
        for what, m in run["load"].items():
            ix = run["index"].get(what, {})
            lines.append(f"| {_n(run['corpus_items'])} | {backend} | {what} | {_n(m['facts'])} "
                         f"| {_n(m['transactions'])} | {_f(m['seconds'], 1)} "
                         f"| {_n(m['facts_per_s'])} | {_n(ix.get('entries'))} "
                         f"| {_f(ix.get('seconds'), 1)} | {_f(ix.get('model_seconds'), 1)} |")
    return lines


def targets(out: Result) -> list[Result]:
    found = []
    runs = _runs(out)
    for backend, run in runs:
        failed = sum(m["errors"] for m in run["modes"].values())
        found.append({"target": f"every search answers ({backend}, "
                                f"{_n(run['corpus_items'])} items)",
                      "value": f"{failed} failed", "met": failed == 0})
        r5 = run["modes"]["hybrid"]["recall@5"]
        found.append({"target": f"hybrid recall@5 >= {RECALL_TARGET} ({backend}, "
                                f"{_n(run['corpus_items'])} items)",
                      "value": r5, "met": r5 is not None and r5 >= RECALL_TARGET})
    illegal = sum(m["illegal"] for _, run in runs for m in run["modes"].values())
    found.append({"target": "0 illegal items returned (every mode, backend, size)",
                  "value": illegal, "met": illegal == 0})
    biggest = max((run["corpus_items"] for b, run in runs if b == "neo4j"), default=None)
    for backend, run in runs:
        if backend == "neo4j" and run["corpus_items"] == biggest:
            for what, key in (("all queries", "p95_ms"), ("memory queries", "memories_p95_ms")):
                p95 = run["modes"]["hybrid"][key]
                found.append({"target": f"Neo4j hybrid p95 <= {P95_TARGET_MS:.0f} ms "
                                        f"({_n(biggest)} items, {what})", "value": p95,
                              "met": p95 <= P95_TARGET_MS})
    return found


def abstaining(out: Result) -> list[str]:
    """The "nothing relevant" verdict per backend, mode and half (bench.retrieval.abstention)."""
    lines = ["| items | backend | mode | half | verdict precision | abstention recall | "
             "answerable refused | answerable recall@5 (without verdict) |",
             "|---:|---|---|---|---:|---:|---:|---:|"]
    for backend, run in _runs(out):
        for mode, m in run["modes"].items():
            a = m.get("abstention")
            if a is None:
                continue
            for h, f in (("all", a), *a["by_half"].items()):
                lines.append(
                    f"| {_n(run['corpus_items'])} | {backend} | {mode} | {h} | "
                    f"{_f(f['verdict_precision'])} | {_f(f['abstention_recall'])} | "
                    f"{f['answerable_refused']}/{f['answerable']} | "
                    f"{_f(f['answerable_recall@5'])} "
                    f"({_f(f['answerable_recall@5_without_verdict'])}) |")
    return lines


def tables(out: Result) -> str:
    verdict = ["| target | measured | met |", "|---|---:|---|"]
    for t in out.get("targets", []):
        value = t["value"]
        shown = _f(value) if isinstance(value, float) else str(value)
        verdict.append(f"| {t['target']} | {shown} | {'yes' if t['met'] else '**no**'} |")
    return "\n".join([
        "Ablation ladder (recall over queries with an expected answer; illegal: items in the "
        "results (in all fused candidates); latency end to end per search)", "",
        *ladder(out), "", "Hybrid, by category (recall@5 / MRR)", "", *categories(out), "",
        "Recall@5 by half of the set (fusion constants chosen on the tuning half)", "",
        *halves(out), "",
        "Nothing relevant (the query set and the unanswerable questions; floors chosen on the "
        "tuning half)", "", *abstaining(out), "",
        "Legal set first vs naive (the same scores over the whole tenant, top 10, filtered "
        "after; embedded)", "", *naive(out), "",
        "Raw Neo4j (hand-written Cypher on the same server)", "", *raw(out), "",
        "Loading (write path) and indexing", "", *loading(out), "", "Targets", "", *verdict,
    ])
