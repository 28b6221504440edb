"""``vintage eval``'s text: the ladder as one table, then the failures by rung and layer."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.console import Console

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
