"""SEC companyfacts ingest throughput and as-of metric question latency, embedded vs Neo4j,
against a raw Neo4j ``UNWIND`` load of the same shape measured in the same run.

    python -m bench.sec [--backends embedded,neo4j] [--questions 40] [--repeat 10]
                        [--neo4j-uri URI] [--profile] [--out bench/results/sec.json]

Without ``--neo4j-uri`` a private Neo4j 5.26 is started through ``vintage.graph.neo4j.launcher`` in
``$VINTAGE_NEO4J_HOME`` (default ``/tmp/vintage-bench-sec``, away from the test suite's server)
and stopped at the end. See bench/README.md for what each number means.
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
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import neo4j

from bench import report
from bench.sec import questions as sec_questions
from bench.sec import raw as sec_raw
from bench.sec.report import Profiles, tables
from vintage.graph.core.model import Scope
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.store.backends import open_store
from vintage.graph.store.protocol import Store
from vintage.ingest.bundled import COMPANYFACTS
from vintage.ingest.sec.companyfacts import ingest_companyfacts, plan, read_companyfacts

BENCH_NEO4J_HOME = "/tmp/vintage-bench-sec"
DATA = COMPANYFACTS
Result = dict[str, Any]
Auth = tuple[str, str] | None


def clock() -> datetime:
    return datetime.now(UTC)


def _say(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _rates(rows: int, seconds: float, created: int | None = None) -> Result:
    out: Result = {"rows": rows, "seconds": seconds, "rows_per_s": rows / seconds}
    if created is not None:
        out.update(created=created, facts_per_s=created / seconds)
    return out


def _server_memory_mib(pid: int | None) -> Result:
    """The Neo4j JVM's resident and peak resident memory (Linux /proc), when it is ours."""
    found: Result = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(("VmRSS:", "VmHWM:")):
                found[line.split(":")[0]] = int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return found


def ingest_all(store: Store, scope: Scope, files: Sequence[Path]) -> Result:
    per_file: list[dict[str, Any]] = []
    began = time.perf_counter()
    for path in files:
        t0 = time.perf_counter()
        s = ingest_companyfacts(store, scope, path, actor="bench")
        per_file.append({"file": path.name, "rows": s.rows, "created": s.created,
                         "repeated": s.repeated, "superseded": len(s.superseded),
                         "sources": s.sources, "seconds": time.perf_counter() - t0})
        _say(f"  {path.name}: {s.rows:,} rows, {s.created:,} facts, "
             f"{per_file[-1]['seconds']:.1f} s")
    seconds = time.perf_counter() - began
    total = {k: sum(f[k] for f in per_file)
             for k in ("rows", "created", "repeated", "superseded", "sources")}
    return {**total, **_rates(total["rows"], seconds, total["created"]),
            "subjects": len(files), "files": per_file}


def bench_embedded(files: Sequence[Path], questions: list[sec_questions.Question], repeat: int,
                   prof: Profiles) -> tuple[Result, sec_questions.QuestionRun]:
    scope = Scope(tenant="bench-sec")
    with tempfile.TemporaryDirectory(prefix="vintage-bench-sec-") as tmp:
        store = open_store(tmp, clock)
        rss_before = report.current_rss_mib()
        _say(f"embedded: ingesting {len(files)} files")
        with prof.section("embedded ingest"):
            ingested = ingest_all(store, scope, files)
        ingested.update(peak_rss_mib=report.peak_rss_mib(), rss_before_mib=rss_before,
                        rss_after_mib=report.current_rss_mib())
        disk = report.store_mib(Path(tmp))
        _say(f"embedded: {len(questions)} questions, then {repeat} warm rounds")
        with prof.section("embedded questions"):
            asked = sec_questions.run(store, scope, questions, repeat)
        store.close()
    del store
    gc.collect()  # so the Neo4j phase's client RSS is not inflated by this store's graph
    return {"ingest": ingested, "store_mib": disk,
            "questions": asked.as_data(questions)}, asked


