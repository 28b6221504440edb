"""``vintage serve`` for real: a process listening on loopback, called over TCP with a key,
stopped by a signal, leaving its store closed and what it wrote kept."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest

from tests.factories import mine, run
from vintage.graph.access import create_key
from vintage.graph.store.backends import open_store
from vintage.queries.memory.recall import recall

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def up(base: str, server: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert server.poll() is None, server.communicate()[1].decode()
        try:
            if httpx2.get(f"{base}/healthz", timeout=1).status_code == 200:
                return
        except httpx2.TransportError:
            time.sleep(0.1)
    raise AssertionError("vintage serve did not answer")


def test_vintage_serve_answers_on_loopback_and_stops_on_a_signal(tmp_path: Path) -> None:
    directory = str(tmp_path / "store")
    store = open_store(directory)
    principal, key = create_key(store, "acme", "writer", user="42", name="web", actor="test")
    store.close()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("VINTAGE_")}
    server = subprocess.Popen(
        [sys.executable, "-c", "from vintage.cli.main import main; main()", "--store", directory,
         "serve", "--port", str(port), "--log-level", "info"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        up(base, server)
        with httpx2.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}) as client:
            assert client.get("/readyz").json()["status"] == "ready"
            written = client.post("/v1/memories", json={
                "kind": "preference", "subject": "user:42", "key": "shipping.preference",
                "value": "ship to the office", "source_kind": "user_message",
                "source_id": "msg-1", "observed_at": "2026-01-01T00:00:00Z",
                "owner": "user:42", "retention_reason": "asked"})
            assert written.status_code == 201, written.text
            assert httpx2.get(f"{base}/v1/memories?subject=user:42").status_code == 401
    finally:
        server.send_signal(signal.SIGTERM)
        _, err = server.communicate(timeout=30)
    # uvicorn shuts the app down (the lifespan closes the store), then re-raises the signal.
    assert server.returncode in (0, -signal.SIGTERM), err.decode()
    assert "Application shutdown complete" in err.decode()
    reopened = open_store(directory)  # the service closed it: the lock is free again
    try:
        found = recall(reopened, mine(principal.scope()), "user:42")
        assert [m.value for m in found] == ["ship to the office"]
    finally:
        reopened.close()


def test_a_200_kb_query_string_is_answered_414_not_a_reset_connection(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("VINTAGE_")}
    server = subprocess.Popen(
        [sys.executable, "-c", "from vintage.cli.main import main; main()", "--store",
         str(tmp_path / "store"), "serve", "--port", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        up(f"http://127.0.0.1:{port}", server)
        answered = b""
        with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
            # Sent whole: the server refuses after its first 16 KiB, while the rest is coming.
            client.sendall(b"GET /v1/search?q=" + b"a" * 200_000 + b" HTTP/1.1\r\n"
                           b"Host: localhost\r\n\r\n")
            while chunk := client.recv(65536):
                answered += chunk
    finally:
        server.send_signal(signal.SIGTERM)
        server.communicate(timeout=30)
    assert answered.startswith(b"HTTP/1.1 414 Request-URI Too Long\r\n"), answered[:80]
    assert answered.endswith(b"request line too long: at most 8192 bytes of path and query "
                             b"string; send large inputs in a POST body")


def test_an_address_the_server_cannot_listen_on_is_one_line_before_it_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    # uvicorn printed its startup lines, then its error, and exited 1 or 3.
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        for args, said in (
            (["serve", "--port", port], f"cannot listen on 127.0.0.1:{port}: Address already "
                                        "in use"),
            (["serve", "--host", "no such host", "--port", port],
             f"cannot listen on no such host:{port}: "),
            (["--tenant", "t", "mcp", "--key", "vk_x", "--transport", "http", "--port", port],
             f"cannot listen on 127.0.0.1:{port}: Address already in use"),
        ):
            code, out, err = run(["--store", str(tmp_path / "store"), *args], capsys,
                                 monkeypatch)
            assert (code, out) == (2, "") and err.startswith(f"error: {said}"), err
            assert err.count("\n") == 1


def test_serve_refuses_a_store_uri_with_a_password_before_printing_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    # It printed "serving bolt://neo4j:hunter2@…" and then failed in uvicorn's startup.
    code, out, err = run(["--store", "bolt://neo4j:hunter2@127.0.0.1:7687", "serve", "--port",
                          "1"], capsys, monkeypatch)
    assert (code, out) == (2, "") and "hunter2" not in err and err.count("\n") == 1
    assert "carries a user name or password" in err
