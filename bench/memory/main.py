"""Agent memory: gated writes (``remember``), recall, context building and erasure of a user,
embedded vs Neo4j, against a raw Neo4j ``MERGE`` per write and in-process dicts measured in the
same run.

    python -m bench.memory [--users 200] [--keys 10] [--reads 500] [--backends embedded,neo4j]
                           [--sealing both|sealed] [--neo4j-uri URI]
                           [--out bench/results/memory.json]

Memory is sealed at rest (``vintage.graph.sealing.sealed``), as every store ``open_store`` opens.
With
``--sealing both`` (the default) each backend also runs the same workload unsealed (a store
given no key store, which only a benchmark does), so the cost of sealing is measured in the
same run: ``<backend>_plain`` in the JSON and the "Sealing" table.

Without ``--neo4j-uri`` a private Neo4j 5.26 is started through ``vintage.graph.neo4j.launcher`` in
``$VINTAGE_NEO4J_HOME`` (default ``/tmp/vintage-bench-memory``, away from the test suite's
server) and stopped at the end. See bench/README.md for what each number means.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
import uuid
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import neo4j

from bench import report
from bench.memory import raw as memory_raw
from bench.memory import trace as memory_trace
from bench.memory.report import ratios, sealing, tables
from bench.memory.work import (
    Workload,
    clock,
    erase,
    make_workload,
    phases,
    reads,
    sweep,
    write_round,
    writes_summary,
)
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.sealing.keyfile import FileKeyStore
from vintage.graph.sqlite.store import SqliteStore
from vintage.graph.store.protocol import Store

BENCH_NEO4J_HOME = "/tmp/vintage-bench-memory"
REPO = Path(__file__).resolve().parents[2]
Result = dict[str, Any]
Auth = tuple[str, str] | None
GRAPHITI = (
    "Not run. graphiti-core is installable here (PyPI), but its add_episode extracts entities "
    "and edges with an LLM and embeds them with an embedding model; neither is reachable from "
    "this machine, and a fake LLM would measure the fake. No Graphiti number is reported.")


def _say(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _package(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def bench_vintage(store: Store, tenant: str, work: Workload, label: str) -> tuple[Result, Result]:
    """The whole workload through Vintage's API; returns the timings and the checks."""
    write_round(store, f"{tenant}-warmup", work.warmup())
    _say(f"{label}: round 1, {len(work.first):,} remember calls")
    t1, d1, u1 = write_round(store, tenant, work.first)
    after_first = phases(store, tenant, work)
    _say(f"{label}: round 2, {len(work.second):,} remember calls")
    t2, d2, u2 = write_round(store, tenant, work.second)
    after_second = phases(store, tenant, work)
    _say(f"{label}: {len(work.points):,} + {len(work.lists):,} recalls, "
         f"{len(work.contexts):,} contexts")
    read, wrong = reads(store, tenant, work)
    wrong += sweep(store, tenant, work)
    _say(f"{label}: erasing {len(work.erased)} users")
    erased, left = erase(store, tenant, work)
    out: Result = {
        "writes": {**writes_summary(work, t1, t2),
                   "decisions": {"round1": dict(d1), "round2": dict(d2)}},
        **read, "erase": erased,
        "phases": {"after_round_1": after_first, "after_round_2": after_second},
    }
    return out, {"wrong_answers": wrong, "unexpected_decisions": u1 + u2,
                 "left_after_erase": left}


def bench_embedded(work: Workload, sealed: bool = True) -> tuple[Result, Result]:
    label = "embedded" if sealed else "embedded, plain"
    with (tempfile.TemporaryDirectory(prefix="vintage-bench-memory-") as tmp,
          tempfile.TemporaryDirectory(prefix="vintage-bench-keys-") as keys):
        store = SqliteStore.open(Path(tmp), clock,
                                   FileKeyStore(Path(keys) / "keys") if sealed else None)
        out, checks = bench_vintage(store, "bench-memory", work, label)
        out.update(store_mib=report.store_mib(Path(tmp)),
                   rss_after_mib=report.current_rss_mib(), peak_rss_mib=report.peak_rss_mib())
        store.close()
    del store
    gc.collect()  # so the Neo4j phase's client RSS is not inflated by this store's graph
    return out, checks


