"""Load on the HTTP service: concurrent clients on loopback against ``vintage serve``'s app,
embedded and Neo4j, with a mixed workload of search, an as-of metric read and remember.

    python -m bench.service_load [--clients 16] [--seconds 30] [--memories 2000]
                                 [--backends embedded,neo4j] [--quick] [--out FILE]

Each backend gets a fresh store (embedded: a temporary directory; Neo4j: a fresh tenant on the
running launcher server, purged at the end) seeded with ``--memories`` memories over 200 users and
the bundled SEC demo facts, then the real app (``vintage.http.app.create_app``) is served by uvicorn
in this process on a free loopback port. A writer key is created the way ``vintage keys``
makes one. One warm-up search (it loads the model and indexes what is new) runs before the
clock starts. Then ``--clients`` threads, each with its own connection (standard library
``http.client``), loop over search / metric / remember for ``--seconds``. Any non-2xx answer
is an error (there must be none). ``--quick``: 3 s, 4 clients, 200 memories, embedded only.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import statistics
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import uvicorn

from vintage.demo import DEMO_TENANT, run_demo
from vintage.graph.access import create_key
from vintage.graph.memory.gate import Decision, MemoryIn
from vintage.graph.memory.remember import remember
from vintage.graph.neo4j import launcher
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.store.backends import open_store
from vintage.graph.store.protocol import Store
from vintage.http.app import create_app

OPS = ("search", "metric", "remember")
WORDS = ("shipping address", "gift wrap", "window seat", "vegetarian meal", "invoice email",
         "dark mode", "weekly digest", "phone support", "express delivery", "metric units")


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {op: [] for op in OPS})
    errors: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OPS, 0))
    lock: threading.Lock = field(default_factory=threading.Lock)


def seed(store: Store, tenant: str, memories: int) -> str:
    """``memories`` memories over 200 users and the SEC demo facts; a writer key."""
    for i in range(memories):
        user, word = i % 200, WORDS[i % len(WORDS)]
        done = remember(store, MemoryIn(
            kind="preference", tenant=tenant, subject=f"user:{user}", key=f"pref.{i}",
            value=f"prefers {word} option {i}", source_kind="agent_output",
            source_id=f"seed-{i}", observed_at=store.now(), owner=f"user:{user}",
            retention_reason="bench", user=str(user)), actor="bench")
        assert done.decision not in (Decision.REFUSED, Decision.CONFLICT), done.reason
    run_demo(store, tenant=tenant)
    return create_key(store, tenant, "writer", name="bench", actor="bench")[1]


def request(op: str, n: int) -> tuple[str, str, dict[str, Any] | None]:
    user = n % 200
    if op == "search":
        return "POST", "/v1/search", {"query": WORDS[n % len(WORDS)], "user": str(user),
                                      "limit": 10}
    if op == "metric":
        return ("GET", "/v1/metrics/revenue?subject=GOOGL&cutoff=2019-03-01&period=FY2018",
                None)
    return "POST", "/v1/memories", {
        "kind": "preference", "subject": f"user:{user}", "key": f"load.{uuid.uuid4().hex[:8]}",
        "value": f"prefers {WORDS[n % len(WORDS)]}", "source_kind": "agent_output",
        "source_id": f"load-{uuid.uuid4().hex[:12]}", "observed_at": datetime.now(UTC).isoformat(),
        "owner": f"user:{user}", "retention_reason": "bench", "user": str(user)}


def client(port: int, key: str, until: float, seed_n: int, tally: Tally) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    n = seed_n
    while time.monotonic() < until:
        op = OPS[n % len(OPS)]
        method, path, body = request(op, n)
        started = time.perf_counter()
        try:
            conn.request(method, path, json.dumps(body) if body else None, headers)
            answer = conn.getresponse()
            answer.read()
            ok = 200 <= answer.status < 300
        except (OSError, http.client.HTTPException):
            ok = False
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        took = time.perf_counter() - started
        with tally.lock:
            tally.latencies[op].append(took)
            tally.errors[op] += not ok
        n += 7
    conn.close()


def serve(open_fn: Any) -> tuple[uvicorn.Server, threading.Thread, int]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(open_fn), host="127.0.0.1", port=port,
                                           log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    return server, thread, port


def run_backend(backend: str, clients: int, seconds: float, memories: int) -> dict[str, Any]:
    tenant = f"bench-{uuid.uuid4().hex[:8]}" if backend == "neo4j" else DEMO_TENANT
    with tempfile.TemporaryDirectory() as scratch:
        target = launcher.ensure_running() if backend == "neo4j" else str(Path(scratch) / "s")
        store = open_store(target)
        seeded = time.perf_counter()
        key = seed(store, tenant, memories)
        seeded = time.perf_counter() - seeded
        store.close()
        server, thread, port = serve(lambda: open_store(target))
        try:
            warm = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            warm.request("POST", "/v1/search", json.dumps({"query": "warm up", "user": "0"}),
                         {"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
            assert warm.getresponse().status == 200
            warm.close()
            tally = Tally()
            until = time.monotonic() + seconds
            threads = [threading.Thread(target=client, args=(port, key, until, i, tally))
                       for i in range(clients)]
            started = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed = time.perf_counter() - started
        finally:
            server.should_exit = True
            thread.join(timeout=60)
            if backend == "neo4j":
                purge = open_store(target)
                assert isinstance(purge, Neo4jStore)
                purge.purge_tenant(tenant)
                purge.close()
    return summary(backend, tally, elapsed, clients, memories, seeded)


def summary(backend: str, tally: Tally, elapsed: float, clients: int, memories: int,
            seeded: float) -> dict[str, Any]:
    ops = {}
    for op in OPS:
        lat = sorted(tally.latencies[op])
        q = statistics.quantiles(lat, n=100, method="inclusive") if len(lat) > 1 else lat * 99
        ops[op] = {"requests": len(lat), "per_s": len(lat) / elapsed, "p50_ms": q[49] * 1e3,
                   "p95_ms": q[94] * 1e3, "p99_ms": q[98] * 1e3, "errors": tally.errors[op]}
    total = sum(o["requests"] for o in ops.values())
    return {"backend": backend, "clients": clients, "seconds": elapsed, "memories": memories,
            "seed_seconds": seeded, "requests": total, "per_s": total / elapsed,
            "errors": sum(o["errors"] for o in ops.values()), "ops": ops}


def table(results: list[dict[str, Any]]) -> str:
    rows = ["| backend | operation | requests | req/s | p50 ms | p95 ms | p99 ms | errors |",
            "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        for op, o in r["ops"].items():
            rows.append(f"| {r['backend']} | {op} | {o['requests']:,} | {o['per_s']:.1f} | "
                        f"{o['p50_ms']:.1f} | {o['p95_ms']:.1f} | {o['p99_ms']:.1f} | "
                        f"{o['errors']} |")
        rows.append(f"| {r['backend']} | **all** | {r['requests']:,} | {r['per_s']:.1f} | | | "
                    f"| {r['errors']} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(prog="bench.service_load")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--backends", default="embedded,neo4j")
    parser.add_argument("--quick", action="store_true", help="3 s, 4 clients, embedded")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if args.quick:
        args.clients, args.seconds, args.memories, args.backends = 4, 3.0, 200, "embedded"
    results = [run_backend(b.strip(), args.clients, args.seconds, args.memories)
               for b in args.backends.split(",")]
    print(table(results))
    if args.out:
        args.out.write_text(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
