"""Shared fixtures: a pinned clock, a real Neo4j, and the store parametrized over both backends.

Neo4j is found in this order: ``NEO4J_URI``; a Docker engine through testcontainers; the
project's own launcher (``docker/neo4j-embedded``, with the plugin jar in its plugins/), and for
the stock tier a server without the plugin. Tests never skip when none works: they fail.
Each test writes into a tenant of its own and wipes exactly that tenant afterwards.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.factories import BACKENDS, PinnedClock, make_store
from tests.neo4j_server import Neo4jTarget, neo4j_uri_for_tests, stock_uri_for_tests
from tests.sec_files import TICKERS, data_file
from vintage.graph.core.model import Scope
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.store.backends import open_store
from vintage.graph.store.protocol import Store
from vintage.ingest.sec.companyfacts import ParsedFile, read_companyfacts

if TYPE_CHECKING:
    from tests.http_api import Api

SERVER_FIXTURES = frozenset({"neo4j_target", "neo4j_driver_store", "stock_neo4j_store"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if SERVER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.neo4j)


@pytest.fixture
def clock() -> PinnedClock:
    return PinnedClock()


@pytest.fixture(scope="session")
def neo4j_target(request: pytest.FixtureRequest) -> Iterator[Neo4jTarget]:
    # A test of the server-free tier that reaches a server was not marked: fail, never skip.
    if "not neo4j" in (request.config.option.markexpr or ""):
        pytest.fail("a test of the server-free tier asked for Neo4j: mark it `neo4j`")
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


@pytest.fixture(scope="session")
def stock_neo4j_store(request: pytest.FixtureRequest) -> Iterator[Neo4jStore]:
    """A stock Neo4j 5.26 without Vintage's plugin (tests/neo4j_server.py): every path in
    Cypher, as on a server nobody added the jar to."""
    if "not neo4j" in (request.config.option.markexpr or ""):
        pytest.fail("a test of the server-free tier asked for Neo4j: mark it `neo4j`")
    for target in stock_uri_for_tests():
        store = Neo4jStore.connect(target.uri, PinnedClock(), auth=target.auth)
        store.ensure_schema()
        yield store
        store.close()


@pytest.fixture
def scope(tenant: str) -> Scope:
    return Scope(tenant=tenant)


def store_for(
    request: pytest.FixtureRequest, clock: PinnedClock, tmp_path: Path, tenant: str,
) -> Iterator[Store]:
    """The store of the backend ``request.param`` names; a Neo4j tenant is wiped afterwards."""
    backend = make_store(request.param, clock, tmp_path, request)
    yield backend
    if isinstance(backend, Neo4jStore):
        backend.purge_tenant(tenant)


@pytest.fixture(params=BACKENDS)
def store(
    request: pytest.FixtureRequest, clock: PinnedClock, tmp_path: Path, tenant: str,
) -> Iterator[Store]:
    yield from store_for(request, clock, tmp_path, tenant)


@pytest.fixture(scope="session")
def parsed() -> dict[str, ParsedFile]:
    """The six bundled companyfacts files, parsed once (read-only: tests never mutate it)."""
    return {ticker: read_companyfacts(data_file(ticker)) for ticker in TICKERS}


@pytest.fixture(params=BACKENDS)
def store_args(request: pytest.FixtureRequest, tmp_path: Path, tenant: str) -> Iterator[list[str]]:
    if request.param == "embedded":
        # Made here, as a server is there before its first command: a command that writes
        # nothing new refuses a store that does not exist (vintage.cli.options).
        open_store(str(tmp_path / "store")).close()
        yield ["--store", str(tmp_path / "store"), "--tenant", tenant]
        return
    target: Neo4jTarget = request.getfixturevalue("neo4j_target")
    shared: Neo4jStore = request.getfixturevalue("neo4j_driver_store")
    # The test's own key file, not the default one in ./.vintage/keys that the server's every
    # client would share.
    monkeypatch: pytest.MonkeyPatch = request.getfixturevalue("monkeypatch")
    monkeypatch.setenv("VINTAGE_KEYS", str(tmp_path / "neo4j.keys"))
    yield ["--store", target.uri, "--tenant", tenant]
    shared.purge_tenant(tenant)


# The HTTP app over each backend (tests/http_api.py), imported when a test asks for it: the
# server-free tier does not load FastAPI for tests that never serve.
@pytest.fixture(params=BACKENDS)
def api(request: pytest.FixtureRequest, clock: PinnedClock, tmp_path: Path,
        tenant: str) -> Iterator[Api]:
    from tests.http_api import serving

    with serving(request.param, clock, tmp_path, tenant, request) as served:
        yield served


@pytest.fixture
def embedded(request: pytest.FixtureRequest, clock: PinnedClock, tmp_path: Path,
             tenant: str) -> Iterator[Api]:
    from tests.http_api import serving

    with serving("embedded", clock, tmp_path, tenant, request) as served:
        yield served


@pytest.fixture(params=["procedure", "cypher"])
def cascade_paths(request: pytest.FixtureRequest, clock: PinnedClock, tmp_path: Path,
                  tenant: str, neo4j_driver_store: Neo4jStore) -> Iterator[Neo4jStore]:
    """A Neo4j store on each cascade path: the launcher's server-side procedure, and the pure
    Cypher a stock server runs."""
    store = make_store("neo4j", clock, tmp_path, request)
    assert isinstance(store, Neo4jStore)
    if request.param == "procedure":
        assert store.procedures, "the launcher's server carries vintage.cascade_close"
    else:
        store.procedures = False
    yield store
    store.purge_tenant(tenant)