def bench_neo4j(uri: str, auth: Auth, pid: int | None, files: Sequence[Path],
                questions: list[sec_questions.Question], repeat: int,
                prof: Profiles) -> tuple[Result, sec_questions.QuestionRun]:
    scope = Scope(tenant=f"bench-sec-{uuid.uuid4().hex[:8]}")
    store = Neo4jStore.connect(uri, clock, auth=auth)
    try:
        store.ensure_schema()
        _say(f"neo4j: ingesting {len(files)} files into tenant {scope.tenant}")
        with prof.section("neo4j ingest"):
            ingested = ingest_all(store, scope, files)
        ingested.update(client_rss_after_mib=report.current_rss_mib(),
                        server_memory_mib=_server_memory_mib(pid))
        _say(f"neo4j: {len(questions)} questions, then {repeat} warm rounds")
        with prof.section("neo4j questions"):
            asked = sec_questions.run(store, scope, questions, repeat)
    finally:
        began = time.perf_counter()
        store.purge_tenant(scope.tenant)
        purge = time.perf_counter() - began
        store.close()
    return {"ingest": ingested, "purge_seconds": purge,
            "questions": asked.as_data(questions)}, asked


def bench_raw(uri: str, auth: Auth, files: Sequence[Path]) -> Result:
    raw = sec_raw.raw_plan(files, Scope(tenant="bench-sec-raw"), clock())
    with neo4j.GraphDatabase.driver(uri, auth=auth) as driver:
        try:
            sec_raw.cleanup(driver)  # leftovers of an interrupted run would skew the load
            _say(f"raw UNWIND: {raw.rows:,} rows, {raw.facts:,} fact nodes, "
                 f"{raw.supports:,} support edges, {raw.sources:,} sources")
            seconds = sec_raw.bulk_load(driver, raw)
        finally:
            sec_raw.cleanup(driver)
    return {**_rates(raw.rows, seconds, raw.facts), "support_edges": raw.supports,
            "sources": raw.sources, "subjects": raw.subjects, "batches": len(raw.batches)}


def warm_up(uri: str, auth: Auth, files: Sequence[Path]) -> None:
    """Both loads once, untimed: a fresh server's first half minute (JIT, plan cache, page cache)
    went to whichever load ran first; one run gave NVDA 42.6 s then TSLA 10.0 s, the next NVDA
    14.4 s then TSLA 24.5 s, against ~4 s for 20k rows once warm."""
    _say("warm-up: both loads once into throwaway tenants, untimed")
    scope = Scope(tenant=f"bench-sec-warm-{uuid.uuid4().hex[:8]}")
    store = Neo4jStore.connect(uri, clock, auth=auth)
    try:
        store.ensure_schema()
        ingest_all(store, scope, files)
    finally:
        store.purge_tenant(scope.tenant)
        store.close()
    bench_raw(uri, auth, files)


def parse_plan_only(files: Sequence[Path]) -> Result:
    """What the ingest spends before its first write: stream-parse, validate, classify, plan."""
    began = time.perf_counter()
    rows = sum(len(plan(read_companyfacts(path)).facts) for path in files)
    return _rates(rows, time.perf_counter() - began)


def _start_server(args: argparse.Namespace) -> tuple[str, Auth, int | None, Result]:
    from vintage.graph.neo4j import launcher as neo4j_launcher

    if args.neo4j_uri is not None:
        auth: Auth = None
        if os.environ.get("NEO4J_PASSWORD"):
            auth = (os.environ.get("NEO4J_USER", "neo4j"), os.environ["NEO4J_PASSWORD"])
        return args.neo4j_uri, auth, None, {"uri": args.neo4j_uri, "started_by_bench": False}
    # Only for a server of its own: given a URI, the environment is left alone.
    os.environ.setdefault("VINTAGE_NEO4J_HOME", BENCH_NEO4J_HOME)
    _say(f"starting (or reusing) Neo4j in {os.environ['VINTAGE_NEO4J_HOME']}")
    info = neo4j_launcher.start()
    return info.uri, neo4j_launcher.auth(), info.pid, {
        "uri": info.uri, "started_by_bench": True, "home": os.environ["VINTAGE_NEO4J_HOME"],
        "heap": os.environ.get(neo4j_launcher.HEAP_ENV, "768m (default)"),
        "pagecache": os.environ.get("VINTAGE_NEO4J_PAGECACHE", "64m (launcher default)"),
    }