def bench_neo4j(
    uri: str, auth: Auth, work: Workload, sealed: bool = True,
) -> tuple[Result, Result]:
    tenant = f"bench-memory-{uuid.uuid4().hex[:8]}"
    keys = tempfile.TemporaryDirectory(prefix="vintage-bench-keys-")
    store = Neo4jStore.connect(uri, clock, auth=auth,
                               keys=FileKeyStore(Path(keys.name) / "keys") if sealed else None)
    try:
        store.ensure_schema()
        label = f"neo4j ({tenant})" if sealed else f"neo4j, plain ({tenant})"
        out, checks = bench_vintage(store, tenant, work, label)
        if sealed:
            out["plans"] = memory_trace.plans(store, tenant, work)
            out["trace"] = memory_trace.trace(store, tenant, work)
    finally:
        keys.cleanup()
        store.purge_tenant(f"{tenant}-warmup")
        began = time.perf_counter()
        store.purge_tenant(tenant)
        purge = time.perf_counter() - began
        store.close()
    return {**out, "purge_seconds": purge}, checks


def bench_raw(uri: str, auth: Auth, work: Workload) -> tuple[Result, int]:
    with neo4j.GraphDatabase.driver(uri, auth=auth) as driver:
        try:
            memory_raw.cleanup(driver)  # leftovers of an interrupted run would skew the load
            _say(f"raw Neo4j: {len(work.first) + len(work.second):,} MERGE writes, then reads")
            return memory_raw.neo4j_reference(driver, "bench-memory-raw", work)
        finally:
            memory_raw.cleanup(driver)


def bench_in_process(work: Workload) -> tuple[Result, int]:
    _say("in-process references: dict, dict + history, dict + fsynced line")
    found: Result = {}
    found["dict"], wrong = memory_raw.in_process(memory_raw.DictRef(), work)
    found["dict_history"], more = memory_raw.in_process(memory_raw.HistoryRef(), work)
    with tempfile.TemporaryDirectory(prefix="vintage-bench-memory-fsync-") as tmp:
        durable = memory_raw.FsyncRef(Path(tmp) / "log.jsonl")
        found["dict_fsync"], _ = memory_raw.in_process(durable, work, reads=False)
        durable.close()
    return found, wrong + more


def _start_server(args: argparse.Namespace) -> tuple[str, Auth, Result]:
    from vintage.graph.neo4j import launcher as neo4j_launcher

    if args.neo4j_uri is not None:
        auth: Auth = None
        if os.environ.get("NEO4J_PASSWORD"):
            auth = (os.environ.get("NEO4J_USER", "neo4j"), os.environ["NEO4J_PASSWORD"])
        return args.neo4j_uri, auth, {"uri": args.neo4j_uri, "started_by_bench": False}
    # Only for a server of its own: given a URI, the environment is left alone.
    os.environ.setdefault("VINTAGE_NEO4J_HOME", BENCH_NEO4J_HOME)
    home = neo4j_launcher.state_dir()
    # Never stop the test suite's server (the launcher's default home in the repository).
    shared = home.is_relative_to(REPO / ".vintage")
    _say(f"starting (or reusing) Neo4j in {home}")
    info = neo4j_launcher.start()
    return info.uri, neo4j_launcher.auth(), {
        "uri": info.uri, "started_by_bench": not shared, "home": str(home),
        "heap": os.environ.get(neo4j_launcher.HEAP_ENV, "768m (default)"),
        "pagecache": os.environ.get("VINTAGE_NEO4J_PAGECACHE", "64m (launcher default)"),
    }


def _name(backend: str, sealed: bool) -> str:
    return backend if sealed else f"{backend}_plain"


