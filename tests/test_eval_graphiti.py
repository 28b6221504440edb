"""Graphiti beside the ladder on a real Neo4j, with the real graphiti-core (docs/eval.md,
"Graphiti beside the ladder"): a few bundled scenarios at small size, replayed once, written
into Graphiti on the same server, and asked of both Graphiti rungs.

The peer must never hand over an item the ask excludes (another user's, a corrected value, an
erased one): such an item fails the test. Graphiti's nodes are its own: the engine's nodes of
the tenant are the same before and after, and Graphiti's are gone when the peer closes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.factories import PinnedClock
from tests.neo4j_server import Neo4jTarget
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.retrieval.embedder import Embedder, embedder_from_env
from vintage.graph.sealing.keyfile import FileKeyStore
from vintage.queries.eval import files
from vintage.queries.eval import graphiti as peer
from vintage.queries.eval import scenario as sc
from vintage.queries.eval.run import evaluate

# Two of each family where Graphiti, used at its best, can keep every excluded item out.
CHOSEN = ("isolation", "correction", "erasure")
PER_FAMILY = 2


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return embedder_from_env()


@pytest.fixture
def neo4j(neo4j_target: Neo4jTarget, neo4j_driver_store: Neo4jStore, tmp_path: Path,
          tenant: str) -> Iterator[tuple[Neo4jStore, PinnedClock]]:
    clock = PinnedClock(sc.FIRST_STEP)
    store = Neo4jStore(neo4j_driver_store.driver, clock, neo4j_driver_store.database,
                       keys=FileKeyStore(tmp_path / "keys"))
    store.procedures = neo4j_driver_store.procedures
    store.server_ranker = neo4j_driver_store.server_ranker
    yield store, clock
    for n in range(1, len(CHOSEN) * PER_FAMILY + 1):
        neo4j_driver_store.purge_tenant(f"{tenant}-{n}")


def _chosen() -> list[sc.Scenario]:
    every = files.load([files.bundled_dir()])
    return [s for f in CHOSEN for s in [x for x in every if x.family == f][:PER_FAMILY]]


def _count(store: Neo4jStore, cypher: str, **params: Any) -> int:
    with store.driver.session(database=store.database) as session:
        return int(session.run(cypher, **params).single(strict=True)[0])


def test_graphiti_answers_on_the_same_neo4j_and_never_hands_over_an_excluded_item(
        neo4j: tuple[Neo4jStore, PinnedClock], neo4j_target: Neo4jTarget, tenant: str,
        embedder: Embedder) -> None:
    store, clock = neo4j
    found = _chosen()
    rungs = peer.peers(neo4j_target.uri, neo4j_target.auth, embedder, peer.PEERS)
    graphiti = rungs[0].store
    try:
        result = evaluate(store, clock, embedder, found, rungs, backend="neo4j", prefix=tenant)
        loaded = sorted(graphiti.graph.groups)
        ours = _count(store, "MATCH (n) WHERE n.tenant STARTS WITH $t RETURN count(n)",
                      t=tenant)
        theirs = _count(store, "MATCH (n:Entity|Episodic) WHERE n.group_id IN $g "
                               "RETURN count(n)", g=loaded)
        assert theirs > 0  # the last scenario's graph is in Neo4j, as Graphiti's own nodes
    finally:
        graphiti.close()
    assert _count(store, "MATCH (n:Entity|Episodic) WHERE n.group_id IN $g RETURN count(n)",
                  g=loaded) == 0
    assert _count(store, "MATCH (n) WHERE n.tenant STARTS WITH $t RETURN count(n)",
                  t=tenant) == ours
    summary = result.summary()
    assert [r["rung"] for r in summary["rungs"]] == ["graphiti-bm25", "graphiti-hybrid"]
    for row in summary["rungs"]:
        leaked = [f for f in row["failures"]
                  if f["check"] in ("governance: excluded item not handed over",
                                    "excluded item never a candidate")]
        assert leaked == [], f"{row['rung']} handed over an illegal item: {leaked}"
    # It answers (no stub): BM25 alone matches few of these questions' words (Lucene keeps
    # "home.city" one token), the hybrid most.
    right = {r["rung"]: r["outcomes"].get("right", 0) for r in summary["rungs"]}
    assert right["graphiti-bm25"] >= 1 and right["graphiti-hybrid"] >= len(found)
    assert len(graphiti.load_seconds) == len(found)  # written once per scenario


def test_a_question_graphiti_cannot_express_is_reported_not_scored(
        neo4j: tuple[Neo4jStore, PinnedClock], neo4j_target: Neo4jTarget, tenant: str,
        embedder: Embedder, tmp_path: Path) -> None:
    store, clock = neo4j
    path = tmp_path / "refusal.yaml"
    path.write_text("""
- id: never-said
  family: never-provided
  language: zh
  steps:
    - {name: city, op: remember, as: {user: wang}, subject: "user:wang", key: home.city,
       value: 杭州}
  asks:
    - {id: pet, as: {user: wang}, query: 用户养了什么宠物, subject: "user:wang", key: pet,
       expect: {refusal: true}}
""", encoding="utf-8")
    rungs = peer.peers(neo4j_target.uri, neo4j_target.auth, embedder, ["graphiti-hybrid"])
    try:
        result = evaluate(store, clock, embedder, files.load([path]), rungs, backend="neo4j",
                          prefix=tenant)
    finally:
        rungs[0].store.close()
    [row] = result.summary()["rungs"]
    assert [(n["check"], n["ask"]) for n in row["not_expressible"]] == [
        ("says nothing relevant", "pet")]
    assert all(f["check"] != "says nothing relevant" for f in row["failures"])
    assert row["outcomes"] == {"refused-right": 1}  # nothing about pets: the rule refuses
