"""Find or start a Neo4j server for the test session (helper module, deliberately no fixtures).

Order: ``NEO4J_URI`` (an existing server), then a Docker container through testcontainers when a
Docker engine answers, then the local Java launcher (``vintage.graph.neo4j.launcher``). It raises
instead of skipping: a graph-engine test suite that silently skips its database tests proves
nothing.

Use it from a session fixture in conftest.py, either way::

    @pytest.fixture(scope="session")
    def neo4j_target() -> Iterator[Neo4jTarget]:
        yield from neo4j_uri_for_tests()

    # or: with neo4j_for_tests() as target: ...
"""

from __future__ import annotations

import contextlib
import importlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest

from vintage.graph.neo4j import launcher as neo4j_launcher

DOCKER_IMAGE = "neo4j:5.26-community"
_DOCKER_PING_TIMEOUT_S = 3
_DEFAULT_DOCKER_SOCKET = "/var/run/docker.sock"


@dataclass(frozen=True)
class Neo4jTarget:
    uri: str
    auth: tuple[str, str] | None
    source: Literal["env", "docker", "launcher"]


def _docker_answers() -> tuple[bool, str]:
    if not os.environ.get("DOCKER_HOST") and not Path(_DEFAULT_DOCKER_SOCKET).exists():
        # Cheaper than the SDK, and the SDK leaks a socket (ResourceWarning) when it fails.
        return False, f"DOCKER_HOST is unset and {_DEFAULT_DOCKER_SOCKET} does not exist"
    try:
        # Imported by name: from the repo root, mypy resolves a bare `import docker` to this
        # project's docker/ folder (a namespace package) instead of the Docker SDK.
        docker = importlib.import_module("docker")
        client = docker.from_env(timeout=_DOCKER_PING_TIMEOUT_S)
        try:
            client.ping()
        finally:
            client.close()
    except Exception as exc:  # any failure just means "no usable engine here"
        return False, f"{type(exc).__name__}: {exc}"
    return True, "ok"


def _neo4j_container() -> Any:
    try:
        from testcontainers.community.neo4j import Neo4jContainer
    except ImportError:  # older testcontainers releases
        from testcontainers.neo4j import Neo4jContainer
    return Neo4jContainer(DOCKER_IMAGE)


def _named(variable: str) -> Neo4jTarget | None:
    """The server the environment names (``NEO4J_USER``/``NEO4J_PASSWORD`` for auth), if any."""
    uri = os.environ.get(variable)
    if not uri:
        return None
    password = os.environ.get("NEO4J_PASSWORD")
    user = os.environ.get("NEO4J_USER", "neo4j")
    return Neo4jTarget(uri, (user, password) if password else None, "env")


def neo4j_uri_for_tests() -> Iterator[Neo4jTarget]:
    """Yield one reachable server; clean up only what this call started itself."""
    if (named := _named("NEO4J_URI")) is not None:
        yield named
        return

    docker_ok, docker_why = _docker_answers()
    if docker_ok:
        with _neo4j_container() as container:
            yield Neo4jTarget(
                container.get_connection_url(),
                (container.username, container.password),
                "docker",
            )
        return

    running = neo4j_launcher.status()
    if running is not None:
        # Someone (a developer's `vintage neo4j start`) owns it: use it, leave it running.
        yield Neo4jTarget(running.uri, neo4j_launcher.auth(), "launcher")
        return

    home = neo4j_launcher.state_dir()
    try:
        started = neo4j_launcher.start()
    except neo4j_launcher.LauncherError as exc:
        raise RuntimeError(
            "no Neo4j for the tests: NEO4J_URI is unset, no Docker engine answered "
            f"({docker_why}), and the local launcher failed: {exc}"
        ) from exc
    try:
        yield Neo4jTarget(started.uri, neo4j_launcher.auth(), "launcher")
    finally:
        # The server this started, even if something moved VINTAGE_NEO4J_HOME since.
        with pytest.MonkeyPatch.context() as env:
            env.setenv(neo4j_launcher.HOME_ENV, str(home))
            neo4j_launcher.stop()


neo4j_for_tests = contextlib.contextmanager(neo4j_uri_for_tests)


def stock_uri_for_tests() -> Iterator[Neo4jTarget]:
    """A stock Neo4j without Vintage's plugin, for the tier that holds the Cypher fallback to
    the same answers: ``NEO4J_STOCK_URI``, else a launcher of its own (another state
    directory, an empty plugins/ directory), stopped afterwards."""
    if (named := _named("NEO4J_STOCK_URI")) is not None:
        yield named
        return
    with pytest.MonkeyPatch.context() as env:
        home = neo4j_launcher.state_dir().with_name("neo4j-stock")
        env.setenv(neo4j_launcher.HOME_ENV, str(home))
        env.setenv(neo4j_launcher.PLUGINS_ENV, "none")
        started = neo4j_launcher.start()
    try:
        yield Neo4jTarget(started.uri, neo4j_launcher.auth(), "launcher")
    finally:
        with pytest.MonkeyPatch.context() as env:
            env.setenv(neo4j_launcher.HOME_ENV, str(home))
            neo4j_launcher.stop()
