"""Retrieval inside the legal set: the fixed query set over generated memories and the bundled
SEC filings, every mode of the ablation ladder, embedded and Neo4j, at each size, in one run.

    python -m bench.retrieval [--sizes 10000,100000] [--backends embedded,neo4j]
                              [--neo4j-uri URI] [--keep-server] [--out FILE]
                              [--cypher-ranking]
    python -m bench.retrieval --quick        # smoke run: a small corpus, a few queries

Per backend and size: the corpus is written through the product's write paths
(``bench.retrieval.load``), indexed with MiniLM, checked against the generator's predictions,
and searched by ``vintage.queries.search.run.search`` in each mode (``bench.retrieval.run``); then
the naive reference (``bench.retrieval.naive``, embedded) and raw Neo4j (``bench.retrieval.raw``).
A missed latency target is profiled (``bench.retrieval.profile``). Without ``--neo4j-uri`` a
private Neo4j is started in ``$VINTAGE_NEO4J_HOME`` (default ``/tmp/vintage-bench-retrieval``).
Exits 1 when an illegal item was returned or the store disagrees with the generator.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import neo4j

from bench import report
from bench.retrieval import naive as retrieval_naive
from bench.retrieval import profile as retrieval_profile
from bench.retrieval import raw as retrieval_raw
from bench.retrieval import sec as retrieval_sec
from bench.retrieval.corpus import TENANTS, Corpus, Version, generate
from bench.retrieval.load import Cached, index, load_filings, load_memories, stored_mismatches
from bench.retrieval.queries import Query, load
from bench.retrieval.report import GRAPHITI, P95_TARGET_MS, tables, targets
from bench.retrieval.run import Truth, examples, run, score
from bench.retrieval.unanswerable import FILE as UNANSWERABLE
from vintage.graph.embedded.store import EmbeddedStore
from vintage.graph.neo4j.build import PAGECACHE_ENV
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.retrieval.embedder import embedder_from_env
from vintage.graph.sealing.keyfile import FileKeyStore
from vintage.graph.store.protocol import Store

BENCH_NEO4J_HOME = "/tmp/vintage-bench-retrieval"
REPO = Path(__file__).resolve().parents[2]
QUICK_USERS = 6
QUICK_VERSIONS = 20
QUICK_SEC = ({"GOOGL"}, {"us-gaap:OperatingIncomeLoss"})
SEARCH_RETRY_S = 1.0
Result = dict[str, Any]
Auth = tuple[str, str] | None


def say(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def clock() -> datetime:
    return datetime.now(UTC)


def quick_corpus(seed: int) -> Corpus:
    """One tenant's first core users and their projects, no memory over ``QUICK_VERSIONS``
    versions, no background: seconds to write and embed."""
    full = generate(0, seed, core_only=True, background_items=0)
    users = set(full.users["acme"][:QUICK_USERS])
    projects = {full.membership[("acme", u)] for u in users}
    keep = [m for m in full.memories if m.tenant == "acme" and len(m.said) <= QUICK_VERSIONS
            and (dict(m.scope).get("user") in users
                 or dict(m.scope).get("project") in projects)]
    return Corpus(keep, {"acme": sorted(users)}, {"acme": sorted(projects)})


def quick_queries(queries: list[Query], corpus: Corpus, truth: Truth) -> list[Query]:
    """The queries about what the quick corpus holds (and the issue's own SEC example)."""
    users, projects = set(corpus.users["acme"]), set(corpus.projects["acme"])

    def inside(q: Query) -> bool:
        if q.tenant == "sec":
            return "the issue's" in q.note
        return q.tenant == "acme" and (q.scope.get("user") in users or (
            "user" not in q.scope and q.scope.get("project") in projects))

    return [q for q in queries if inside(q) and all((q.tenant, e) in truth for e in q.expected)]


def generator_check(store: Store, tenants: dict[str, str], queries: list[Query],
                    truth: Truth) -> list[str]:
    """The generator's versions of every queried assertion against the store's."""
    keys = {(q.tenant, e.rsplit(".r", 1)[0]) for q in queries for e in q.expected}
    wanted: dict[str, list[Version]] = {}
    for (tenant, fid), v in truth.items():
        if (tenant, fid.rsplit(".r", 1)[0]) in keys:
            wanted.setdefault(tenant, []).append(v)
    return [m for t, vs in wanted.items() for m in stored_mismatches(store, tenants[t], vs)]


def bench_store(store: Store, label: str, corpus: Corpus, sec: tuple[Any, Any] | None,
                tenants: dict[str, str], queries: list[Query], truth: Truth,
                embedder: Cached, searcher: Store | None = None) -> tuple[Result, list[Any]]:
    out: Result = {"corpus_items": corpus.size, "tenants": tenants, "load": {}, "index": {}}
    say(f"{label}: writing {corpus.size:,} memory versions")
    out["load"]["memories"] = load_memories(store, corpus, tenants).summary()
    if sec is not None:
        say(f"{label}: ingesting the SEC companyfacts files")
        out["load"]["filings"] = load_filings(store, tenants["sec"], *sec).summary()
        out["index"]["filings"] = index(store, [tenants["sec"]], embedder)
    say(f"{label}: indexing")
    out["index"]["memories"] = index(store, [tenants[t] for t in corpus.users], embedder)
    out["generator_mismatches"] = generator_check(store, tenants, queries, truth)
    say(f"{label}: {len(queries)} queries x 4 modes")
    answers = run(searcher or store, embedder, queries, tenants, say=say)
    out["modes"] = score(queries, answers, truth)
    out["examples"] = examples(queries, answers, "hybrid")
    return out, answers


def _start_server(args: argparse.Namespace) -> tuple[str, Auth, Result]:
    from vintage.graph.neo4j import launcher

    if args.neo4j_uri is not None:
        auth: Auth = None
        if os.environ.get("NEO4J_PASSWORD"):
            auth = (os.environ.get("NEO4J_USER", "neo4j"), os.environ["NEO4J_PASSWORD"])
        return args.neo4j_uri, auth, {"uri": args.neo4j_uri, "started_by_bench": False}
    # Only for a server of its own: given a URI, the environment is left alone.
    os.environ.setdefault("VINTAGE_NEO4J_HOME", BENCH_NEO4J_HOME)
    home = launcher.state_dir()
    say(f"starting (or reusing) Neo4j in {home}")
    info = launcher.start()
    return info.uri, launcher.auth(), {
        "uri": info.uri, "started_by_bench": not home.is_relative_to(REPO / ".vintage"),
        "home": str(home), "heap": os.environ.get(launcher.HEAP_ENV, "768m (default)"),
        "pagecache": os.environ.get(PAGECACHE_ENV, "64m (default)")}


def neo4j_stores(uri: str, auth: Auth, keys: Path,
            cypher_ranking: bool) -> tuple[Neo4jStore, Neo4jStore, neo4j.Driver]:
    """The store that loads, the one that searches (on the ranking path asked), a driver."""
    store = Neo4jStore.connect(uri, clock, auth=auth, keys=FileKeyStore(keys))
    store.ensure_schema()
    searcher = _searcher(uri, auth, keys)
    # As open_store's store would find them.
    searcher.procedures = store.procedures
    searcher.server_ranker = store.server_ranker and not cypher_ranking
    return store, searcher, neo4j.GraphDatabase.driver(uri, auth=auth)


def _searcher(uri: str, auth: Auth, keys: Path) -> Neo4jStore:
    """The store the searches run through: the same server and keys, but a driver that gives
    up on a transient error after 1 s instead of 30 (``max_transaction_retry_time``): a search
    that exhausts the server's transaction memory fails the same way on every retry, and is
    recorded as failed rather than retried for half a minute."""
    driver = neo4j.GraphDatabase.driver(
        uri, auth=auth, max_transaction_retry_time=SEARCH_RETRY_S,
        notifications_disabled_classifications=[
            neo4j.NotificationDisabledClassification.UNRECOGNIZED])
    return Neo4jStore(driver, clock, uri=uri, keys=FileKeyStore(keys))


def _profile(store: Neo4jStore, embedder: Cached, queries: list[Query], answers: list[Any],
             tenants: dict[str, str]) -> Result:
    ms = {a.query: a.ms for a in answers if a.mode == "hybrid" and a.error is None}
    slow = retrieval_profile.slowest([q for q in queries if q.id in ms], ms, 30)
    # The filings' tenant-wide reads are the slowest; the memory queries are profiled apart.
    mine = retrieval_profile.slowest([q for q in queries if q.id in ms and q.tenant != "sec"],
                                     ms, 30)
    say("neo4j: hybrid p95 over target: profiling the 30 slowest queries, and of memories")
    plans = []
    for q in [*slow[:2], *mine[:2]]:
        try:
            plans.append(retrieval_profile.neo4j_plan(store, embedder, q, tenants))
        except Exception as e:  # the profile explains; it must not end the run
            plans.append({"query": q.id, "error": f"{type(e).__name__}: {str(e)[:200]}"})
    return {"cprofile": retrieval_profile.cprofile(store, embedder, slow, tenants),
            "cprofile_memories": retrieval_profile.cprofile(store, embedder, mine, tenants),
            "plans": plans}


def run_size(args: argparse.Namespace, size: int, queries: list[Query], embedder: Cached,
             neo: Callable[[], tuple[Neo4jStore, Neo4jStore, neo4j.Driver]] | None,
             sec_tenant: list[str]) -> Result:
    corpus = quick_corpus(args.seed) if args.quick else generate(size, args.seed)
    sec = QUICK_SEC if args.quick else (None, None)
    truth: dict[tuple[str, str], Version] = {**corpus.truth(), **retrieval_sec.truth(*sec)}
    if args.quick:
        queries = quick_queries(queries, corpus, truth)
    out: Result = {"queries": len(queries)}
    with (tempfile.TemporaryDirectory(prefix="vintage-bench-retrieval-") as tmp,
          tempfile.TemporaryDirectory(prefix="vintage-bench-keys-") as keys):
        embedded = EmbeddedStore.open(Path(tmp) / "store", clock, FileKeyStore(Path(keys) / "k"))
        if "embedded" in args.backends:
            names = {t: t for t in (*TENANTS, "sec")}
            out["embedded"], answers = bench_store(embedded, "embedded", corpus, sec, names,
                                                   queries, truth, embedder)
            say("embedded: the naive reference (global top 10, filtered after)")
            out["embedded"]["naive"] = retrieval_naive.compare(
                embedded, embedder, queries, names, answers, truth)
        if neo is not None:
            store, searcher, driver = neo()
            tag = f"{size}-{uuid.uuid4().hex[:6]}"
            names = {t: f"bench-ret-{t}-{tag}" for t in TENANTS}
            names["sec"] = sec_tenant[0] if sec_tenant else f"bench-ret-sec-{tag}"
            out["neo4j"], answers = bench_store(store, "neo4j", corpus,
                                                None if sec_tenant else sec, names, queries,
                                                truth, embedder, searcher)
            sec_tenant[:] = [names["sec"]]
            if out["neo4j"]["modes"]["hybrid"]["p95_ms"] > P95_TARGET_MS:
                out["neo4j"]["profile"] = _profile(searcher, embedder, queries, answers, names)
            if "embedded" in args.backends and not args.quick:
                say("neo4j: the raw references")
                retrieval_raw.cleanup(driver)
                loaded = retrieval_raw.load(driver, embedded, truth, {t: t for t in names})
                out["neo4j"]["raw"] = {"load": loaded, "queries": retrieval_raw.compare(
                    driver, embedder, queries, answers, truth)}
                retrieval_raw.cleanup(driver)
            began = time.perf_counter()
            for t in TENANTS:
                store.purge_tenant(names[t])
            out["neo4j"]["purge_seconds"] = time.perf_counter() - began
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.retrieval", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000", help="memory versions per corpus")
    parser.add_argument("--backends", default="embedded,neo4j")
    parser.add_argument("--quick", action="store_true", help="a small corpus, a few queries")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--neo4j-uri", default=None)
    parser.add_argument("--keep-server", action="store_true")
    parser.add_argument("--cypher-ranking", action="store_true",
                        help="rank in Cypher, as on a stock server, not in the launcher's "
                             "columns (vintage.graph.neo4j.ranker)")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--embedder", choices=("minilm", "minilm+bge", "e5"), default="minilm",
                        help="the model that indexes and asks (minilm+bge: the bge extra; e5: "
                             "the multilingual extra; their abstention floors are chosen on "
                             "such a run)")
    parser.add_argument("--vector-cache", type=Path, default=None,
                        help="reuse and keep vectors in this .npz (development only: a run "
                             "that reuses vectors does not measure embedding)")
    args = parser.parse_args(argv)
    args.backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    if not args.backends or set(args.backends) - {"embedded", "neo4j"}:
        parser.error("--backends takes embedded and/or neo4j")
    sizes = [0] if args.quick else [int(s) for s in args.sizes.split(",")]
    if args.seed != 7:
        parser.error("the query file is made from seed 7 (python -m bench.retrieval.queries)")
    out_path = args.out or Path("bench/results/retrieval-quick.json" if args.quick
                                else "bench/results/retrieval.json")
    provenance = report.provenance()
    load_before = os.getloadavg()
    began = time.perf_counter()
    # The query set, then the questions the corpus never answers (the abstention figures).
    queries = load() + load(UNANSWERABLE)
    embedder = Cached(embedder_from_env({"VINTAGE_EMBEDDER": args.embedder}))
    reused = embedder.reuse(args.vector_cache) if args.vector_cache else 0
    result: Result = {**provenance, "machine": report.machine(), "quick": args.quick,
                      "graphiti": GRAPHITI, "embedder": embedder.name, "sizes": {},
                      "vectors_reused_from_cache": reused}
    server: Result | None = None
    stores: list[tuple[Neo4jStore, Neo4jStore, neo4j.Driver]] = []
    sec_tenant: list[str] = []
    keys = tempfile.TemporaryDirectory(prefix="vintage-bench-keys-")
    try:
        if "neo4j" in args.backends:
            uri, auth, server = _start_server(args)
            result["server"] = server
            stores.append(neo4j_stores(uri, auth, Path(keys.name) / "k", args.cypher_ranking))
            server["ranking"] = "server columns" if stores[0][1].server_ranker else "cypher"
        for size in sizes:
            result["sizes"][str(size)] = run_size(
                args, size, queries, embedder, (lambda: stores[0]) if stores else None,
                sec_tenant)
    finally:
        if args.vector_cache:
            embedder.keep(args.vector_cache)
        for store, searcher, driver in stores:
            for t in sec_tenant:
                store.purge_tenant(t)
            driver.close()
            searcher.close()
            store.close()
        keys.cleanup()
        if server and server["started_by_bench"] and not args.keep_server:
            from vintage.graph.neo4j import launcher

            launcher.stop()
    return _finish(result, embedder, out_path, began, load_before)


def _finish(result: Result, embedder: Cached, out_path: Path, began: float,
            load_before: tuple[float, float, float]) -> int:
    """The verdict, the checks, the JSON and the tables; 1 when a check failed."""
    result["embedding"] = {"texts": embedder.computed, "model_seconds": embedder.seconds,
                           "texts_per_s": embedder.computed / embedder.seconds
                           if embedder.seconds else None}
    result["targets"] = targets(result)
    runs = [r for by in result["sizes"].values() for r in by.values() if isinstance(r, dict)]
    result["checks"] = {
        "illegal": sum(m["illegal"] + m["illegal_considered"] for r in runs
                       for m in r["modes"].values()),
        "failed_searches": sum(m["errors"] for r in runs for m in r["modes"].values()),
        "generator_mismatches": sum(len(r["generator_mismatches"]) for r in runs),
        "wrong_decisions": sum(r["load"]["memories"]["wrong_decisions"] for r in runs)}
    result["wall_seconds"] = time.perf_counter() - began
    result["loadavg_before_after"] = [load_before, os.getloadavg()]
    return report.finish(result, out_path, tables(result), after=f"Graphiti: {GRAPHITI}")


if __name__ == "__main__":
    raise SystemExit(main())
