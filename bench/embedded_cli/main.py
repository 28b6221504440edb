"""``python -m bench.embedded_cli [--old-vintage PATH] [--runs N] [--out FILE]``: what a user
waits for when each command is a new process on an embedded store holding the six bundled
companies (issue 39: "a new process running asof, facts, remember, memories and search").

Each ``vintage`` given (the installed one beside this Python, and ``--old-vintage``: the command
of an older checkout, such as the log-replay store's) gets a store of its own in a scratch
folder: the six companyfacts files are ingested (timed), one search indexes the store (timed
apart: a search that must index first is outside the targets), then each command runs ``--runs``
times as a fresh process, p50 and p95 of the wall time; the two commands take turns, run by
run. Targets: p95 <= 1 s per command.

``--store-from DIR`` (and ``--old-store-from DIR`` for the old command) start from a copy of a
store that already holds the six companies, indexed, instead of ingesting and indexing anew
(the first search embeds every fact: minutes on a loaded machine); the ingest and the first
search are then not measured, and the first command on the copy (which may convert it to the
command's schema) is timed apart as ``first_command_s``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.report import machine, provenance
from vintage.ingest.bundled import COMPANYFACTS

REPO = Path(__file__).resolve().parents[2]
TARGET_P95_S = 1.0
TENANT = "sec"


def commands(run: int) -> dict[str, list[str]]:
    """The commands timed, as a user types them (each run its own memory key)."""
    return {
        "asof": ["asof", "operating_margin", "--subject", "GOOGL", "--cutoff", "2019-06-30"],
        "facts": ["facts", "us-gaap:OperatingIncomeLoss", "--subject", "GOOGL", "--cutoff",
                  "2018-06-30"],
        "remember": ["--tenant", "other", "remember", "preference", "user:42",
                     f"bench.note.{run}", "ship to the office", "--user", "42",
                     "--source-kind", "user_message", "--source-id", f"m{run}",
                     "--observed-at", "2026-01-05", "--owner", "user:42", "--reason", "bench"],
        "memories": ["--tenant", "other", "memories", "user:42", "--user", "42"],
        "search": ["search", "operating income", "--subject", "GOOGL"],
    }


def timed(vintage: str, store: Path, args: list[str]) -> float:
    env = dict(os.environ, VINTAGE_STORE=str(store), VINTAGE_TENANT=TENANT)
    # A user's Python keeps the bytecode it compiles (pip compiles a wheel's at install): a
    # shell that sets PYTHONDONTWRITEBYTECODE (CI images, this sandbox) would make every timed
    # process compile the package from source again, about 0.1 s no user pays. The first
    # command on a store is timed apart, and it writes the bytecode for the rest.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    began = time.perf_counter()
    done = subprocess.run([vintage, *args], capture_output=True, text=True, env=env, check=False)
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"{vintage} {' '.join(args)}: exit {done.returncode}: "
                         f"{done.stderr.strip()[-300:]}")
    return seconds


def _q(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def prepare(vintage: str, store: Path, source: Path | None) -> dict[str, Any]:
    """The command's store: a copy of ``source``, or the six files ingested and indexed."""
    out: dict[str, Any] = {"vintage": vintage}
    if source is not None:
        shutil.copytree(source, store)
        out["copied_from"] = str(source)
        out["first_command_s"] = round(timed(vintage, store, commands(0)["search"]), 2)
    else:
        files = sorted(str(p) for p in COMPANYFACTS.glob("*.json.gz"))
        out["ingest_s"] = round(timed(vintage, store, ["ingest", "companyfacts", *files]), 2)
        out["first_search_s"] = round(timed(vintage, store, commands(0)["search"]), 2)
    out["store_mib"] = round(sum(f.stat().st_size for f in store.rglob("*") if f.is_file())
                             / 1024**2, 1)
    return out


def measure(vintages: list[tuple[str, str, Path | None]], runs: int) -> dict[str, Any]:
    """Each command of each run timed for every vintage in turn, so that a shared machine's
    load, which changes by the minute, weighs on them alike."""
    with tempfile.TemporaryDirectory(prefix="vintage-bench-cli-") as scratch:
        stores = {label: Path(scratch) / label for label, _, _ in vintages}
        out = {}
        for label, vintage, source in vintages:
            print(f"{label}: {vintage}", flush=True)
            out[label] = prepare(vintage, stores[label], source)
        seconds: dict[str, dict[str, list[float]]] = {
            label: {name: [] for name in commands(0)} for label, _, _ in vintages}
        for run in range(1, runs + 1):
            for name, args in commands(run).items():
                for label, vintage, _ in vintages:
                    seconds[label][name].append(timed(vintage, stores[label], args))
        for label, _, _ in vintages:
            out[label]["commands"] = {
                name: {"p50_s": round(_q(v, 50), 3), "p95_s": round(_q(v, 95), 3),
                       "met": _q(v, 95) <= TARGET_P95_S}
                for name, v in seconds[label].items()}
            print(json.dumps(out[label], indent=1), flush=True)
        return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.embedded_cli")
    parser.add_argument("--old-vintage", help="an older checkout's vintage command, side by side")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--store-from", type=Path,
                        help="a store holding the six companies, indexed, copied for the command")
    parser.add_argument("--old-store-from", type=Path, help="the same, for --old-vintage")
    parser.add_argument("--out", type=Path,
                        default=REPO / "bench" / "results" / "embedded-cli.json")
    args = parser.parse_args(argv)
    current = shutil.which("vintage", path=str(Path(sys.executable).parent))
    if current is None:
        raise SystemExit("the vintage command is not installed beside this Python")
    result: dict[str, Any] = {"machine": machine(), **provenance(), "runs": args.runs,
                              "stores": {}}
    vintages = [(label, vintage, source) for label, vintage, source in (
        ("current", current, args.store_from), ("old", args.old_vintage, args.old_store_from))
        if vintage is not None]
    result["stores"] = measure(vintages, args.runs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"written: {args.out}")
    return 0
