"""``vintage --server URL``: the command line as a client of a real ``vintage serve`` on
loopback, as the key's principal. Its output is the local command's; a refusal is one line with
the local exit code; a command the API does not serve yet is refused, naming it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from graph.access import create_key
from graph.backends import open_store
from tests.test_http_serve import ROOT, free_port, up

CLI = [sys.executable, "-c", "from api.cli import main; main()"]
REMEMBER = ["remember", "preference", "user:42", "shipping.preference", "ship to the office",
            "--source-kind", "user_message", "--source-id", "msg-1", "--owner", "user:42",
            "--reason", "asked", "--observed-at", "2026-01-01T00:00:00Z", "--json"]


@dataclass
class Served:
    base: str
    directory: str
    writer: str
    agent: str


def env() -> dict[str, str]:
    kept = {k: v for k, v in os.environ.items() if not k.startswith("VINTAGE_")}
    return kept | {"COLUMNS": "240"}  # a table as wide as its cells, not cut to 80


def vintage(*args: str, key: str | None = None) -> subprocess.CompletedProcess[str]:
    extra = {"VINTAGE_KEY": key} if key else {}
    return subprocess.run([*CLI, *args], cwd=ROOT, env=env() | extra, capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    directory = str(tmp_path_factory.mktemp("served") / "store")
    store = open_store(directory)
    _, writer = create_key(store, "acme", "writer", user="42", actor="test")
    _, agent = create_key(store, "acme", "agent", user="42", actor="test")
    store.close()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([*CLI, "--store", directory, "serve", "--port", str(port)],
                              cwd=ROOT, env=env(), stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    try:
        up(base, server)
        yield Served(base, directory, writer, agent)
    finally:
        server.send_signal(signal.SIGTERM)
        server.communicate(timeout=30)


def test_remember_then_memories_then_search_run_over_the_server(served: Served) -> None:
    written = vintage("--server", served.base, *REMEMBER, key=served.writer)
    assert written.returncode == 0, written.stderr
    assert '"decision": "active"' in written.stdout
    listed = vintage("--server", served.base, "memories", "user:42", key=served.writer)
    assert listed.returncode == 0, listed.stderr
    assert "ship to the office" in listed.stdout and "memories of user:42" in listed.stdout
    found = vintage("--server", served.base, "search", "shipping preference", "--json",
                    key=served.writer)
    assert found.returncode == 0, found.stderr
    assert '"value": "ship to the office"' in found.stdout


def test_a_bad_key_is_one_line_and_exit_2(served: Served) -> None:
    refused = vintage("--server", served.base, "--key", "vk_nope", "memories", "user:42")
    assert refused.returncode == 2
    assert refused.stderr.strip() == ("error: No valid API key: invalid or revoked API key "
                                      "(HTTP 401)")
    assert refused.stdout == ""


def test_an_agent_key_may_not_forget_over_the_server(served: Served) -> None:
    refused = vintage("--server", served.base, "forget", "--reason", "erase",
                      "--subject", "user:42", "--key", "shipping.preference", key=served.agent)
    assert refused.returncode == 2
    assert "forget needs a writer or admin key, not an agent key (HTTP 403)" in refused.stderr


def test_a_command_not_served_yet_is_refused_naming_it(served: Served) -> None:
    refused = vintage("--server", served.base, "audit", key=served.writer)
    assert refused.returncode == 2
    assert refused.stderr.startswith("error: vintage audit is not available over --server yet")


def test_no_server_answering_is_exit_69(served: Served) -> None:
    gone = vintage("--server", f"http://127.0.0.1:{free_port()}", "memories", "user:42",
                   key=served.writer)
    assert gone.returncode == 69
    assert len(gone.stderr.strip().splitlines()) == 1


def test_over_the_server_memories_prints_what_the_local_command_prints(
    served: Served, tmp_path: Path,
) -> None:
    remote = vintage("--server", served.base, "memories", "user:42", "--json",
                     key=served.writer)
    assert remote.returncode == 0, remote.stderr
    assert "ship to the office" in remote.stdout
    copy = tmp_path / "copy"  # the served store is locked by the server: read a copy of it
    for suffix in ("", ".keys"):  # the store and the key file its memories are sealed with
        subprocess.run(["cp", "-r", served.directory + suffix, str(copy) + suffix], check=True)
    local = vintage("--store", str(copy), "--tenant", "acme", "memories", "user:42",
                    "--user", "42", "--json")
    assert local.returncode == 0, local.stderr
    assert remote.stdout == local.stdout
