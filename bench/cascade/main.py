"""Cascade time: one restated input, N derived facts downstream, closed in one transaction.

    python -m bench.cascade [--fanouts 1000,10000,100000] [--recompute-max 10000]
                            [--neo4j-uri URI] [--out bench/results/cascade.json]

Per fan-out and backend (embedded, then Neo4j): a bulk-built graph (``bench.cascade.setup``),
the timed ``record`` of X's restatement (supersede + cascade), its checks, ``recompute=True`` on
a fresh copy (N up to ``--recompute-max``), and the naive walk (``bench.cascade.naive``) on a
third copy. Without ``--neo4j-uri`` a private Neo4j is started in ``$VINTAGE_NEO4J_HOME``
(default ``/tmp/vintage-bench-cascade``) and stopped at the end. See bench/README.md.
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
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from neo4j.exceptions import Neo4jError

from bench import report
from bench.cascade import naive as cascade_naive
from bench.cascade import phases as cascade_phases
from bench.cascade import setup as cascade_setup
from bench.cascade.setup import S2_AT, SUBJECT_ID, Planned
from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Scope
from vintage.graph.embedded.store import EmbeddedStore
from vintage.graph.neo4j.build import PAGECACHE_ENV
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.store.protocol import Store, StoreError
from vintage.graph.writes.cascade import Axis, plan
from vintage.graph.writes.semantics import WriteReport, record

BENCH_NEO4J_HOME = "/tmp/vintage-bench-cascade"
Copy = tuple[Store, Scope]


def clock() -> datetime:
    return datetime.now(UTC)


def _say(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


@contextmanager
def _copy(neo: Neo4jStore | None, tag: str, n: int) -> Iterator[Copy]:
    """A fresh store (embedded: a temporary directory) or tenant (Neo4j), removed afterwards."""
    scope = Scope(tenant=f"bench-cascade-{tag}-{n}-{uuid.uuid4().hex[:8]}")
    if neo is not None:
        try:
            yield neo, scope
        finally:
            began = time.perf_counter()
            neo.purge_tenant(scope.tenant)
            _say(f"  purged {scope.tenant} in {time.perf_counter() - began:.1f} s")
        return
    with tempfile.TemporaryDirectory(prefix="vintage-cascade-") as tmp:
        yield EmbeddedStore.open(Path(tmp), clock), scope
    gc.collect()


def _build(store: Store, scope: Scope, n: int) -> tuple[Planned, str, float]:
    began = time.perf_counter()
    inputs = cascade_setup.record_inputs(store, scope)
    if isinstance(store, EmbeddedStore):
        planned = cascade_setup.build_embedded(store, inputs, n)
    else:
        assert isinstance(store, Neo4jStore)
        planned = cascade_setup.build_neo4j(store, inputs, n)
    return planned, inputs.x.id, time.perf_counter() - began


def _timed(store: Store, scope: Scope, recompute: bool) -> tuple[WriteReport, float]:
    began = time.perf_counter()
    result = record(store, scope, cascade_setup.restatement(), actor="bench",
                    recompute=recompute)
    return result, time.perf_counter() - began


def _verify(store: Store, scope: Scope, planned: Planned, result: WriteReport) -> dict[str, Any]:
    ids = set(planned.derived_ids)
    facts = store.reading(scope.tenant, lambda tx: tx.get_facts(sorted(ids)))
    closed = sum(f.superseded_at == S2_AT for f in facts.values())

    def visible(known_at: datetime) -> int:
        spec = AsOf(scope, known_at=known_at, subjects=(SUBJECT_ID,))
        return sum(f.id in ids for f in store.read(spec))

    checks = {
        "cascade_outcomes": len(result.cascade),
        "fates": dict(Counter(o.fate.value for o in result.cascade)),
        "closed_at_restatement": closed,
        "visible_after": visible(S2_AT + timedelta(days=1)),
        "visible_before": visible(S2_AT - timedelta(days=1)),
    }
    checks["ok"] = (checks["cascade_outcomes"] == closed == checks["visible_before"] == len(ids)
                    and checks["visible_after"] == 0)
    return checks


def bench_backend(
    name: str, neo: Neo4jStore | None, n: int, recompute_max: int, first: bool, last: bool,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with _copy(neo, "main", n) as (store, scope):
        _say(f"{name} {n:,}: building the graph")
        planned, x_id, out["setup_s"] = _build(store, scope, n)
        total = out["derived"] = len(planned.derived_ids)
        out["second_level"] = len(planned.second_level)
        _say(f"  setup {out['setup_s']:.1f} s; {total:,} derived facts")
        if first:
            shape_scope = Scope(tenant=f"bench-cascade-shape-{uuid.uuid4().hex[:8]}")
            shape_store = store if neo is not None else EmbeddedStore.open(None, clock)
            out["shape_check"] = cascade_setup.check_shape(shape_store, shape_scope)
            if neo is not None:
                neo.purge_tenant(shape_scope.tenant)
            p = store.reading(scope.tenant, lambda tx: plan(tx, {x_id: S2_AT}, Axis.KNOWLEDGE,
                                                            store.now()))
            out["plan_check"] = {"fanout": n, "affected": len(p.affected),
                                 "ok": len(p.affected) == total}
            _say(f"  shape {out['shape_check']['same_shape']}, plan sees {len(p.affected):,}")
        result, out["cascade_s"] = _timed(store, scope, recompute=False)
        out["facts_per_s"] = total / out["cascade_s"]
        _say(f"  cascade {out['cascade_s']:.2f} s ({out['facts_per_s']:,.0f} facts/s)")
        out["checks"] = _verify(store, scope, planned, result)
        _say(f"  checks ok: {out['checks']['ok']}")
    if n > recompute_max:
        flag = "--neo4j-recompute-max" if neo is not None else "--recompute-max"
        out["recompute_skipped"] = f"fan-out above {flag} ({recompute_max:,})"
    else:
        with _copy(neo, "recompute", n) as (store, scope):
            planned, _, out["recompute_setup_s"] = _build(store, scope, n)
            result, out["recompute_s"] = _timed(store, scope, recompute=True)
            fates = Counter(o.fate.value for o in result.cascade)
            out["recompute_fates"] = dict(fates)
            out["recompute_ok"] = fates["recomputed"] == total
            _say(f"  recompute {out['recompute_s']:.2f} s; {dict(fates)}")
    with _copy(neo, "naive", n) as (store, scope):
        planned, x_id, out["naive_setup_s"] = _build(store, scope, n)
        out["phases"] = cascade_phases.phases(store, scope.tenant, x_id)
        if last and isinstance(store, Neo4jStore):
            out["profile"] = cascade_phases.profile(store, scope.tenant, x_id, store.now())
        if isinstance(store, Neo4jStore):
            naive = cascade_naive.naive_neo4j(store, scope.tenant, x_id, S2_AT, total)
        else:
            assert isinstance(store, EmbeddedStore)
            naive = cascade_naive.naive_embedded(store, scope.tenant, x_id, S2_AT, total)
        out["naive"] = naive.as_dict()
        out["ratio_naive_vs_ours"] = naive.projected_seconds / out["cascade_s"]
        _say(f"  naive {naive.projected_seconds:.1f} s ({naive.closed:,} timed)")
    return out


BACKENDS = ("embedded", "neo4j", "neo4j-cypher")


def _cell(value: Any, fmt: str, missing: str = "-") -> str:
    return missing if value is None else format(value, fmt)


def table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| fan-out | derived | backend | setup s | cascade s | facts/s | recompute s "
        "| naive s | naive/ours | checks |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in results:
        for backend in BACKENDS:
            b = r.get(backend)
            if b is None:
                continue
            if "error" in b:
                lines.append(f"| {r['fanout']:,} | - | {backend} | failed: {b['error'][:120]} "
                             "| | | | | | |")
                continue
            naive = b["naive"]
            naive_s = f"{naive['seconds']:,.1f}" + (" (proj.)" if naive["projected"] else "")
            lines.append(
                f"| {r['fanout']:,} | {b['derived']:,} | {backend} | {b['setup_s']:.1f} "
                f"| {b['cascade_s']:.2f} | {b['facts_per_s']:,.0f} "
                f"| {_cell(b.get('recompute_s'), '.2f', 'skipped')} | {naive_s} "
                f"| {b['ratio_naive_vs_ours']:,.1f}x | {'ok' if b['checks']['ok'] else 'FAIL'} |"
            )
    return "\n".join(lines)


def _server(uri_arg: str | None) -> tuple[str, tuple[str, str] | None, dict[str, Any],
                                          Callable[[], None]]:
    from vintage.graph.neo4j import launcher as neo4j_launcher

    if uri_arg is not None:
        auth = None
        if os.environ.get("NEO4J_PASSWORD"):
            auth = (os.environ.get("NEO4J_USER", "neo4j"), os.environ["NEO4J_PASSWORD"])
        return uri_arg, auth, {"uri": uri_arg, "started_by_bench": False}, lambda: None
    # Only for a server of its own: given a URI, the environment is left alone.
    os.environ.setdefault("VINTAGE_NEO4J_HOME", BENCH_NEO4J_HOME)
    _say(f"starting Neo4j in {os.environ['VINTAGE_NEO4J_HOME']}")
    uri = neo4j_launcher.start().uri
    info = {"uri": uri, "started_by_bench": True,
            "pagecache": os.environ.get(PAGECACHE_ENV, "64m (default)"),
            "heap": os.environ.get(neo4j_launcher.HEAP_ENV, "768m (default)")}

    def stop() -> None:
        neo4j_launcher.stop()

    return uri, neo4j_launcher.auth(), info, stop


def _nothing() -> None:
    return None


def _stores(uri_arg: str | None, wanted: bool) -> tuple[
        Neo4jStore | None, dict[str, Neo4jStore | None], dict[str, Any], Callable[[], None]]:
    """The store of each backend: the Neo4j ones share one server and driver."""
    if not wanted:
        return None, {"embedded": None}, {}, _nothing
    uri, auth, server, stop = _server(uri_arg)
    neo = Neo4jStore.connect(uri, clock, auth=auth)
    neo.ensure_schema()
    server["procedures"] = neo.procedures
    cypher_only = Neo4jStore(neo.driver, clock, neo.database)  # procedures stay off
    return neo, {"embedded": None, "neo4j": neo, "neo4j-cypher": cypher_only}, server, stop


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cascade", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fanouts", default="1000,10000,100000")
    parser.add_argument("--recompute-max", type=int, default=10_000,
                        help="largest fan-out also timed with recompute=True (default 10000)")
    parser.add_argument("--neo4j-recompute-max", type=int, default=1_000,
                        help="the same on Neo4j (default 1000: recompute is quadratic there)")
    parser.add_argument("--backends", default="embedded,neo4j,neo4j-cypher",
                        help="neo4j: with the launcher's vintage.cascade_close procedure where the "
                             "server has it; neo4j-cypher: the same server, pure Cypher")
    parser.add_argument("--neo4j-uri", default=None)
    parser.add_argument("--out", type=Path, default=Path("bench/results/cascade.json"))
    args = parser.parse_args(argv)
    fanouts = [int(s.replace("_", "")) for s in args.fanouts.split(",") if s.strip()]
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    if not fanouts or min(fanouts) < 2 or not set(backends) <= set(BACKENDS):
        parser.error(f"fan-outs must be at least 2; backends: {', '.join(BACKENDS)}")
    neo, stores, server, stop = _stores(args.neo4j_uri, bool(set(backends) - {"embedded"}))
    results: list[dict[str, Any]] = []
    failed: dict[str, int] = {}
    try:
        for i, n in enumerate(fanouts):
            results.append({"fanout": n})
            for backend in backends:
                began = time.perf_counter()
                limit = args.recompute_max if backend == "embedded" else args.neo4j_recompute_max
                if backend in failed:
                    results[-1][backend] = {"error": f"skipped: failed at {failed[backend]:,}"}
                    continue
                try:
                    b = bench_backend(backend, stores[backend], n, limit, i == 0,
                                      i == len(fanouts) - 1)
                except (Neo4jError, StoreError, MemoryError) as exc:  # record it, go on
                    _say(f"{backend} {n:,} failed: {exc}")
                    failed[backend] = n
                    b = {"error": f"{type(exc).__name__}: {str(exc)[:400]}"}
                b["wall_s"] = time.perf_counter() - began
                results[-1][backend] = b
            results[-1]["peak_rss_mib"] = report.peak_rss_mib()
    finally:
        if neo is not None:
            neo.close()
        stop()
        out = {**report.provenance(), "machine": report.machine(), "neo4j": server,
               "naive_cap": cascade_naive.NAIVE_CAP, "recompute_max": args.recompute_max,
               "neo4j_recompute_max": args.neo4j_recompute_max,
               "second_level_every": cascade_setup.SECOND_LEVEL_EVERY, "results": results}
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(out, indent=2, default=str) + "\n", encoding="utf-8")
    print(f"commit {out['commit']}  {out['date_utc']}  {out['machine']['cpu']} "
          f"({out['machine']['cores']} cores, {out['machine']['memory_gib']} GiB)\n")
    print(table(results))
    print(f"\nJSON: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
