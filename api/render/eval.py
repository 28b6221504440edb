"""``vintage eval``'s text: the ladder as one table, then the failures by rung and layer."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.console import Console

from vintage.queries.eval.health import Health
from vintage.render.terminal import safe, table

LAYERS = ("write", "retrieval", "context", "task")
SHOWN_FAILURES = 12  # per rung; --json has them all


def _score(layer: dict[str, Any] | None) -> str:
    if layer is None:
        return "n/a"
    return f"{layer['score']:.2f} ({layer['passed']}/{layer['total']})"


def ladder(out: Console, summary: dict[str, Any]) -> None:
    families = ", ".join(f"{k} {v}" for k, v in summary["families"].items())
    out.print(f"{summary['scenarios']} scenarios, {summary['asks']} asks on the "
              f"{summary['backend']} store (run {summary['run']}): {safe(families)}")
    grid = table("The ladder: layer scores (passed/checks)", "rung", *LAYERS, "answers",
                 "memory errors", "p50/p95 ms", "tokens")
    for row in summary["rungs"]:
        outcomes = row["outcomes"]
        answers = " ".join(f"{k} {v}" for k, v in outcomes.items())
        grid.add_row(safe(row["rung"]), *(_score(row["layers"][k]) for k in LAYERS),
                     safe(answers), f"{row['memory_caused_errors']} "
                     f"(+{row['errors_added_over_below']})",
                     f"{row['latency_ms']['p50']:.1f}/{row['latency_ms']['p95']:.1f}",
                     f"{row['tokens_mean']:.0f}")
    out.print(grid)
    out.print("memory errors: wrong where no memory was right or refused "
              "(+ those added over the rung below)")
    for row in summary["rungs"]:
        failures = row["failures"]
        if not failures:
            continue
        kinds = Counter((f["layer"], f["check"]) for f in failures)
        out.print(f"\n[bold]{safe(row['rung'])}[/bold]: {len(failures)} failed checks: "
                  + "; ".join(f"{safe(layer)} {safe(check)} x{n}"
                              for (layer, check), n in kinds.most_common()))
        for f in failures[:SHOWN_FAILURES]:
            ask = f" / {f['ask']}" if f["ask"] else ""
            out.print(f"  {safe(f['layer'])}: {safe(f['check'])}: {safe(f['scenario'] + ask)}"
                      f" ({safe(f['detail'])})")
        if len(failures) > SHOWN_FAILURES:
            out.print(f"  ... {len(failures) - SHOWN_FAILURES} more (--json lists them all)")


def health(out: Console, h: Health) -> None:
    out.print(f"[bold]health[/bold] of {safe(', '.join(h.scope))}: {h.memories} memories, "
              f"{h.injections} contexts recorded in the last {h.days} days")
    out.print(f"cold (never injected or used in {h.days} days): {len(h.cold)}")
    for c in h.cold[:SHOWN_FAILURES]:
        out.print(f"  {safe(c['id'])}  {safe(c['subject'])} {safe(c['key'])}")
    share = "n/a" if h.header_share is None else f"{h.header_share:.0%}"
    out.print(f"context tokens by kind: {safe(_pairs(h.tokens_by_kind))}; header share of the "
              f"budget: {share}")
    out.print(f"context tokens by source: {safe(_pairs(h.tokens_by_source))}")
    out.print(f"conflicts open {h.days} days or more: {len(h.conflicts)}")
    for c in h.conflicts:
        out.print(f"  {safe(c['subject'])} {safe(c['key'])}: {c['sides']} sides, "
                  f"{c['open_days']} days")
    out.print(f"candidates awaiting review: {len(h.candidates)}")
    for c in h.candidates[:SHOWN_FAILURES]:
        out.print(f"  {safe(c['id'])}  {safe(c['subject'])} {safe(c['key'])}")
    if h.drill is not None:
        d = h.drill
        verdict = "caught" if d.caught else "NOT caught"
        out.print(f"drill: a known-bad memory was {verdict} ({safe(d.decision)}: "
                  f"{safe(d.reason)}); blast radius {d.blast_radius} contexts; "
                  f"{'erased' if d.erased else 'nothing stored'}")


def _pairs(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items()) or "none"
