"""Scale: a synthetic SEC-shaped tenant of N facts on Neo4j, measured in one run.

    python -m bench.scale [--facts 1000000] [--reads 300] [--questions 40] [--repeat 5]
                          [--neo4j-uri URI] [--keep-tenant] [--out bench/results/scale-N.json]
    python -m bench.scale --table bench/results/scale-*.json      # one row per recorded run

N / 100 companies (``bench.scale.data``: quarterly and annual periods, 5% restated, derived
metrics over them, ``bench.scale.derived``). Measured: ingest through ``ingest_companyfacts``
against ``bench.sec.raw``'s ``UNWIND`` load of the same files, as-of point reads, metric
questions (``ask``), the cascade of one widely used input (a year's EUR rate), the server's disk
and heap. Without ``--neo4j-uri`` a private Neo4j is started through
``vintage.graph.neo4j.launcher`` in
``$VINTAGE_NEO4J_HOME`` (default ``/tmp/vintage-bench-scale``) and stopped at the end. See
bench/README.md for what each number means.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

from bench import report, runs
from bench.scale import data as scale_data
from bench.scale import derived as scale_derived
from bench.scale.measure import Result, cascade, data_directory, disk, heap, ingest, raw_load, say
from bench.sec import main as sec
from bench.sec import questions as sec_questions
from vintage.graph.core.model import Scope
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.writes.semantics import record

BENCH_NEO4J_HOME = "/tmp/vintage-bench-scale"
READ_PREDICATES = (*(f"us-gaap:{c}" for c in scale_data.CONCEPTS), *scale_derived.DERIVED)
Auth = tuple[str, str] | None


def clock() -> datetime:
    return datetime.now(UTC)


def _footprint(store: Neo4jStore, data: Path | None, pid: int | None) -> Result:
    return {"disk": disk(data, store.database or "neo4j"), "heap": heap(store),
            "server_memory_mib": sec._server_memory_mib(pid)}


def _loaded(store: Neo4jStore, scope: Scope, files: list[Path], n_subjects: int,
            out: Result) -> None:
    began = time.perf_counter()
    out["shape_check"] = scale_derived.check_shape(store, files[0])
    out["shape_check"]["seconds"] = time.perf_counter() - began
    record(store, scope, scale_data.fx_batch(), actor="bench-scale")
    say(f"ingesting {len(files):,} companyfacts files into {scope.tenant}")
    out["ingest"] = ingest(store, scope, files)
    say(f"  {out['ingest']['rows_per_s']:,.0f} rows/s, {out['ingest']['facts_per_s']:,.0f} "
        f"facts/s; building derived facts")
    out["derived"] = scale_derived.build(store, scope, n_subjects)
    say(f"  {out['derived']['derived']:,} derived facts in {out['derived']['seconds']:.1f} s")


def run_size(args: argparse.Namespace, n: int, uri: str, auth: Auth, pid: int | None) -> Result:
    n_subjects = scale_data.subjects_for(n)
    scope = Scope(tenant=f"bench-scale-{n}-{uuid.uuid4().hex[:8]}")
    out: Result = {"facts_target": n, "subjects": n_subjects, "tenant": scope.tenant}
    with tempfile.TemporaryDirectory(prefix="vintage-bench-scale-") as tmp:
        began = time.perf_counter()
        written = scale_data.write_files(Path(tmp), n_subjects)
        out["generate"] = {"seconds": time.perf_counter() - began, "rows": written.rows,
                           "observed": written.observed, "restated": written.restated,
                           "gz_mib": sum(p.stat().st_size for p in written.files) / 1024**2}
        say(f"{n:,} facts: {n_subjects:,} companies, {written.rows:,} rows generated")
        store = Neo4jStore.connect(uri, clock, auth=auth)
        try:
            store.ensure_schema()
            data = data_directory(store)
            out["before"] = _footprint(store, data, pid)
            _loaded(store, scope, written.files, n_subjects, out)
            out["fact_versions"] = out["ingest"]["created"] + out["derived"]["derived"]
            out["loaded"] = _footprint(store, data, pid)
            if data is not None:  # a reused server's files hold other tenants too
                out["disk_growth_mib"] = (out["loaded"]["disk"]["total_mib"]
                                          - out["before"]["disk"]["total_mib"])
            specs = scale_data.read_specs(scope, n_subjects, READ_PREDICATES, args.reads)
            got = runs.reads(store, specs)
            out["reads"] = {**got.summary(), "reads": got.reads, "rows": got.rows}
            say(f"reads p95 {got.summary()['p95_ms']:.1f} ms; {args.questions} questions")
            questions = scale_data.questions(n_subjects, args.questions)
            asked = sec_questions.run(store, scope, questions, args.repeat)
            out["questions"] = asked.as_data(questions)
            say(f"questions warm p95 {out['questions']['warm']['p95_ms']:.1f} ms; cascade")
            out["cascade"] = cascade(store, scope, out["derived"]["on_restated_rate"])
            out["after_cascade"] = _footprint(store, data, pid)
            say(f"  cascade {out['cascade']}")
            say("parse + plan only, then the raw UNWIND load")
            out["parse_plan"] = sec.parse_plan_only(written.files)
            out["raw_unwind"] = raw_load(uri, auth, written.files)
        finally:
            if not args.keep_tenant:
                began = time.perf_counter()
                store.purge_tenant(scope.tenant)
                out["purge_seconds"] = time.perf_counter() - began
            store.close()
    vintage, raw = out["ingest"], out["raw_unwind"]
    out["ratio_vs_raw"] = vintage["rows_per_s"] / raw["rows_per_s"]
    # The raw load is handed rows already planned; Vintage's seconds include the parse.
    out["ratio_writes_vs_raw"] = raw["seconds"] / (vintage["seconds"]
                                                   - out["parse_plan"]["seconds"])
    out["client_peak_rss_mib"] = report.peak_rss_mib()
    return out


def _server(args: argparse.Namespace) -> tuple[str, Auth, int | None, Result]:
    if args.neo4j_uri is None:  # given a URI, the environment is left alone
        os.environ.setdefault("VINTAGE_NEO4J_HOME", BENCH_NEO4J_HOME)
    return sec._start_server(args)


def _mib(part: Result, key: str) -> str:
    value = part.get(key)
    return "-" if value is None else f"{value:,.0f}"


def row(r: Result) -> str:
    c, loaded = r["cascade"], r["loaded"]
    reach = f"{c['reached']:,}" if "reached" in c else f"failed ({c['error'][:60]})"
    return (f"| {r['fact_versions']:,} | {r['subjects']:,} | {r['ingest']['rows']:,} "
            f"| {r['ingest']['rows_per_s']:,.0f} | {r['ingest']['facts_per_s']:,.0f} "
            f"| {r['ratio_vs_raw']:.2f}x | {r['reads']['p50_ms']:.1f} "
            f"| {r['reads']['p95_ms']:.1f} | {r['questions']['warm']['p95_ms']:.1f} "
            f"| {reach} | {c['seconds']:.1f} | {_mib(loaded['disk'], 'total_mib')} "
            f"({_mib(r, 'disk_growth_mib')}) "
            f"| {_mib(loaded['heap'], 'used_mib')} "
            f"| {_mib(r['after_cascade']['server_memory_mib'], 'VmHWM')} "
            f"| {r['wall_seconds']:,.0f} |")


def table(results: list[Result]) -> str:
    lines = []
    for r in results:
        m = r["machine"]
        lines.append(f"* {r['facts_target']:,}: commit {r['commit']}"
                     f"{' (dirty)' if r['dirty_worktree'] else ''}, {r['date_utc']}, "
                     f"{m['cpu']} ({m['cores']} cores, {m['memory_gib']} GiB), "
                     f"heap {r['server'].get('heap', '?')}")
    return "\n".join([
        *lines, "",
        "| facts | companies | rows | ingest rows/s | facts/s | vs raw | read p50 ms "
        "| read p95 ms | question p95 ms | cascade reached | cascade s | disk MiB (growth) "
        "| heap used MiB | JVM peak RSS MiB | wall s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *(row(r) for r in results),
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facts", default="1000000",
                        help="comma-separated sizes, one JSON each (default 1000000)")
    parser.add_argument("--reads", type=int, default=300, help="timed as-of point reads")
    parser.add_argument("--questions", type=int, default=40, help="distinct metric questions")
    parser.add_argument("--repeat", type=int, default=5, help="warm rounds over the questions")
    parser.add_argument("--neo4j-uri", default=None,
                        help="use this server instead of starting a private one")
    parser.add_argument("--keep-server", action="store_true",
                        help="leave the server the bench started running")
    parser.add_argument("--keep-tenant", action="store_true", help="do not purge the tenant")
    parser.add_argument("--out", type=Path, default=None,
                        help="JSON path (one size only; default bench/results/scale-N.json)")
    parser.add_argument("--table", type=Path, nargs="+", default=None,
                        help="print the table of these result files and exit")
    args = parser.parse_args(argv)
    if args.table:
        print(table([json.loads(p.read_text(encoding="utf-8")) for p in args.table]))
        return 0
    try:
        sizes = [int(s.replace("_", "")) for s in args.facts.split(",") if s.strip()]
    except ValueError:
        parser.error(f"--facts takes whole numbers, comma-separated: {args.facts!r}")
    if not sizes or min(sizes) < scale_data.FACTS_PER_SUBJECT:
        parser.error(f"--facts must be at least {scale_data.FACTS_PER_SUBJECT}")
    if min(args.reads, args.questions, args.repeat) < 1:
        parser.error("--reads, --questions and --repeat must be at least 1")
    if args.out is not None and len(sizes) > 1:
        parser.error("--out names one file: give one size with it")
    uri, auth, pid, server = _server(args)
    results = []
    try:
        for n in sizes:
            load_before, provenance = os.getloadavg(), report.provenance()
            began = time.perf_counter()
            result = {**provenance, "machine": report.machine(), "server": server,
                      **run_size(args, n, uri, auth, pid),
                      "wall_seconds": time.perf_counter() - began,
                      "loadavg_before_after": [load_before, os.getloadavg()]}
            out = args.out or Path(f"bench/results/scale-{n}.json")
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(result, indent=2, default=str) + "\n", encoding="utf-8")
            say(f"JSON: {out}")
            results.append(result)
    finally:
        if server["started_by_bench"] and not args.keep_server:
            from vintage.graph.neo4j import launcher as neo4j_launcher

            neo4j_launcher.stop()
    print(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
