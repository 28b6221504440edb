"""The Neo4j plugin's worth to search: memory and SEC searches on (b) a stock Neo4j 5.26 with
Vintage's plugin jar loaded from its plugins/ directory against (c) the same Neo4j without the
jar, where the Python side's handshake falls back to Cypher (issue 37).

    python -m bench.plugin [--size 100000] [--legs b,c,b,c] [--modes keyword,hybrid]
                           [--sec asked] [--vector-cache FILE] [--keep-server] [--out FILE]
    python -m bench.plugin --quick           # smoke run: a small corpus, a few queries

The retrieval bench's corpus (``--size`` memory versions and the bundled SEC filings), its
loader and query set are written ONCE into one database home (``$VINTAGE_NEO4J_HOME``, default
``/tmp/vintage-bench-plugin``), then the same home is restarted as each leg asks, alternately
with and without the jar (``bench.plugin.legs``), and every query is asked in every mode in
each leg. (a), the development launcher, is (b): it registers nothing of its own and loads the
same jar from its plugins/ directory. Exits 1 when an item was illegal, a search failed, the
store disagreed with the generator, or b and c answered differently.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bench import report
from bench.plugin import legs as plugin_legs
from bench.plugin.report import pooled, tables
from bench.retrieval import sec as retrieval_sec
from bench.retrieval.corpus import TENANTS, generate
from bench.retrieval.load import Cached, index, load_filings, load_memories
from bench.retrieval.main import QUICK_SEC, generator_check, quick_corpus, quick_queries
from bench.retrieval.queries import load
from bench.retrieval.run import MODES, Answer
from bench.retrieval.unanswerable import FILE as UNANSWERABLE
from vintage.graph.neo4j import launcher
from vintage.graph.neo4j.build import PAGECACHE_ENV
from vintage.graph.retrieval.embedder import MiniLM
from vintage.queries.search.fusion import Mode

BENCH_NEO4J_HOME = "/tmp/vintage-bench-plugin"
Result = dict[str, Any]
say = plugin_legs.say


def _legs(text: str) -> list[str]:
    legs = [x.strip() for x in text.split(",") if x.strip()]
    if set(legs) != {"b", "c"}:
        raise argparse.ArgumentTypeError("--legs names b and c, e.g. b,c,b,c")
    return legs


def _modes(text: str) -> list[Mode]:
    try:
        return [Mode(x.strip()) for x in text.split(",") if x.strip()] or list(MODES)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--modes names some of {', '.join(m.value for m in MODES)}") from None


def _load(keys: Path, tenants: dict[str, str], corpus: Any, sec: tuple[Any, Any],
          queries: list[Any], truth: Any, embedder: Cached) -> Result:
    """The corpus written and indexed once, on the server with the plugin (as users load)."""
    store, searcher, driver = plugin_legs.connect("b", keys)
    try:
        say(f"loading {corpus.size:,} memory versions and the SEC filings")
        out: Result = {"memories": load_memories(store, corpus, tenants).summary(),
                       "filings": load_filings(store, tenants["sec"], *sec).summary()}
        say("indexing")
        out["index"] = index(store, list(tenants.values()), embedder)
        out["generator_mismatches"] = generator_check(store, tenants, queries, truth)
        return out
    finally:
        for closing in (driver, searcher, store):
            closing.close()


def _purge(keys: Path, tenants: dict[str, str]) -> None:
    store, searcher, driver = plugin_legs.connect("b", keys)
    try:
        for name in tenants.values():
            store.purge_tenant(name)
    finally:
        for closing in (driver, searcher, store):
            closing.close()


def _run_legs(args: argparse.Namespace, keys: Path, tenants: dict[str, str], queries: list[Any],
              truth: Any, embedder: Cached, result: Result, answers: list[list[Answer]]) -> None:
    """Each leg in turn; the last of each kind also profiles the first c leg's slowest."""
    for n, kind in enumerate(args.legs):
        last = kind not in args.legs[n + 1:]
        firsts = [a for leg, a in zip(args.legs, answers, strict=False) if leg == "c"]
        profile_of = plugin_legs.slowest(queries, firsts[0]) \
            if last and firsts and not args.no_profile else None
        try:
            leg, got = plugin_legs.leg(kind, keys, tenants, queries, truth, embedder,
                                       profile_of, args.modes)
        except plugin_legs.LegError as e:
            result["legs"].append({"kind": kind, "error": str(e)})
            answers.append([])
            continue
        result["legs"].append(leg)
        answers.append(got)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.plugin", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100_000, help="memory versions")
    parser.add_argument("--legs", type=_legs, default="b,c,b,c",
                        help="the order of the legs: b (the jar) and c (none), alternating")
    parser.add_argument("--modes", type=_modes, default=",".join(m.value for m in MODES),
                        help="the search modes each leg asks (default: all four)")
    parser.add_argument("--quick", action="store_true", help="a small corpus, a few queries")
    parser.add_argument("--keep-server", action="store_true")
    parser.add_argument("--sec", choices=("all", "asked"), default="all",
                        help="every bundled filing (47,788 versions), or only the companies and "
                             "concepts the questions ask about (2,713: every SEC question keeps "
                             "its answers; fewer distractors, far less to embed)")
    parser.add_argument("--no-profile", action="store_true",
                        help="skip the profile of the slowest searches in the last legs")
    parser.add_argument("--vector-cache", type=Path, default=None,
                        help="reuse and keep vectors in this .npz (the load's embedding is not "
                             "what this bench measures)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    out_path = args.out or Path("bench/results/plugin-quick.json" if args.quick
                                else f"bench/results/plugin-{args.size}.json")
    result: Result = {**report.provenance(), "machine": report.machine(), "quick": args.quick,
                      "size": 0 if args.quick else args.size, "legs_order": args.legs,
                      "sec": "quick" if args.quick else args.sec,
                      "modes": [m.value for m in args.modes],
                      "load_before": plugin_legs.uptime()}
    began = time.perf_counter()
    queries = load() + load(UNANSWERABLE)
    corpus = quick_corpus(7) if args.quick else generate(args.size, 7)
    sec = QUICK_SEC if args.quick else (
        (set(retrieval_sec.NAMES), set(retrieval_sec.CONCEPTS)) if args.sec == "asked"
        else (None, None))
    truth = {**corpus.truth(), **retrieval_sec.truth(*sec)}
    if args.quick:
        queries = quick_queries(queries, corpus, truth)
    embedder = Cached(MiniLM())
    result["vectors_reused_from_cache"] = embedder.reuse(args.vector_cache) \
        if args.vector_cache else 0
    tag = uuid.uuid4().hex[:6]
    tenants = {t: f"bench-plugin-{t}-{tag}" for t in (*TENANTS, "sec")}
    os.environ.setdefault(launcher.HOME_ENV, BENCH_NEO4J_HOME)
    plugins_before = os.environ.get(launcher.PLUGINS_ENV)
    result["server"] = {"home": str(launcher.state_dir()),
                        "heap": os.environ.get(launcher.HEAP_ENV, "768m (default)"),
                        "pagecache": os.environ.get(PAGECACHE_ENV, "64m (default)")}
    answers: list[list[Answer]] = []
    result["legs"] = []
    with tempfile.TemporaryDirectory(prefix="vintage-bench-keys-") as keys_dir:
        keys = Path(keys_dir) / "k"
        try:
            result["load"] = _load(keys, tenants, corpus, sec, queries, truth, embedder)
            _run_legs(args, keys, tenants, queries, truth, embedder, result, answers)
        finally:
            if args.vector_cache:
                embedder.keep(args.vector_cache)
            try:
                _purge(keys, tenants)
            finally:
                if not args.keep_server:
                    launcher.stop()
                if plugins_before is None:
                    os.environ.pop(launcher.PLUGINS_ENV, None)
                else:
                    os.environ[launcher.PLUGINS_ENV] = plugins_before
    return _finish(result, queries, args.legs, answers, out_path, began)


