"""``vintage import graphiti`` refused before it reads or writes: an embedded store, and a
database that holds no Graphiti graph (a module of its own: the graph of
tests/test_graphiti_import.py is saved for that module and gone before this one runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.factories import run
from vintage.graph.neo4j.store import Neo4jStore
from vintage.ingest.graphiti.run import import_graphiti


def test_an_embedded_store_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run(["--store", str(tmp_path / "store"), "--tenant", "t", "import",
                          "graphiti"], capsys, monkeypatch)
    assert code == 2 and out == ""
    assert "a Graphiti graph lives in Neo4j" in err and len(err.strip().splitlines()) == 1


def test_a_database_without_a_graphiti_graph_is_refused(
    neo4j_driver_store: Neo4jStore, tenant: str,
) -> None:
    with neo4j_driver_store.driver.session() as session:
        held = session.run("MATCH (n) WHERE n:Entity OR n:Episodic RETURN count(n) AS n").single()
    assert held is not None and held["n"] == 0, "another test left a Graphiti graph behind"
    with pytest.raises(ValueError, match="no Graphiti graph in this database"):
        import_graphiti(neo4j_driver_store, tenant, actor="user:test")

