"""Start, stop and inspect a local Neo4j 5.26 Community server without Docker.

The server is the small embedded launcher in ``docker/neo4j-embedded`` (a Maven module that
depends on ``org.neo4j:neo4j``), which loads Vintage's plugin jar from a plugins/ directory as a
server does. It is built once with Maven, then run as a detached ``java`` process whose state
(Neo4j home, plugins/, ``server.json``, ``server.log``) lives in :func:`state_dir`.

Environment:

* ``VINTAGE_NEO4J_HOME``: state directory (default ``<repo>/.vintage/neo4j``).
* ``VINTAGE_NEO4J_HEAP``: maximum JVM heap, e.g. ``1g`` (default ``768m``).
* ``VINTAGE_NEO4J_PASSWORD``: turns authentication on, user ``neo4j`` (Neo4j requires at
  least 8 characters). Unset means no authentication.
* ``VINTAGE_NEO4J_PLUGINS``: ``none`` starts a stock server without Vintage's plugin (the
  Cypher fallback's tier); by default the plugin jar is put in ``<state>/plugins``, the
  directory the server loads plugins from.

It is a developer's tool: it builds from the checkout's docker/ folder and keeps its state in
the checkout's .vintage/; from an installed wheel it refuses in one line (``build.docker_dir``).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, DriverError, Neo4jError

__all__ = [
    "HEAP_ENV",
    "HOME_ENV",
    "MAIN_CLASS",
    "PASSWORD_ENV",
    "PLUGINS_ENV",
    "READY_MARKER",
    "BuildResult",
    "LauncherError",
    "ServerInfo",
    "auth",
    "build",
    "ensure_running",
    "java_command",
    "launcher_dir",
    "lay_plugins_dir",
    "start",
    "state_dir",
    "status",
    "stop",
]

from vintage.graph.neo4j import process
from vintage.graph.neo4j.build import (
    HEAP_ENV,
    HOME_ENV,
    MAIN_CLASS,
    PAGECACHE_ENV,
    PASSWORD_ENV,
    READY_MARKER,
    BuildResult,
    LauncherError,
    build,
    docker_dir,
    java_command,
    launcher_dir,
    log_tail,
    plugin_jar,
)

PLUGINS_ENV = "VINTAGE_NEO4J_PLUGINS"


@dataclass(frozen=True)
class ServerInfo:
    uri: str
    pid: int
    port: int
    home: Path
    note: str | None = None  # why the server is not on the port it had before


def state_dir() -> Path:
    override = os.environ.get(HOME_ENV)
    if override:
        return Path(override).expanduser().resolve()
    return docker_dir().parent / ".vintage" / "neo4j"


def auth() -> tuple[str, str] | None:
    """Credentials a client needs for the server this environment starts."""
    password = os.environ.get(PASSWORD_ENV)
    return ("neo4j", password) if password else None


# --------------------------------------------------------------------------- process state


def _server_file() -> Path:
    return state_dir() / "server.json"


def _log_file() -> Path:
    return state_dir() / "server.log"


def _neo4j_home() -> Path:
    return state_dir() / "data"


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    # Parallel test workers or CLI calls must not spawn two servers on one store.
    directory = state_dir()
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / ".lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _read_server() -> ServerInfo | None:
    try:
        raw = json.loads(_server_file().read_text(encoding="utf-8"))
        return ServerInfo(str(raw["uri"]), int(raw["pid"]), int(raw["port"]), Path(raw["home"]))
    except FileNotFoundError:
        return None
    except (ValueError, KeyError, TypeError):
        _server_file().unlink(missing_ok=True)
        return None


def _write_server(info: ServerInfo) -> None:
    target = _server_file()
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    payload = {**asdict(info), "home": str(info.home)}
    with tmp.open("w", encoding="utf-8") as handle:
        json.dump(payload, handle, indent=2)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, target)


def _bolt_answers(uri: str, timeout: float = 5.0) -> bool:
    try:
        with GraphDatabase.driver(
            uri, auth=auth(), connection_timeout=timeout, max_connection_lifetime=timeout * 2
        ) as driver:
            driver.verify_connectivity()
    except AuthError:
        return True  # the server is up; the caller just holds other credentials
    except (DriverError, Neo4jError, OSError):
        return False
    return True


def _port_file() -> Path:
    # Kept across stops and crashes (unlike server.json): saved bolt:// URIs stay valid.
    return state_dir() / "port"


def choose_port() -> tuple[int, str | None]:
    """The port the server had before when it is free; else a free one, and why."""
    try:
        previous = int(_port_file().read_text(encoding="ascii").strip())
    except (FileNotFoundError, ValueError):
        return process.free_port(), None
    if process.port_is_free(previous):
        return previous, None
    chosen = process.free_port()
    return chosen, (f"port {previous}, used before, is taken by another process; the server "
                    f"is on port {chosen} now: update saved bolt:// URIs")


def _logged() -> str:
    try:
        return log_tail(_log_file().read_text(encoding="utf-8", errors="replace"))
    except FileNotFoundError:
        return "(no server.log)"


# --------------------------------------------------------------------------- public API


def status() -> ServerInfo | None:
    info = _read_server()
    if info is None:
        return None
    if not process.pid_alive(info.pid):
        _server_file().unlink(missing_ok=True)
        return None
    # Alive but deaf (hung, or mid-shutdown): keep server.json so stop() can still reach it.
    return info if _bolt_answers(info.uri) else None


def _wait_ready(process: subprocess.Popen[bytes], deadline: float) -> str:
    log = _log_file()
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise LauncherError(
                f"Neo4j exited with code {process.returncode} during startup; {log}:\n{_logged()}"
            )
        with contextlib.suppress(FileNotFoundError):
            for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
                if line.startswith(READY_MARKER):
                    uri = line[len(READY_MARKER) :].strip()
                    if _bolt_answers(uri):
                        return uri
        time.sleep(0.2)
    raise LauncherError(f"Neo4j did not become ready before the timeout; {log}:\n{_logged()}")


def start(port: int | None = None, timeout: float = 180) -> ServerInfo:
    """Return the running server, starting (and if needed building) it first."""
    with _locked():
        current = _read_server()
        if current is not None and process.pid_alive(current.pid):
            if _bolt_answers(current.uri):
                return current
            process.terminate(current.pid, 30)
        _server_file().unlink(missing_ok=True)

        deadline = time.monotonic() + timeout
        build()
        chosen, note = (port, None) if port is not None else choose_port()
        home = _neo4j_home()
        home.mkdir(parents=True, exist_ok=True)
        pagecache = os.environ.get(PAGECACHE_ENV, "64m")
        command = java_command(chosen, home, pagecache, lay_plugins_dir())
        with _log_file().open("wb") as log:
            server = subprocess.Popen(
                command,
                cwd=state_dir(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        process.spawned[server.pid] = server
        try:
            uri = _wait_ready(server, deadline)
        except BaseException:
            process.terminate(server.pid, 20)
            raise
        info = ServerInfo(uri=uri, pid=server.pid, port=chosen, home=home)
        _write_server(info)
        _port_file().write_text(str(chosen), encoding="ascii")
        return replace(info, note=note)


def lay_plugins_dir() -> Path:
    """The server's plugins/ directory, laid anew: the plugin jar, or nothing for a stock
    server (``VINTAGE_NEO4J_PLUGINS=none``)."""
    wanted = os.environ.get(PLUGINS_ENV, "vintage").strip().lower()
    if wanted not in ("vintage", "none"):
        raise LauncherError(f"{PLUGINS_ENV} is 'vintage' (the default) or 'none'")
    plugins = state_dir() / "plugins"
    shutil.rmtree(plugins, ignore_errors=True)
    plugins.mkdir(parents=True)
    if wanted == "vintage":
        shutil.copy2(plugin_jar(), plugins / plugin_jar().name)
    return plugins


def stop(timeout: float = 60) -> bool:
    """Stop the server recorded in server.json; False when none was running."""
    with _locked():
        info = _read_server()
        if info is None:
            return False
        running = process.pid_alive(info.pid)
        if running:
            process.terminate(info.pid, timeout)
            if process.pid_alive(info.pid):
                raise LauncherError(f"Neo4j (pid {info.pid}) survived SIGKILL")
        _server_file().unlink(missing_ok=True)
        return running


def ensure_running() -> str:
    return start().uri
