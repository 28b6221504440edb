"""Over MCP a number literal a 64-bit float cannot hold is refused as on the command line and
over HTTP (issue 40), not stored as 0: the SDK decodes JSON before a tool sees it, so ``vintage
mcp`` reads each stdio line as written first (``vintage.mcp.strict``). Driven with raw JSON-RPC
lines through a real ``vintage mcp`` subprocess: no client library can even send ``1e-400``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx2

from tests.factories import PinnedClock, mine
from tests.mcp_http import mcp_over_http
from tests.test_mcp import key_of
from vintage.graph.core.model import Scope
from vintage.graph.sealing.keyfile import FileKeyStore
from vintage.graph.sqlite.store import SqliteStore
from vintage.graph.store.backends import system_clock
from vintage.mcp.strict import refusal
from vintage.queries.memory.recall import recall

TOO_SMALL = "number 1e-400 is too small for a 64-bit float: it would be stored as 0"
MEMORY = ('{"kind": "preference", "subject": "user:42", "key": "KEY", "value": VALUE, '
          '"source_kind": "agent_output", "source_id": "run-N", "observed_at": '
          '"2026-06-01T11:00:00Z", "owner": "user:42", "retention_reason": "asked"}')


def call(n: int, key: str, literal: str) -> str:
    arguments = MEMORY.replace("KEY", key).replace("VALUE", literal).replace("N", str(n))
    return ('{"jsonrpc": "2.0", "id": ' + str(n) + ', "method": "tools/call", "params": '
            '{"name": "remember", "arguments": ' + arguments + "}}")


def test_a_request_holding_an_out_of_range_literal_is_refused_naming_the_bound() -> None:
    refused = refusal(call(7, "tiny", "1e-400"))
    assert refused is not None
    assert (refused.id, refused.error.code) == (7, -32602)
    assert refused.error.message.startswith(TOO_SMALL)
    assert refusal(call(8, "huge", "1e400")) is not None
    assert refusal(call(9, "small", "4.9e-324")) is None  # the smallest float: as written
    assert refusal(call(10, "zero", "0.0e-400")) is None  # a zero is a zero
    long = refusal(call(11, "long", "7" * 5000))  # Python's own int() refuses over 4,300
    assert long is not None and (long.id, long.error.code) == (11, -32602)
    assert long.error.message.startswith("integer 777") and "64-bit range" in long.error.message
    deep = refusal(call(12, "deep", "[" * 5000 + "]" * 5000))
    assert deep is not None and deep.id is None and "nested too deeply" in deep.error.message
    twice = refusal(call(13, "twice", '"v", "value": "w"'))  # the SDK kept the last
    assert twice is not None and (twice.id, twice.error.code) == (13, -32602)
    assert twice.error.message == "a JSON object names 'value' twice: give it once"
    notified = refusal('{"jsonrpc": "2.0", "method": "n", "params": {"x": 1e-999}}')
    assert notified is not None and notified.id is None  # no answer over stdio, 400 over HTTP


def test_vintage_mcp_over_stdio_refuses_1e_400_and_a_line_of_no_json_then_serves_on(
        tmp_path: Path, clock: PinnedClock, tenant: str) -> None:
    store = SqliteStore.open(tmp_path / "store", clock, FileKeyStore(tmp_path / "keys"))
    key = key_of(store, tenant, "agent", user="42", name="stdio-bot")
    store.close()  # one process holds an embedded store: the server's, now
    lines = [
        '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": '
        '"2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}',
        '{"jsonrpc": "2.0", "method": "notifications/initialized"}',
        call(2, "tiny", "1e-400"), "{not json", call(3, "fine", "0.25")]
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "vintage"), "--store", str(tmp_path / "store"),
         "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env={**os.environ, "VINTAGE_KEY": key, "VINTAGE_KEYS": str(tmp_path / "keys")},
        cwd=str(Path(__file__).resolve().parents[1]))
    watchdog = threading.Timer(120, server.kill)  # a server that stops answering fails the test
    watchdog.start()
    answers: dict[int | None, Any] = {}
    try:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write("\n".join(lines) + "\n")
        server.stdin.flush()
        while len(answers) < 4 and (line := server.stdout.readline()):
            message = json.loads(line)
            answers[message["id"]] = message
        server.stdin.close()  # end of input: the server stops
        server.wait(timeout=60)
        err = server.stderr.read() if server.stderr is not None else ""
    finally:
        watchdog.cancel()
        server.kill()
        for pipe in (server.stdout, server.stderr):
            if pipe is not None:
                pipe.close()
    assert answers[2]["error"]["code"] == -32602, err
    assert answers[None]["error"]["code"] == -32700  # a line that is no JSON: a parse error
    assert answers[2]["error"]["message"].startswith(TOO_SMALL)
    assert answers[3]["result"]["structuredContent"]["decision"] == "candidate", answers[3]
    # Read at the server's clock (the real one): the pinned one is before its writes.
    store = SqliteStore.open(tmp_path / "store", system_clock, FileKeyStore(tmp_path / "keys"))
    try:
        held = recall(store, mine(Scope(tenant=tenant)), "user:42", candidates=True)
        assert [(m.key, m.value) for m in held] == [("fine", 0.25)]
    finally:
        store.close()


def test_vintage_mcp_over_http_answers_1e_400_with_a_400_naming_the_bound(
        tmp_path: Path, clock: PinnedClock, tenant: str) -> None:
    store = SqliteStore.open(tmp_path / "store", clock, FileKeyStore(tmp_path / "keys"))
    key = key_of(store, tenant, "agent", user="42", name="http-bot")
    store.close()
    headers = {"content-type": "application/json",
               "accept": "application/json, text/event-stream"}
    with mcp_over_http(tmp_path / "store", tmp_path / "keys", key) as served:
        answer = httpx2.post(served.url, content=call(2, "tiny", "1e-400"), headers=headers,
                             timeout=5)
        assert answer.status_code == 400, answer.text
        error = answer.json()
        assert (error["id"], error["error"]["code"]) == (2, -32602)
        assert error["error"]["message"].startswith(TOO_SMALL)
        # Any other body still reaches the SDK (here: no session yet, its own 400).
        other = httpx2.post(served.url, content=call(3, "fine", "0.25"), headers=headers,
                            timeout=5)
        assert "too small" not in other.text
