"""``python -m bench.graphiti [--sizes 10000,100000] [--neo4j-uri URI] [--quick] [--out FILE]``:
Vintage and Graphiti side by side on one Neo4j (issue 41).

Per size, in one run on one server: the retrieval benchmark's memory corpus and the bundled SEC
filings with their restatements (``bench.retrieval``) are written into Vintage through its own
write paths and into Graphiti with graphiti-core (``bench.graphiti.graph`` says how), both
embedded by the same model; the same query set is asked of Vintage's keyword and hybrid
searches and of Graphiti's BM25 and hybrid ``search_()``, top 10, each at its best. Scored by
one rule (``bench.graphiti.run.side_by_side``): answers right, stale, not-yet-public and
cross-scope items returned, legal results lost, p50/p95 latency; then each system's load time
and store growth (the database's files after a checkpoint). Without ``--neo4j-uri`` a Neo4j of
its own is started in ``$VINTAGE_NEO4J_HOME`` (default ``/tmp/vintage-bench-graphiti``).
Exits 1 when Vintage returned an illegal item.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bench import report
from bench.graphiti import graph
from bench.graphiti.run import Graphiti, interleaved, side_by_side, with_room
from bench.retrieval import sec as retrieval_sec
from bench.retrieval.corpus import TENANTS, generate
from bench.retrieval.load import Cached, index, load_filings, load_memories
from bench.retrieval.main import QUICK_SEC, _start_server, neo4j_stores, quick_corpus, quick_queries
from bench.retrieval.queries import load
from bench.retrieval.unanswerable import FILE as UNANSWERABLE
from bench.scale.measure import data_directory, disk
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.retrieval.embedder import embedder_from_env

BENCH_NEO4J_HOME = "/tmp/vintage-bench-graphiti"
TARGET_SPEEDUP = 5.0  # Vintage's hybrid p95 at least 5x faster than Graphiti's, at 100k
Result = dict[str, Any]


def say(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _store_mib(store: Neo4jStore) -> float | None:
    """The database's files and transaction logs on disk (Community has no checkpoint
    procedure: what the page cache has not flushed yet counts in the logs)."""
    found = disk(data_directory(store), store.database or "neo4j")
    return found.get("total_mib")


def _clear(store: Neo4jStore, groups: list[str]) -> None:
    """Graphiti's nodes of this run, by its own label and the run's groups only."""
    with store.driver.session(database=store.database) as session:
        while session.run("MATCH (n:Entity) WHERE n.group_id IN $g WITH n LIMIT 5000 "
                          "DETACH DELETE n RETURN count(*) AS n", g=groups).single(
                              strict=True)["n"]:
            pass


def run_size(size: int, args: argparse.Namespace, store: Neo4jStore, searcher: Neo4jStore,
             uri: str, auth: tuple[str, str] | None, embedder: Cached) -> Result:
    corpus = quick_corpus(7) if args.quick else generate(size, 7)
    sec = QUICK_SEC if args.quick else (
        (set(retrieval_sec.NAMES), set(retrieval_sec.CONCEPTS)) if args.sec == "asked"
        else (None, None))
    filings = [a for p in retrieval_sec.ticker_files(sec[0])
               for a in retrieval_sec.assertions(p, sec[1])]
    truth = {**corpus.truth(), **retrieval_sec.truth(*sec)}
    queries = load() + load(UNANSWERABLE)
    if args.quick:
        queries = quick_queries(queries, corpus, truth)
    tag = f"{size}-{uuid.uuid4().hex[:6]}"
    names = {t: f"bench-gr-{t}-{tag}" for t in (*TENANTS, "sec")}
    out: Result = {"corpus_items": corpus.size, "filing_versions": sum(
        len(f.versions) for f in filings), "queries": len(queries)}
    before = _store_mib(store)
    say(f"vintage: writing {corpus.size:,} memory versions and the filings")
    began = time.perf_counter()
    loaded = {"memories": load_memories(store, corpus, names).summary(),
              "filings": load_filings(store, names["sec"], *sec).summary()}
    model_before = embedder.seconds
    loaded["index"] = index(store, list(names.values()), embedder)
    vintage_s = time.perf_counter() - began
    vintage_model = embedder.seconds - model_before
    after_vintage = _store_mib(store)
    # Graphiti: the same versions, logical tenants renamed as Vintage's were.
    edges, groups = graph.edges(corpus, filings)
    say(f"graphiti: writing {len(edges):,} edges")
    g = Graphiti(uri, auth, embedder)
    try:
        wrote = g.write(edges, say)
        after_graphiti = _store_mib(store)
        say(f"both: {len(queries)} questions, each asked of the four searches in turn")
        answers = interleaved(g, searcher, embedder, queries, names, groups, store.now, say)
        say("graphiti: each answered question asked again with room (untimed)")
        answers = with_room(g, answers, queries, groups, store.now)
    finally:
        g.close()
        _clear(store, sorted(groups))
        for t in names.values():
            store.purge_tenant(t)
    scored = side_by_side(queries, answers, truth)
    out["systems"] = {
        "vintage": {"keyword": scored["keyword"], "hybrid": scored["hybrid"],
                    "load_seconds": vintage_s, "load_model_seconds": vintage_model,
                    "load": loaded,
                    "store_mib": None if before is None or after_vintage is None
                    else after_vintage - before},
        "graphiti": {"bm25": scored["graphiti-bm25"], "hybrid": scored["graphiti-hybrid"],
                     "load_seconds": wrote["seconds"],
                     "load_model_seconds": wrote["model_seconds"], "load": wrote,
                     "store_mib": None if after_vintage is None or after_graphiti is None
                     else after_graphiti - after_vintage}}
    v, gr = out["systems"]["vintage"]["hybrid"], out["systems"]["graphiti"]["hybrid"]
    out["hybrid_p95_speedup"] = gr["p95_ms"] / v["p95_ms"] if v["p95_ms"] else None
    return out


def table(result: Result) -> str:
    lines = ["| size | system, mode | recall@1 | recall@5 | legal lost (of expected) "
             "| of which in its own legal top 10 | stale "
             "| not yet public | cross-scope | other illegal | p50 / p95 ms | memories p95 "
             "| filings p95 | load s (model s) | store MiB |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for size, r in result["sizes"].items():
        for system, modes in (("vintage", ("keyword", "hybrid")),
                              ("graphiti", ("bm25", "hybrid"))):
            s = r["systems"][system]
            for mode in modes:
                m = s[mode]
                bad = m["illegal"]
                store_mib = "-" if s["store_mib"] is None else f"{s['store_mib']:.0f}"
                lines.append(
                    f"| {int(size):,} | {system} {mode} | {m['recall@1']:.3f} | "
                    f"{m['recall@5']:.3f} | {m['legal_lost']} ({m['expected']}) | "
                    f"{m.get('lost_within_own_top', '-')} | "
                    f"{bad['stale']} | {bad['not_yet_public']} | {bad['cross_scope']} | "
                    f"{bad['other'] + bad['unknown']} | {m['p50_ms']:.1f} / {m['p95_ms']:.1f} | "
                    f"{m['memories_p95_ms']:.1f} | {m['filings_p95_ms']:.1f} | "
                    f"{s['load_seconds']:.0f} ({s['load_model_seconds']:.0f}) | {store_mib} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.graphiti", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--quick", action="store_true", help="a small corpus, a few queries")
    parser.add_argument("--neo4j-uri", default=None)
    parser.add_argument("--keep-server", action="store_true")
    parser.add_argument("--cypher-ranking", action="store_true")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--sec", choices=("all", "asked"), default="all",
                        help="every bundled filing (47,788 versions), or only the companies and "
                             "concepts the questions ask about (2,713: every SEC question keeps "
                             "its answers; fewer distractors)")
    parser.add_argument("--embedder", choices=("minilm", "minilm+bge"), default="minilm",
                        help="the model both systems embed with (minilm+bge: the bge extra)")
    parser.add_argument("--vector-cache", type=Path, default=None,
                        help="reuse and keep vectors in this .npz, as bench.retrieval's "
                             "(development only: the load times of such a run do not include "
                             "the model for the texts it found there)")
    args = parser.parse_args(argv)
    sizes = [0] if args.quick else [int(s) for s in args.sizes.split(",")]
    out_path = args.out or Path("bench/results/graphiti-quick.json" if args.quick
                                else "bench/results/graphiti.json")
    if args.neo4j_uri is None:
        os.environ.setdefault("VINTAGE_NEO4J_HOME", BENCH_NEO4J_HOME)
    load_before = os.getloadavg()
    result: Result = {**report.provenance(), "machine": report.machine(), "quick": args.quick,
                      "sec": args.sec, "sizes": {}}
    embedder = Cached(embedder_from_env({"VINTAGE_EMBEDDER": args.embedder}))
    result["vectors_reused_from_cache"] = embedder.reuse(args.vector_cache) \
        if args.vector_cache else 0
    uri, auth, server = _start_server(args)
    result["server"] = server
    keys = tempfile.TemporaryDirectory(prefix="vintage-bench-keys-")
    store, searcher, driver = neo4j_stores(uri, auth, Path(keys.name) / "k", args.cypher_ranking)
    try:
        for size in sizes:
            result["sizes"][str(size)] = run_size(size, args, store, searcher, uri, auth,
                                                  embedder)
    finally:
        if args.vector_cache:
            embedder.keep(args.vector_cache)
        driver.close()
        searcher.close()
        store.close()
        keys.cleanup()
        if server["started_by_bench"] and not args.keep_server:
            from vintage.graph.neo4j import launcher

            launcher.stop()
    result["loadavg_before_after"] = [load_before, os.getloadavg()]
    vintage_illegal = sum(sum(r["systems"]["vintage"][m]["illegal"].values())
                          for r in result["sizes"].values() for m in ("keyword", "hybrid"))
    result["checks"] = {"vintage_illegal": vintage_illegal}
    speedups = "\n\n".join(
        f"{int(size):,}: Graphiti hybrid p95 / Vintage hybrid p95 = "
        f"{r['hybrid_p95_speedup']:.2f}x (target at 100k: >= {TARGET_SPEEDUP:.0f}x)"
        for size, r in result["sizes"].items())
    return report.finish(result, out_path, table(result), after=speedups)
