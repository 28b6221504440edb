"""How long ``vintage mcp`` takes to answer its first ``initialize`` over stdio (issue 39).

    python -m bench.mcp_start [--runs 3] [--old-vintage /path/to/old/.venv/bin/vintage]

A scratch embedded store with one agent key; each run starts ``vintage --store S mcp --key K``
as a client would, writes the ``initialize`` request and times until its answer's line arrives
(wall), and the process's CPU seconds (user + system, until it exits once stdin closes; the
wall time on a shared machine is mostly waiting for a core). It also counts the lines the
server wrote on stderr (a client shows them to its user: quiet means none). With
``--old-vintage`` the runs alternate between the two commands, on the same store.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(sys.executable).parent / "vintage"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "bench.mcp_start", "version": "0"}}}


def once(vintage: str, store: str, key: str) -> tuple[float, float, int]:
    """(seconds to the answer, CPU seconds of the process, lines on stderr)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    server = subprocess.Popen([vintage, "--store", store, "mcp", "--key", key],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(json.dumps(INITIALIZE) + "\n")
    server.stdin.flush()
    answer = json.loads(server.stdout.readline())
    seconds = time.perf_counter() - started
    assert "result" in answer, answer
    _, err = server.communicate(timeout=60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return seconds, cpu, len(err.splitlines())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--old-vintage", help="another checkout's vintage, run alternately")
    args = parser.parse_args()
    commands = {"now": str(HERE)} | ({"old": args.old_vintage} if args.old_vintage else {})
    with tempfile.TemporaryDirectory() as tmp:
        store = str(Path(tmp) / "store")
        made = subprocess.run([str(HERE), "--store", store, "--tenant", "bench", "keys",
                               "create", "--role", "agent", "--user", "42", "--json"],
                              capture_output=True, text=True, check=True)
        key = json.loads(made.stdout)["key"]
        seen: dict[str, list[tuple[float, float, int]]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, vintage in commands.items():
                seen[name].append(once(vintage, store, key))
    print("| command | to initialize, s (median, max) | CPU s (median, max) | stderr lines |")
    print("|---|---:|---:|---:|")
    for name, runs in seen.items():
        wall, cpu, lines = zip(*runs, strict=True)
        print(f"| {name} | {statistics.median(wall):.2f}, {max(wall):.2f} | "
              f"{statistics.median(cpu):.2f}, {max(cpu):.2f} | {max(lines)} |")
    return 0
