"""``vintage eval``'s text: the ladder as one table, then the failures by rung and layer."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.console import Console

from vintage.queries.eval.health import Health
from vintage.render.terminal import safe

LAYERS = ("write", "retrieval", "context", "task")
SHOWN_FAILURES = 12  # per rung; --json has them all


def _score(layer: dict[str, Any] | None) -> str:
    return "n/a" if layer is None else f"{layer['score']:.2f}"


def ladder(out: Console, summary: dict[str, Any]) -> None:
    families = ", ".join(f"{k} {v}" for k, v in summary["families"].items())
    out.print(f"{summary['scenarios']} scenarios, {summary['asks']} asks on the "
              f"{summary['backend']} store (run {summary['run']}, embedder "
              f"{safe(summary.get('embedder') or '?')}): {safe(families)}")
    # Two narrow tables (each fits 80 columns); --json has every count behind each score.
    rows = summary["rungs"]
    width = max(9, *(len(r["rung"]) for r in rows))
    out.print("\n[bold]layers[/bold] (share of checks passed)")
    out.print(f"{'rung':<{width}}" + "".join(f"{k:>11}" for k in LAYERS), highlight=False)
    for row in rows:
        out.print(f"{safe(row['rung']):<{width}}"
                  + "".join(f"{_score(row['layers'][k]):>11}" for k in LAYERS), highlight=False)
    heads = ("right", "wrong", "refused", "ok-ref", "mem-err", "p95 ms", "tokens")
    out.print("\n[bold]answers[/bold] and cost")
    out.print(f"{'rung':<{width}}" + "".join(f"{h:>9}" for h in heads), highlight=False)
    for row in rows:
        o = row["outcomes"]
        cells = (o.get("right", 0), o.get("wrong", 0) + o.get("should-have-refused", 0),
                 o.get("refused", 0), o.get("refused-right", 0),
                 f"{row['memory_caused_errors']}+{row['errors_added_over_below']}",
                 f"{row['latency_ms']['p95']:.0f}", f"{row['tokens_mean']:.0f}")
        out.print(f"{safe(row['rung']):<{width}}" + "".join(f"{c!s:>9}" for c in cells),
                  highlight=False)
    out.print("wrong: wrong or should have refused; ok-ref: refused rightly; mem-err: wrong "
              "where no memory was right or refused, + those added over the rung below")
    for row in summary["rungs"]:
        # Checks a peer has no way to express: neither passed nor failed (docs/eval.md).
        inexpressible = Counter((n["check"], n["why"]) for n in row.get("not_expressible", []))
        if inexpressible:
            out.print(f"\n[bold]{safe(row['rung'])}[/bold]: {sum(inexpressible.values())} "
                      "checks not expressible (not scored): "
                      + "; ".join(f"{safe(check)} x{n} ({safe(why)})"
                                  for (check, why), n in inexpressible.most_common()))
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