def _finish(result: Result, queries: list[Any], kinds: list[str],
            answers: list[list[Answer]], out_path: Path, began: float) -> int:
    """The comparison of the legs, the checks, the JSON and the tables; 1 when one failed."""
    by_kind = {k: [a for leg, a in zip(kinds, answers, strict=True) if leg == k and a]
               for k in ("b", "c")}
    # The i-th b leg against the i-th c leg; and the first two b legs, the run's own noise.
    result["differences"] = {f"b{i + 1} vs c{i + 1}": plugin_legs.differences(b, c)
                             for i, (b, c) in enumerate(zip(by_kind["b"], by_kind["c"],
                                                            strict=False))}
    if len(by_kind["b"]) > 1:
        result["differences"]["b1 vs b2"] = plugin_legs.differences(*by_kind["b"][:2])
    result["pooled"] = pooled(queries, kinds, answers)
    legs = [leg for leg in result["legs"] if "modes" in leg]
    result["checks"] = {
        "illegal": sum(m["illegal"] + m["illegal_considered"] for leg in legs
                       for m in leg["modes"].values()),
        "failed_searches": sum(m["errors"] for leg in legs for m in leg["modes"].values()),
        "failed_legs": sum("error" in leg for leg in result["legs"]),
        "generator_mismatches": len(result["load"]["generator_mismatches"]),
        "wrong_decisions": result["load"]["memories"]["wrong_decisions"],
        "b_c_differences": sum(len(v) for k, v in result["differences"].items() if "c" in k),
        "kinds_not_answered": [k for k, got in by_kind.items() if not got]}
    result["wall_seconds"] = time.perf_counter() - began
    result["load_after"] = plugin_legs.uptime()
    return report.finish(result, out_path, tables(result))


if __name__ == "__main__":
    raise SystemExit(main())
