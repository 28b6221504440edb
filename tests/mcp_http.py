"""``vintage mcp --transport http`` as a real subprocess, for the tests that must reach it over
HTTP (tests/test_mcp.py: quiet on stderr; tests/test_mcp_literals.py: a literal out of range
answered with a 400): on a free port, as one key, ready once it answers anything, stopped
with SIGTERM, its stderr kept for the test to read."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx2

READY_S = 60


@dataclass
class McpOverHttp:
    url: str  # the MCP endpoint, http://127.0.0.1:PORT/mcp
    stderr: str = ""  # what the server wrote to stderr, once it has stopped


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def mcp_over_http(store: Path, keys: Path, key: str) -> Iterator[McpOverHttp]:
    """The server on ``store`` as ``key`` (``keys``: the key file), once it answers a GET of
    its endpoint (any status: it serves); a server that ends or does not answer within a
    minute fails the test, naming what it said."""
    port = free_port()
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "vintage"), "--store", str(store), "mcp",
         "--transport", "http", "--port", str(port)],
        env={**os.environ, "VINTAGE_KEY": key, "VINTAGE_KEYS": str(keys)},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    served = McpOverHttp(f"http://127.0.0.1:{port}/mcp")
    try:
        deadline = time.monotonic() + READY_S
        while True:
            try:
                httpx2.get(served.url, timeout=1)
                break
            except httpx2.TransportError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("vintage mcp did not serve: "
                                         + server.communicate(timeout=30)[1].decode()) from None
                time.sleep(0.1)
        yield served
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
        served.stderr = server.communicate(timeout=30)[1].decode()