def run(args: argparse.Namespace, backends: list[str]) -> Result:
    files = sorted(DATA.glob("*.json.gz"))
    questions = sec_questions.make_questions(args.questions)
    prof = Profiles(args.profile)
    result: Result = {"files": [f.name for f in files], "questions": args.questions,
                      "repeat": args.repeat, "profiled": args.profile,
                      "question_list": [q.label() for q in questions]}
    runs: dict[str, sec_questions.QuestionRun] = {}
    if "embedded" in backends:
        result["embedded"], runs["embedded"] = bench_embedded(files, questions, args.repeat,
                                                              prof)
    if "neo4j" in backends:
        uri, auth, pid, result["server"] = _start_server(args)
        try:
            if not args.no_warmup:
                warm_up(uri, auth, files)
            result["warmed_up"] = not args.no_warmup
            result["neo4j"], runs["neo4j"] = bench_neo4j(uri, auth, pid, files, questions,
                                                         args.repeat, prof)
            result["raw_unwind"] = bench_raw(uri, auth, files)
        finally:
            if result["server"]["started_by_bench"] and not args.keep_server:
                from vintage.graph.neo4j import launcher as neo4j_launcher

                neo4j_launcher.stop()
        vintage, raw = result["neo4j"]["ingest"], result["raw_unwind"]
        result["ratio_neo4j_vs_raw"] = vintage["rows_per_s"] / raw["rows_per_s"]
    _say("parse-only and naive references")
    result["parse_plan"] = parse_plan_only(files)
    rows, seconds = sec_raw.naive_embedded(files)
    result["naive_embedded"] = _rates(rows, seconds)
    if "neo4j" in result:
        # The raw load is handed rows already planned; Vintage's seconds include the parse.
        writes = result["neo4j"]["ingest"]["seconds"] - result["parse_plan"]["seconds"]
        result["ratio_neo4j_writes_vs_raw"] = result["raw_unwind"]["seconds"] / writes
    if len(runs) == 2:
        result["question_disagreements"] = sec_questions.disagreements(
            runs["embedded"], runs["neo4j"])
    result["peak_rss_mib"] = report.peak_rss_mib()
    if args.profile:
        result["profiles"] = prof.found
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sec", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", default="embedded,neo4j",
                        help="comma-separated: embedded, neo4j (default: both)")
    parser.add_argument("--questions", type=int, default=40, help="distinct questions")
    parser.add_argument("--repeat", type=int, default=10,
                        help="timed warm rounds over all questions (default 10)")
    parser.add_argument("--neo4j-uri", default=None,
                        help="use this server instead of starting a private one")
    parser.add_argument("--keep-server", action="store_true",
                        help="leave the server the bench started running")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile each phase into the JSON (inflates the timings)")
    parser.add_argument("--no-warmup", action="store_true",
                        help="time the loads on a cold server (no untimed pass of both first)")
    parser.add_argument("--out", type=Path, default=Path("bench/results/sec.json"))
    args = parser.parse_args(argv)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    if not backends or set(backends) - {"embedded", "neo4j"}:
        parser.error("--backends takes embedded and/or neo4j")
    if args.questions < 1 or args.repeat < 1:
        parser.error("--questions and --repeat must be at least 1")
    load_before = os.getloadavg()
    provenance = report.provenance()  # before the run: others may commit while it runs
    began = time.perf_counter()
    result = run(args, backends)
    out = {**provenance, "machine": report.machine(), **result,
           "wall_seconds": time.perf_counter() - began,
           "loadavg_before_after": [load_before, os.getloadavg()]}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2, default=str) + "\n", encoding="utf-8")
    print(f"commit {out['commit']}  {out['date_utc']}  {out['machine']['cpu']} "
          f"({out['machine']['cores']} cores, {out['machine']['memory_gib']} GiB)\n")
    print(tables(out))
    if "ratio_neo4j_writes_vs_raw" in out:
        print(f"* writes only (parse + plan subtracted): "
              f"{out['ratio_neo4j_writes_vs_raw']:.2f}x raw")
    for name, found in out.get("profiles", {}).items():
        print(f"\n## profile: {name} (by own time)\n" + "\n".join(found["tottime"]))
    print(f"\nJSON: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
