"""Vintage's Neo4j plugin is used only when its handshake matches (vintage.version: the plugin
this package speaks to, built for the Neo4j that runs it); any other server runs every path in
Cypher, said in one log line, and a mismatched jar never fails a request."""

from __future__ import annotations

import logging

import pytest

from tests.factories import PinnedClock
from vintage.graph.neo4j import procedures
from vintage.graph.neo4j.procedures import NAMES, PLUGIN_VERSION, VERSION, refusal
from vintage.graph.neo4j.store import Neo4jStore

EVERY = set(NAMES)
SERVER = "5.26.30"


def test_a_plugin_of_this_version_built_for_the_servers_neo4j_is_used() -> None:
    assert refusal(EVERY, SERVER, PLUGIN_VERSION, SERVER) is None


@pytest.mark.parametrize(("found", "plugin", "built", "said"), [
    (set(), None, None, "has no Vintage plugin"),
    (EVERY - {VERSION}, None, None, f"has no {VERSION} (an older jar)"),
    (EVERY, "0.0.9", SERVER, f"is 0.0.9, this package speaks to {PLUGIN_VERSION}"),
    (EVERY, PLUGIN_VERSION, "5.26.1", "was built for Neo4j 5.26.1, the server runs 5.26.30"),
    (EVERY - {"vintage.rank"}, PLUGIN_VERSION, SERVER, "lacks vintage.rank"),
])
def test_any_other_plugin_is_not_used_and_the_reason_names_it(
        found: set[str], plugin: str | None, built: str | None, said: str) -> None:
    why = refusal(found, SERVER, plugin, built)
    assert why is not None
    assert said in why


@pytest.mark.neo4j
def test_the_plugin_the_build_makes_passes_the_handshake_on_the_launchers_server(
        neo4j_driver_store: Neo4jStore, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, "vintage"), neo4j_driver_store.driver.session() as s:
        assert procedures.handshake(s)
    assert caplog.records == []
    assert neo4j_driver_store.procedures and neo4j_driver_store.server_ranker


def test_a_plugin_of_another_version_is_left_alone_and_the_store_runs_in_cypher(
        neo4j_driver_store: Neo4jStore, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(procedures, "PLUGIN_VERSION", "0.0.9")
    store = Neo4jStore(neo4j_driver_store.driver, PinnedClock(), neo4j_driver_store.database)
    with caplog.at_level(logging.INFO, "vintage"):
        store.ensure_schema()
    assert (store.procedures, store.server_ranker) == (False, False)
    (line,) = [r.getMessage() for r in caplog.records]
    assert "0.0.9" in line
    assert "run in Cypher" in line


def test_a_stock_server_without_the_plugin_runs_every_path_in_cypher(
        stock_neo4j_store: Neo4jStore, caplog: pytest.LogCaptureFixture) -> None:
    assert (stock_neo4j_store.procedures, stock_neo4j_store.server_ranker) == (False, False)
    with caplog.at_level(logging.INFO, "vintage"), stock_neo4j_store.driver.session() as s:
        assert not procedures.handshake(s)
    (line,) = [r.getMessage() for r in caplog.records]
    assert "has no Vintage plugin" in line