def run(args: argparse.Namespace, backends: list[str]) -> Result:
    work = make_workload(args.users, args.keys, args.reads, args.correct_share, args.erase,
                         args.seed)
    result: Result = {
        "users": args.users, "keys": args.keys, "reads": args.reads,
        "correct_share": args.correct_share, "erase_users": args.erase, "seed": args.seed,
        "writes_per_round": len(work.first),
        "corrections": sum(w.kind == "correction" for w in work.second),
        "graphiti": {"installable_from_pypi": "graphiti-core", "run": False, "why": GRAPHITI},
    }
    checks: dict[str, int] = {"wrong_answers": 0, "unexpected_decisions": 0,
                              "left_after_erase": 0}

    def tally(found: Result | int) -> None:
        if isinstance(found, int):
            checks["wrong_answers"] += found
        else:
            for name, n in found.items():
                checks[name] += n

    runs = (True, False) if args.sealing == "both" else (True,)
    if "embedded" in backends:
        for sealed in runs:
            result[_name("embedded", sealed)], found = bench_embedded(work, sealed)
            tally(found)
    refs, wrong = bench_in_process(work)
    tally(wrong)
    if "neo4j" in backends:
        uri, auth, result["server"] = _start_server(args)
        try:
            for sealed in runs:
                result[_name("neo4j", sealed)], found = bench_neo4j(uri, auth, work, sealed)
                tally(found)
            refs["raw_neo4j"], wrong = bench_raw(uri, auth, work)
            tally(wrong)
        finally:
            if result["server"]["started_by_bench"] and not args.keep_server:
                from vintage.graph.neo4j import launcher as neo4j_launcher

                neo4j_launcher.stop()
    result["references"] = refs
    result["checks"] = checks
    result["ratios"] = ratios(result)
    result["sealing"] = sealing(result)
    result["peak_rss_mib"] = report.peak_rss_mib()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.memory", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=200, help="users (default 200)")
    parser.add_argument("--keys", type=int, default=10, help="preference keys per user (10)")
    parser.add_argument("--reads", type=int, default=500,
                        help="recalls of each kind, and context builds (default 500)")
    parser.add_argument("--correct-share", type=float, default=0.2,
                        help="share of round 2 writes that change the value (default 0.2)")
    parser.add_argument("--erase", type=int, default=5, help="users erased at the end (5)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--backends", default="embedded,neo4j",
                        help="comma-separated: embedded, neo4j (default: both)")
    parser.add_argument("--sealing", choices=("both", "sealed"), default="both",
                        help="both: each backend sealed (the product), then plain (no key "
                             "store: the bench only), for sealing's cost (default); sealed: "
                             "the sealed run alone")
    parser.add_argument("--neo4j-uri", default=None,
                        help="use this server instead of starting a private one")
    parser.add_argument("--keep-server", action="store_true",
                        help="leave the server the bench started running")
    parser.add_argument("--out", type=Path, default=Path("bench/results/memory.json"))
    args = parser.parse_args(argv)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    if not backends or set(backends) - {"embedded", "neo4j"}:
        parser.error("--backends takes embedded and/or neo4j")
    if min(args.users, args.keys, args.reads) < 1 or args.erase < 0:
        parser.error("--users, --keys and --reads must be at least 1, --erase at least 0")
    if not 0 <= args.correct_share <= 1:
        parser.error("--correct-share lies between 0 and 1")
    load_before = os.getloadavg()
    provenance = report.provenance()  # before the run: others may commit while it runs
    began = time.perf_counter()
    result = run(args, backends)
    out = {**provenance, "machine": report.machine(),
           "packages": {p: _package(p) for p in ("neo4j", "neo4j-rust-ext", "graphiti-core")},
           **result, "wall_seconds": time.perf_counter() - began,
           "loadavg_before_after": [load_before, os.getloadavg()]}
    return report.finish(out, args.out, tables(out), after=f"Graphiti: {GRAPHITI}")


if __name__ == "__main__":
    raise SystemExit(main())
