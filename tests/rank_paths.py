"""A Neo4j store held to one ranking path, so that a test proves that path and not whichever
one a search happened to take (vintage.graph.neo4j.ranker: the launcher's columns serve a search
only once they are built, in the background).

``neo4j-cypher``: every search ranks in Cypher, as on a stock server. ``neo4j-ranker``: every
search the ranker serves builds the tenant's columns first and ranks from them; Cypher ranking
it would fall back to fails the test.
"""

from __future__ import annotations

from typing import Any, NoReturn

import pytest

from vintage.graph.core.asof import AsOf
from vintage.graph.neo4j import cypher_search, ranker
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.retrieval.index import Hits, TextQuery


def take_rank_path(store: Neo4jStore, path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if path == "neo4j-cypher":
        store.server_ranker = False
        return
    assert path == "neo4j-ranker", f"no such ranking path: {path}"
    assert store.server_ranker, "the launcher's server carries vintage.rank"
    served = store.rank

    def rank(spec: AsOf, query: TextQuery) -> Hits:
        if not ranker.serves(spec):
            return served(spec, query)
        (row,) = store.run(ranker.build_columns(spec.scope.tenant))
        assert row["entries"] >= 0, "no write to the tenant is open: its columns are kept"
        with monkeypatch.context() as m:
            m.setattr(cypher_search, "rank", _ranked_in_cypher)
            return served(spec, query)

    monkeypatch.setattr(store, "rank", rank)


def _ranked_in_cypher(*args: Any, **kwargs: Any) -> NoReturn:
    raise AssertionError("a search the ranker serves was ranked in Cypher")
