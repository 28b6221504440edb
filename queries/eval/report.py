"""``vintage eval --report``: one self-contained HTML page (no CDN, no network at view time).

The plots are drawn with matplotlib into inline SVG: the layers per rung, the answers per rung
and the cost (latency, tokens); then the failures with their scenario and ask ids. Every text
from a scenario is escaped.
"""

from __future__ import annotations

import html as htmllib
import io
from typing import Any

LAYERS = ("write", "retrieval", "context", "task")


def _svg(figure: Any) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    text = buffer.getvalue()
    return text[text.index("<svg"):]  # the XML prolog and doctype do not belong inside HTML


def _plots(summary: dict[str, Any]) -> list[str]:
    import matplotlib

    matplotlib.use("svg")  # no display, no GUI toolkit
    from matplotlib import pyplot as plt

    plt.rcParams["svg.fonttype"] = "none"  # text stays text (searchable, any script)
    rungs = [r["rung"] for r in summary["rungs"]]
    drawn = []
    fig, ax = plt.subplots(figsize=(9, 3.6))
    width = 0.8 / len(LAYERS)
    for n, layer in enumerate(LAYERS):
        scores = [(r["layers"][layer] or {}).get("score", 0.0) for r in summary["rungs"]]
        ax.bar([i + n * width for i in range(len(rungs))], scores, width, label=layer)
    ax.set_xticks([i + 1.5 * width for i in range(len(rungs))], rungs)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("share of checks passed")
    ax.set_title("Layer scores per rung (n/a drawn as 0)")
    ax.legend(ncol=4, loc="lower right", fontsize="small")
    drawn.append(_svg(fig))
    plt.close(fig)
    kinds = sorted({k for r in summary["rungs"] for k in r["outcomes"]})
    fig, ax = plt.subplots(figsize=(9, 3.6))
    bottom = [0] * len(rungs)
    for kind in kinds:
        counts = [r["outcomes"].get(kind, 0) for r in summary["rungs"]]
        ax.bar(rungs, counts, bottom=bottom, label=kind)
        bottom = [b + c for b, c in zip(bottom, counts, strict=True)]
    ax.set_ylabel("asks")
    ax.set_title("Answers per rung")
    ax.legend(fontsize="small")
    drawn.append(_svg(fig))
    plt.close(fig)
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.2))
    left.bar(rungs, [r["latency_ms"]["p95"] for r in summary["rungs"]])
    left.set_title("p95 latency per ask (ms)")
    right.bar(rungs, [r["tokens_mean"] for r in summary["rungs"]])
    right.set_title("tokens handed over (mean)")
    for ax in (left, right):
        ax.tick_params(axis="x", labelrotation=45)
    drawn.append(_svg(fig))
    plt.close(fig)
    return drawn


def html(summary: dict[str, Any]) -> str:
    e = htmllib.escape
    rows = []
    for r in summary["rungs"]:
        cells = [e(r["rung"])] + [
            "n/a" if r["layers"][k] is None else
            f"{r['layers'][k]['score']:.2f} ({r['layers'][k]['passed']}/{r['layers'][k]['total']})"
            for k in LAYERS]
        cells += [e(", ".join(f"{k} {v}" for k, v in r["outcomes"].items())),
                  str(r["memory_caused_errors"]), str(r["errors_added_over_below"]),
                  f"{r['latency_ms']['p50']:.1f} / {r['latency_ms']['p95']:.1f}",
                  f"{r['tokens_mean']:.0f}"]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    failures = []
    for r in summary["rungs"]:
        for f in r["failures"]:
            failures.append("<tr>" + "".join(f"<td>{e(str(x or ''))}</td>" for x in (
                r["rung"], f["layer"], f["check"], f["scenario"], f["ask"], f["detail"]))
                + "</tr>")
    inexpressible = []
    for r in summary["rungs"]:
        for n in r.get("not_expressible", []):
            inexpressible.append("<tr>" + "".join(f"<td>{e(str(x or ''))}</td>" for x in (
                r["rung"], n["check"], n["scenario"], n["ask"], n["why"])) + "</tr>")
    head = ("<tr><th>rung</th>" + "".join(f"<th>{k}</th>" for k in LAYERS)
            + "<th>answers</th><th>memory errors</th><th>added over below</th>"
              "<th>p50 / p95 ms</th><th>tokens</th></tr>")
    families = ", ".join(f"{e(k)} {v}" for k, v in summary["families"].items())
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>vintage eval: run {e(summary['run'])}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 1.5rem; max-width: 72rem; }}
table {{ border-collapse: collapse; margin: 1rem 0; font-size: 0.9rem; }}
td, th {{ border: 1px solid #ccc; padding: 0.25rem 0.5rem; text-align: left; }}
svg {{ max-width: 100%; height: auto; }}
</style></head><body>
<h1>vintage eval</h1>
<p>Run {e(summary['run'])} on the {e(summary['backend'])} store, embedder
{e(summary.get('embedder') or '?')}: {summary['scenarios']} scenarios, {summary['asks']} asks.
Families: {families}.</p>
<h2>The ladder</h2>
<table>{head}{''.join(rows)}</table>
{''.join(f'<figure>{svg}</figure>' for svg in _plots(summary))}
<h2>Not expressible</h2>
<p>Checks a peer has no way to express: neither passed nor failed.</p>
<table><tr><th>rung</th><th>check</th><th>scenario</th><th>ask</th><th>why</th></tr>
{''.join(inexpressible)}</table>
<h2>Failures</h2>
<table><tr><th>rung</th><th>layer</th><th>check</th><th>scenario</th><th>ask</th>
<th>detail</th></tr>{''.join(failures)}</table>
</body></html>
"""
