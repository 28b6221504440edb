"""The local server as an operating-system process: which pid is ours and alive, how it is
stopped, which ports are free. No Neo4j driver here."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from vintage.graph.neo4j.build import MAIN_CLASS

# Servers spawned by this process. Holding the Popen keeps it from being garbage collected
# while the server runs (which would raise a ResourceWarning) and lets us reap it on exit.
spawned: dict[int, subprocess.Popen[bytes]] = {}


def pid_alive(pid: int) -> bool:
    child = spawned.get(pid)
    if child is not None:
        # Our own child turns into a zombie when it exits; kill(pid, 0) would still see it.
        if child.poll() is None:
            return True
        del spawned[pid]
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    proc = Path("/proc") / str(pid)
    if not proc.exists():
        return True  # no procfs (macOS): the kill probe is all we have
    try:
        # The pid may have been recycled by an unrelated process since server.json was written.
        if MAIN_CLASS.encode() not in (proc / "cmdline").read_bytes():
            return False
        state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in {"Z", "X"}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def terminate(pid: int, timeout: float) -> None:
    def signal_group(sig: signal.Signals) -> None:
        # The server leads its own session, so the group reaches any helper it forked too.
        try:
            os.killpg(pid, sig)
        except (ProcessLookupError, PermissionError):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)

    signal_group(signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return
        time.sleep(0.1)
    signal_group(signal.SIGKILL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and pid_alive(pid):
        time.sleep(0.1)
