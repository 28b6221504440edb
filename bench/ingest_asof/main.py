"""Ingest throughput and as-of read latency, embedded vs Neo4j, against a raw and a naive load.

    python -m bench.ingest_asof [--sizes 10000,100000] [--reads 1000] [--neo4j-uri URI]
                                [--out bench/results/latest.json]

Without ``--neo4j-uri`` a private Neo4j 5.26 is started through ``vintage.graph.neo4j.launcher`` in
``$VINTAGE_NEO4J_HOME`` (default ``/tmp/vintage-bench-neo4j``, away from the test suite's
server) and stopped at the end. See bench/README.md for what each number means.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import neo4j

from bench import data, neo4j_raw, report, runs
from vintage.graph.core.model import Scope
from vintage.graph.neo4j.cypher_reads import read_facts
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.sqlite.store import SqliteStore

BENCH_NEO4J_HOME = "/tmp/vintage-bench-neo4j"


def clock() -> datetime:
    return datetime.now(UTC)


def _say(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _ingest_dict(result: runs.IngestResult) -> dict[str, Any]:
    return {
        "facts": result.facts, "batches": result.batches, "seconds": result.seconds,
        "facts_per_s": result.per_second, "created": result.created,
        "superseded": result.superseded, "batch_seconds": list(result.batch_seconds),
    }


def _reads_dict(result: runs.ReadResult) -> dict[str, Any]:
    return {"reads": result.reads, "rows": result.rows, **result.summary()}


def _load_dict(result: neo4j_raw.LoadResult) -> dict[str, Any]:
    return {
        "timed_facts": result.facts, "target_facts": result.target,
        "seconds": result.projected_seconds, "timed_seconds": result.seconds,
        "facts_per_s": result.per_second, "projected": result.projected,
    }


def bench_embedded(
    dataset: data.Dataset, scope: Scope, specs: list[Any],
) -> tuple[dict[str, Any], runs.ReadResult]:
    with tempfile.TemporaryDirectory(prefix="vintage-bench-") as tmp:
        store = SqliteStore.open(Path(tmp), clock)  # the embedded store `vintage` opens
        _say(f"embedded: ingesting {dataset.n_facts:,} facts")
        ingested = runs.ingest(store, scope, dataset.batches())
        disk = report.store_mib(Path(tmp))
        _say(f"embedded: {len(specs)} reads")
        read = runs.reads(store, specs)
        rss = report.current_rss_mib()
        store.close()
    del store
    gc.collect()  # so the next backend's RSS is not inflated by this store's graph
    return {
        "ingest": _ingest_dict(ingested), "reads": _reads_dict(read),
        "store_mib": disk, "rss_after_mib": rss,
    }, read


def bench_neo4j(
    uri: str, auth: tuple[str, str] | None, dataset: data.Dataset, scope: Scope,
    specs: list[Any],
) -> tuple[dict[str, Any], runs.ReadResult]:
    store = Neo4jStore.connect(uri, clock, auth=auth)
    try:
        store.ensure_schema()
        _say(f"neo4j: ingesting {dataset.n_facts:,} facts into tenant {scope.tenant}")
        ingested = runs.ingest(store, scope, dataset.batches())
        _say(f"neo4j: {len(specs)} reads")
        read = runs.reads(store, specs)
        query = read_facts(specs[0].resolved(clock()), None)
        plan = neo4j_raw.plan_operators(store.driver, query.text, query.params)
    finally:
        began = time.perf_counter()
        store.purge_tenant(scope.tenant)
        purge = time.perf_counter() - began
        store.close()
    return {
        "ingest": _ingest_dict(ingested), "reads": _reads_dict(read),
        "read_plan": plan, "purge_seconds": purge,
    }, read


def bench_reference(
    uri: str, auth: tuple[str, str] | None, dataset: data.Dataset, scope: Scope,
) -> dict[str, Any]:
    rows = data.raw_rows(dataset, scope, clock())
    subjects = [s.id for s in dataset.subjects]
    with neo4j.GraphDatabase.driver(uri, auth=auth) as driver:
        try:
            neo4j_raw.cleanup(driver)  # leftovers of an interrupted run would skew the load
            _say(f"raw UNWIND: {len(rows):,} rows")
            raw = neo4j_raw.bulk_load(driver, rows, subjects)
            neo4j_raw.cleanup(driver)
            _say(f"naive: up to {neo4j_raw.NAIVE_CAP:,} single-fact queries")
            naive = neo4j_raw.naive_load(driver, rows, subjects)
        finally:
            neo4j_raw.cleanup(driver)
    return {"raw_unwind": _load_dict(raw), "naive_per_fact": _load_dict(naive)}


def bench_size(
    n: int, n_reads: int, uri: str, auth: tuple[str, str] | None,
) -> dict[str, Any]:
    dataset = data.generate(n)
    scope = Scope(tenant=f"bench-{n}-{uuid.uuid4().hex[:8]}")
    specs = data.read_specs(dataset, scope, n_reads)
    embedded, embedded_reads = bench_embedded(dataset, scope, specs)
    graph, graph_reads = bench_neo4j(uri, auth, dataset, scope, specs)
    reference = bench_reference(uri, auth, dataset, scope)
    result: dict[str, Any] = {
        "facts": n, "restated": len(dataset.restated), "subjects": len(dataset.subjects),
        "predicates": len(data.PREDICATES), "sources": len(dataset.sources),
        "batch_size": data.BATCH_SIZE, "embedded": embedded, "neo4j": graph, **reference,
        "read_disagreements": runs.disagreements(embedded_reads, graph_reads),
        "peak_rss_mib": report.peak_rss_mib(),
    }
    result["ratio_neo4j_vs_raw"] = graph["ingest"]["facts_per_s"] / reference["raw_unwind"][
        "facts_per_s"]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ingest_asof", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000",
                        help="comma-separated fact counts (default: 10000,100000)")
    parser.add_argument("--reads", type=int, default=1000, help="as-of reads per backend")
    parser.add_argument("--neo4j-uri", default=None,
                        help="use this server instead of starting a private one")
    parser.add_argument("--out", type=Path, default=Path("bench/results/latest.json"))
    args = parser.parse_args(argv)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    if not sizes or min(sizes) < data.RESTATED_SHARE or args.reads < 1:
        parser.error("sizes must be at least 10 facts and --reads at least 1")

    from vintage.graph.neo4j import launcher as neo4j_launcher

    started = args.neo4j_uri is None
    server: dict[str, Any] = {"uri": args.neo4j_uri, "started_by_bench": started}
    if started:  # only then the bench home: given a URI, the environment is left alone
        os.environ.setdefault("VINTAGE_NEO4J_HOME", BENCH_NEO4J_HOME)
        _say(f"starting Neo4j in {os.environ['VINTAGE_NEO4J_HOME']}")
        uri = neo4j_launcher.start().uri
        server.update(uri=uri, heap=os.environ.get(neo4j_launcher.HEAP_ENV, "768m (default)"),
                      pagecache="64m (launcher default)")
        auth = neo4j_launcher.auth()
    else:
        uri, auth = args.neo4j_uri, None
        if os.environ.get("NEO4J_PASSWORD"):
            auth = (os.environ.get("NEO4J_USER", "neo4j"), os.environ["NEO4J_PASSWORD"])
    results = []
    try:
        for n in sizes:
            _say(f"size {n:,}")
            began = time.perf_counter()
            results.append(bench_size(n, args.reads, uri, auth))
            results[-1]["wall_seconds"] = time.perf_counter() - began
    finally:
        if started:
            neo4j_launcher.stop()
    out = {**report.provenance(), "machine": report.machine(), "neo4j": server,
           "reads_per_backend": args.reads, "results": results}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(f"commit {out['commit']}  {out['date_utc']}  {out['machine']['cpu']} "
          f"({out['machine']['cores']} cores, {out['machine']['memory_gib']} GiB)\n")
    print(report.tables(results))
    for r in results:
        print(f"\n{r['facts']:,} facts: Vintage on Neo4j ingests at "
              f"{r['ratio_neo4j_vs_raw']:.2f}x the raw UNWIND rate; read plan: "
              f"{' <- '.join(op.split(':')[0] for op in r['neo4j']['read_plan'])}")
    print(f"\nJSON: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
