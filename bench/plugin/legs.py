"""One leg of the plugin bench: the bench's database home restarted with Vintage's plugin jar in
its plugins/ directory (``b``) or with that directory empty (``c``, a stock Neo4j: the Python
side's handshake finds no plugin and everything runs in Cypher), then every query asked in
every mode, timed as ``bench.retrieval.run`` times a search.

A shared machine's load moves every latency, so legs alternate (b, c, b, c, ...) on the same
database, and only figures of one run are compared; each leg records the load average
(``uptime``) before and after it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bench.retrieval import profile as retrieval_profile
from bench.retrieval.load import Cached
from bench.retrieval.main import neo4j_stores
from bench.retrieval.queries import Query
from bench.retrieval.run import MODES, Answer, Truth, percentile, run, score
from vintage.graph.neo4j import launcher, ranker
from vintage.graph.neo4j.store import Neo4jStore
from vintage.queries.search.fusion import Mode

# What each leg lays in the server's plugins/ directory (launcher.PLUGINS_ENV).
PLUGINS = {"b": "vintage", "c": "none"}
KINDS = {"b": "stock Neo4j 5.26 + the plugin jar from plugins/",
         "c": "the same Neo4j, plugins/ empty (Cypher fallback)"}
PROFILED = 30  # the slowest hybrid searches of a kind profiled in its last leg
Result = dict[str, Any]


class LegError(RuntimeError):
    """A leg that did not run as asked (its server's handshake said otherwise)."""


def say(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def uptime() -> Result:
    """The load average as ``uptime`` prints it, and as numbers."""
    shown = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout
    return {"uptime": shown.strip(), "loadavg": list(os.getloadavg())}


def restart(kind: str) -> launcher.ServerInfo:
    """The bench's home (``VINTAGE_NEO4J_HOME``) stopped and started again as ``kind``."""
    launcher.stop()
    os.environ[launcher.PLUGINS_ENV] = PLUGINS[kind]
    return launcher.start()


def connect(kind: str, keys: Path) -> tuple[Neo4jStore, Neo4jStore, Any]:
    """The loading store, the searching store and a driver, on a server restarted as ``kind``;
    refused when the handshake does not find what the leg laid (the plugin used in b only)."""
    info = restart(kind)
    store, searcher, driver = neo4j_stores(info.uri, launcher.auth(), keys, False)
    if store.procedures != (kind == "b"):
        for closing in (driver, searcher, store):
            closing.close()
        raise LegError(f"leg {kind}: the handshake says the plugin is "
                       f"{'used' if store.procedures else 'not used'}; {KINDS[kind]} expected")
    return store, searcher, driver


def warm_columns(store: Neo4jStore, tenants: Mapping[str, str]) -> dict[str, int]:
    """Build the ranker's columns of every tenant before timing (b only): a restarted server
    has none, and a search that finds none ranks in Cypher while a build runs behind it; a
    service that has been up a while has them."""
    return {t: int(store.run(ranker.build_columns(name))[0]["entries"])
            for t, name in tenants.items()}


def latencies(queries: Sequence[Query],
              answers: Sequence[Answer]) -> dict[str, dict[str, list[float]]]:
    """Per mode, the milliseconds of the memory searches and of the SEC ones (failed ones
    have none)."""
    tenant = {q.id: q.tenant for q in queries}
    out: dict[str, dict[str, list[float]]] = {}
    for a in answers:
        if a.error is None:
            part = "sec" if tenant[a.query] == "sec" else "memories"
            out.setdefault(a.mode, {"memories": [], "sec": []})[part].append(a.ms)
    return out


def figures(ms: Mapping[str, Sequence[float]]) -> Result:
    every = [*ms["memories"], *ms["sec"]]
    return {f"{part}_{p}": percentile(values, n)
            for part, values in (("all", every), ("memories", ms["memories"]), ("sec", ms["sec"]))
            for p, n in (("p50_ms", 50), ("p95_ms", 95))}


def summary(queries: Sequence[Query], answers: Sequence[Answer], truth: Truth) -> Result:
    """Per mode: the latencies of memories and filings apart, recall@5, illegal items and
    failed searches (``bench.retrieval.run.score``'s, for the query set)."""
    scored = score(queries, answers, truth)
    timed = latencies(queries, answers)
    return {mode: {**figures(timed.get(mode, {"memories": [], "sec": []})),
                   "recall@5": m["recall@5"], "illegal": m["illegal"],
                   "illegal_considered": m["illegal_considered"], "errors": m["errors"]}
            for mode, m in scored.items()}


def leg(kind: str, keys: Path, tenants: Mapping[str, str], queries: Sequence[Query],
        truth: Truth, embedder: Cached,
        profile_of: Mapping[str, Sequence[Query]] | None = None,
        modes: Sequence[Mode] = MODES) -> tuple[Result, list[Answer]]:
    """Restart as ``kind``, ask every query in every mode; ``profile_of``: queries to profile
    after timing (:func:`profile`)."""
    out: Result = {"kind": kind, "server": KINDS[kind], "load_before": uptime()}
    began = time.perf_counter()
    store, searcher, driver = connect(kind, keys)
    try:
        out["procedures"] = store.procedures
        out["columns"] = warm_columns(store, tenants) if kind == "b" else {}
        say(f"leg {kind}: {len(queries)} queries x {len(modes)} modes ({KINDS[kind]})")
        t0 = time.perf_counter()
        answers = run(searcher, embedder, list(queries), dict(tenants), modes, say=say)
        out["search_seconds"] = time.perf_counter() - t0
        out["modes"] = summary(queries, answers, truth)
        if profile_of:
            say(f"leg {kind}: profiling the slowest hybrid searches")
            out["profile"] = profile(searcher, embedder, profile_of, tenants, kind)
    finally:
        for closing in (driver, searcher, store):
            closing.close()
    out["seconds"] = time.perf_counter() - began
    out["load_after"] = uptime()
    return out, answers


def profile(store: Neo4jStore, embedder: Cached, groups: Mapping[str, Sequence[Query]],
            tenants: Mapping[str, str], kind: str) -> Result:
    """Per group (memories, SEC): a cProfile of its searches and, on c, ``PROFILE`` of the
    ranking statement the fallback sends (``cypher_search.rank``) for its two slowest."""
    out: Result = {}
    for name, queries in groups.items():
        out[name] = {"queries": [q.id for q in queries],
                     "cprofile": retrieval_profile.cprofile(store, embedder, queries, tenants)}
        if kind == "c":
            plans = []
            for q in queries[:2]:
                try:
                    plans.append(retrieval_profile.neo4j_plan(store, embedder, q, tenants))
                except Exception as e:  # the profile explains; it must not end the run
                    plans.append({"query": q.id, "error": f"{type(e).__name__}: {str(e)[:200]}"})
            out[name]["plans"] = plans
    return out


def slowest(queries: Sequence[Query], answers: Sequence[Answer],
            n: int = PROFILED) -> dict[str, list[Query]]:
    """The ``n`` slowest hybrid searches of a leg, memories and filings apart."""
    ms = {a.query: a.ms for a in answers if a.mode == "hybrid" and a.error is None}
    return {name: retrieval_profile.slowest(
        [q for q in queries if q.id in ms and (q.tenant == "sec") == sec], ms, n)
        for name, sec in (("memories", False), ("sec", True))}


def differences(a: Sequence[Answer], b: Sequence[Answer]) -> list[list[Any]]:
    """Searches whose results (ids, in order) differ between two legs: the Cypher fallback is
    held to the plugin's answers, so every one is a finding."""
    theirs = {(x.query, x.mode): x for x in b}
    out = []
    for x in a:
        y = theirs.get((x.query, x.mode))
        if y is None or x.ids != y.ids or (x.error is None) != (y.error is None):
            out.append([x.query, x.mode, list(x.ids),
                        None if y is None else list(y.ids), x.error,
                        None if y is None else y.error])
    return out
