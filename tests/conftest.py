"""Shared fixtures: a pinned clock, a real Neo4j, and the store parametrized over both backends.

Neo4j is found in this order: ``NEO4J_URI``; a Docker engine through testcontainers; the
project's own launcher (``docker/neo4j-embedded``). Tests never skip when none works: they fail.
Each test writes into a tenant of its own and wipes exactly that tenant afterwards.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from graph.embedded import EmbeddedStore
from graph.model import Scope
from graph.neo4j_store import Neo4jStore
from graph.store import Store
from graph.temporal import parse_instant
from ingest.companyfacts import ParsedFile, read_companyfacts
from tests.neo4j_server import Neo4jTarget, neo4j_uri_for_tests
from tests.sec_files import TICKERS, data_file

PINNED = parse_instant("2026-06-01T12:00:00+00:00")


class PinnedClock:
    """System time under test control: it moves only when a test says so."""

    def __init__(self, start: datetime = PINNED) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def clock() -> PinnedClock:
    return PinnedClock()


@pytest.fixture(scope="session")
def neo4j_target() -> Iterator[Neo4jTarget]:
    yield from neo4j_uri_for_tests()


@pytest.fixture(scope="session")
def neo4j_driver_store(neo4j_target: Neo4jTarget) -> Iterator[Neo4jStore]:
    store = Neo4jStore.connect(neo4j_target.uri, PinnedClock(), auth=neo4j_target.auth)
    store.ensure_schema()
    yield store
    store.close()


@pytest.fixture
def tenant() -> str:
    return "t-" + uuid.uuid4().hex[:12]


@pytest.fixture
def scope(tenant: str) -> Scope:
    return Scope(tenant=tenant)


def make_store(
    backend: str, clock: PinnedClock, tmp_path: Path, request: pytest.FixtureRequest,
) -> Store:
    if backend == "embedded":
        return EmbeddedStore.open(tmp_path / "store", clock)
    shared: Neo4jStore = request.getfixturevalue("neo4j_driver_store")
    return Neo4jStore(shared.driver, clock, shared.database)


@pytest.fixture(params=["embedded", "neo4j"])
def store(
    request: pytest.FixtureRequest, clock: PinnedClock, tmp_path: Path, tenant: str,
) -> Iterator[Store]:
    backend = make_store(request.param, clock, tmp_path, request)
    yield backend
    if isinstance(backend, Neo4jStore):
        backend.purge_tenant(tenant)


@pytest.fixture(scope="session")
def parsed() -> dict[str, ParsedFile]:
    """The six bundled companyfacts files, parsed once (read-only: tests never mutate it)."""
    return {ticker: read_companyfacts(data_file(ticker)) for ticker in TICKERS}
