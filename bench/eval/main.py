"""``python -m bench.eval [--neo4j-uri URI] [--family F]... [--out FILE]``: the ladder of
``vintage eval`` on the embedded store and on Neo4j, in one run, as users run it.

Each backend is evaluated by the installed command itself (``vintage eval --json``, a process
of its own), so what is measured is what a user runs: the bundled scenarios, every rung and the
naive RAG peer (and, on Neo4j with the graphiti extra installed, Graphiti's two rungs).
Without ``--neo4j-uri`` a Neo4j of its own is started through the launcher in
``$VINTAGE_NEO4J_HOME`` (default ``/tmp/vintage-bench-neo4j``) and stopped at the end. It prints
one Markdown table per backend and writes the JSON (machine, commit, date, both summaries).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.report import machine, provenance

REPO = Path(__file__).resolve().parents[2]
BENCH_NEO4J_HOME = "/tmp/vintage-bench-neo4j"
LAYERS = ("write", "retrieval", "context", "task")


def _vintage() -> str:
    found = shutil.which("vintage", path=str(Path(sys.executable).parent))
    if found is None:
        raise SystemExit("the vintage command is not installed beside this Python")
    return found


def run_eval(store: str, families: list[str], env: dict[str, str],
             rungs: tuple[str, ...] = ()) -> tuple[dict[str, Any], float]:
    command = [_vintage(), "eval", "--store", store, "--json"]
    for f in families:
        command += ["--family", f]
    for r in rungs:
        command += ["--rung", r]
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"vintage eval on {store} failed: {done.stderr.strip()[-400:]}")
    return json.loads(done.stdout), seconds


def _with_graphiti() -> tuple[str, ...]:
    """Every rung and, where graphiti-core is installed (the graphiti extra), Graphiti's two
    beside them: they run on Neo4j only and are never among the command's defaults."""
    from vintage.queries.eval.graphiti import PEERS
    from vintage.queries.eval.rungs import RUNGS

    try:
        import graphiti_core  # noqa: F401
    except ImportError:
        return ()
    return (*RUNGS, "naive-rag", *PEERS)


def table(summary: dict[str, Any]) -> str:
    lines = ["| rung | write | retrieval | context | task | answers | memory errors "
             "(+ over below) | refusals right | p50 / p95 ms | tokens | not expressible |",
             "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
    for r in summary["rungs"]:
        cells = ["n/a" if r["layers"][k] is None else
                 f"{r['layers'][k]['score']:.2f} ({r['layers'][k]['passed']}/"
                 f"{r['layers'][k]['total']})" for k in LAYERS]
        answers = ", ".join(f"{k} {v}" for k, v in r["outcomes"].items())
        lines.append(f"| {r['rung']} | {' | '.join(cells)} | {answers} | "
                     f"{r['memory_caused_errors']} (+{r['errors_added_over_below']}) | "
                     f"{r['refusals_right']} | {r['latency_ms']['p50']:.1f} / "
                     f"{r['latency_ms']['p95']:.1f} | {r['tokens_mean']:.0f} | "
                     f"{len(r.get('not_expressible', []))} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.eval")
    parser.add_argument("--neo4j-uri", help="an existing server (NEO4J_USER/NEO4J_PASSWORD)")
    parser.add_argument("--family", action="append", default=[])
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "eval.json")
    args = parser.parse_args(argv)
    env = dict(os.environ)
    result: dict[str, Any] = {"machine": machine(), **provenance(), "runs": {}}
    started = False
    uri = args.neo4j_uri
    if uri is None:
        from vintage.graph.neo4j import launcher

        os.environ.setdefault("VINTAGE_NEO4J_HOME", BENCH_NEO4J_HOME)
        info = launcher.start()
        uri, started = info.uri, True
        auth = launcher.auth()
        if auth is not None:
            env["NEO4J_USER"], env["NEO4J_PASSWORD"] = auth
    try:
        with tempfile.TemporaryDirectory(prefix="vintage-bench-eval-") as scratch:
            env["VINTAGE_KEYS"] = str(Path(scratch) / "neo4j.keys")
            for backend, store in (("embedded", str(Path(scratch) / "store")),
                                   ("neo4j", uri)):
                run_env = dict(env)
                if backend == "embedded":
                    run_env.pop("VINTAGE_KEYS")
                summary, seconds = run_eval(store, args.family, run_env,
                                            _with_graphiti() if backend == "neo4j" else ())
                result["runs"][backend] = {"summary": summary, "seconds": round(seconds, 1)}
                print(f"\n### {backend} ({summary['scenarios']} scenarios, {summary['asks']} "
                      f"asks, embedder {summary.get('embedder') or '?'}, {seconds:.0f} s)"
                      f"\n\n{table(summary)}")
    finally:
        if started:
            from vintage.graph.neo4j import launcher

            launcher.stop()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n",
                        encoding="utf-8")
    print(f"\nwritten: {args.out}")
    return 0
