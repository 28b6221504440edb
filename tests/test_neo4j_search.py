"""The Neo4j search index as the server holds it (issue 13): what reaches Lucene and the store
files, what erasure leaves, and how a store written before the index gets its facts queued.

``tests/test_search_index.py`` checks the seam on both backends; these look underneath it, at
the full-text index queried directly, the node properties and the server's files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.factories import ACTOR, PinnedClock, make_store, memory
from tests.test_erasure_on_disk import erase, files_of, found_in_files, occurrences_in_clear, words
from tests.test_search_index import MODEL, X, Y, facts
from vintage.graph.core.asof import AsOf
from vintage.graph.core.labels import FACT
from vintage.graph.core.model import Scope
from vintage.graph.memory.primitives import memory_tx
from vintage.graph.memory.remember import remember
from vintage.graph.neo4j import cypher
from vintage.graph.neo4j.cypher_search import lucene
from vintage.graph.neo4j.schema import FACT_TEXT
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.retrieval.embedder import minilm
from vintage.graph.retrieval.index import IndexEntry, index_key, index_tx
from vintage.graph.retrieval.indexer import refresh
from vintage.graph.retrieval.terms import terms
from vintage.graph.store.protocol import Erasure


@pytest.fixture
def neo4j(clock: PinnedClock, tmp_path: Path, tenant: str, request: pytest.FixtureRequest,
          neo4j_driver_store: Neo4jStore) -> Iterator[Neo4jStore]:
    store = make_store("neo4j", clock, tmp_path, request)  # sealed, with the test's key file
    assert isinstance(store, Neo4jStore)
    yield store
    store.purge_tenant(tenant)


def index(store: Neo4jStore, tenant: str, texts: dict[str, str]) -> None:
    """Give each fact (id -> its text) the entry of its text's terms: X for the first, Y after."""
    store.write(tenant, lambda tx: index_tx(tx).put_index([
        IndexEntry(fid, tuple(terms(text)), X if n == 0 else Y, MODEL)
        for n, (fid, text) in enumerate(texts.items())]))


def blinded(store: Neo4jStore, tenant: str, text: str) -> list[str]:
    assert store.sealer is not None
    tokens = store.sealer.blind(tenant, terms(text))
    assert tokens is not None
    return tokens


def in_full_text(store: Neo4jStore, tokens: list[str]) -> list[str]:
    """The facts the full-text index itself yields for any of ``tokens``, every tenant's."""
    with store.driver.session() as session:
        return sorted(r["id"] for r in session.run(
            "CALL db.index.fulltext.queryNodes($index, $q) YIELD node RETURN node.id AS id",
            index=FACT_TEXT, q=lucene([], tokens)))


def with_entry(store: Neo4jStore, tenant: str) -> dict[str, list[str]]:
    """Each of the tenant's facts that holds any part of an entry or the Unindexed label: which."""
    with store.driver.session() as session:
        return {r["id"]: r["parts"] for r in session.run(
            "MATCH (f:Fact {tenant: $t}) WITH f, [k IN ['search_terms', 'embedding', "
            "'embedding_model'] WHERE f[k] IS NOT NULL] + [l IN labels(f) WHERE l <> 'Fact'] "
            "AS parts WHERE parts <> [] RETURN f.id AS id, parts", t=tenant)}


def memory_ids(store: Neo4jStore, scope: Scope) -> dict[str, str]:
    """The ids of the tenant's two users' memories, by their text."""
    return {f.value: f.id for f in store.reading(
        scope.tenant, lambda tx: index_tx(tx).unindexed(MODEL, 10)) if isinstance(f.value, str)}


@pytest.mark.parametrize("by", ["memory", "source", "user"])
def test_after_forget_no_full_text_entry_holds_the_memorys_terms_and_no_node_its_vector(
    neo4j: Neo4jStore, scope: Scope, by: str,
) -> None:
    said, other = words(), words()
    remember(neo4j, memory(scope, value=said, consent=True), actor=ACTOR)
    remember(neo4j, memory(scope, subject="user:43", user="43", owner="user:43", key="gift.wrap",
                           value=other, source_id="msg-9", consent=True), actor=ACTOR)
    ids = memory_ids(neo4j, scope)
    index(neo4j, scope.tenant, {ids[said]: said, ids[other]: other})
    gone, kept = blinded(neo4j, scope.tenant, said), blinded(neo4j, scope.tenant, other)
    assert in_full_text(neo4j, gone) == [ids[said]]
    assert with_entry(neo4j, scope.tenant) == {
        i: ["search_terms", "embedding", "embedding_model"] for i in ids.values()}

    erase(neo4j, scope, by)

    assert in_full_text(neo4j, gone) == []
    assert in_full_text(neo4j, kept) == [ids[other]]  # the other user's entry is untouched
    assert with_entry(neo4j, scope.tenant) == {
        ids[other]: ["search_terms", "embedding", "embedding_model"]}


def test_a_sealed_memorys_terms_reach_the_servers_files_only_blinded(
    neo4j: Neo4jStore, scope: Scope, request: pytest.FixtureRequest,
) -> None:
    said = words()
    remember(neo4j, memory(scope, value=said, consent=True), actor=ACTOR)
    (fid,) = memory_ids(neo4j, scope).values()
    index(neo4j, scope.tenant, {fid: said})
    plain = sorted({*said.split(), *terms(said)})  # the words and their stems
    tokens = blinded(neo4j, scope.tenant, said)
    directory = files_of(neo4j, request)
    if directory is None:  # a server whose files are elsewhere: its properties, then
        assert [t for t in plain if occurrences_in_clear(neo4j, scope, t)] == []
        assert all(occurrences_in_clear(neo4j, scope, t) for t in tokens)
        return
    found = found_in_files(directory, [*plain, *tokens])
    # The entry did reach the files looked at (the transaction log holds it), blinded.
    assert set(found) & set(tokens)
    assert set(found) - set(tokens) == set()


def test_a_store_from_before_the_search_index_has_its_facts_queued_once(
    neo4j: Neo4jStore, scope: Scope, monkeypatch: pytest.MonkeyPatch,
) -> None:
    older, old, erased, indexed = facts(neo4j, scope, "a", "b", "c", "d")
    neo4j.write(scope.tenant, lambda tx: memory_tx(tx).erase_facts([Erasure(erased,
                                                                            neo4j.now())]))
    index(neo4j, scope.tenant, {indexed: "d"})

    def predate(*ids: str) -> None:
        """As if written before facts were born queued: no Unindexed label."""
        with neo4j.driver.session() as session:
            session.run("MATCH (f:Fact) WHERE f.tenant = $t AND f.id IN $ids REMOVE f:Unindexed",
                        t=scope.tenant, ids=list(ids)).consume()

    def queued() -> list[str]:
        return sorted(f.id for f in neo4j.reading(
            scope.tenant, lambda tx: index_tx(tx).unindexed(MODEL, 10)))

    predate(older, old)
    assert queued() == []
    # A store without the full-text index is one from before it: opening it queues the facts
    # with no entry, never an erased one nor one already indexed.
    monkeypatch.setattr("vintage.graph.neo4j.search.FACT_TEXT", "vintage_fact_text_not_yet")
    neo4j.ensure_schema()
    assert queued() == sorted([older, old])
    monkeypatch.undo()
    # Once the index exists, opening the store scans nothing: a fact without the label stays so.
    predate(older)
    neo4j.ensure_schema()
    assert queued() == [old]


def test_facts_whose_keys_are_gone_never_end_the_queue_while_others_wait(
    neo4j: Neo4jStore, scope: Scope,
) -> None:
    user = Scope(tenant=scope.tenant, keys={"user": "42"})
    every = sorted(facts(neo4j, user, "a", "b", "c", "d", "e"))
    keyless, waiting = every[:3], every[3:]
    # As in a backup restored after a forget: the keys are destroyed, the nodes not erased.
    assert neo4j.sealer is not None
    neo4j.sealer.destroy(scope.tenant, keyless, neo4j.now())

    def queued(limit: int) -> list[str]:
        return [f.id for f in neo4j.reading(
            scope.tenant, lambda tx: index_tx(tx).unindexed(index_key(minilm().name), limit))]

    # The first page by id holds only facts that read as erased: the queue goes on past them.
    assert queued(2) == waiting
    assert queued(1) == waiting[:1]
    assert refresh(neo4j, scope.tenant, minilm(), batch=2) == 2
    assert queued(10) == []


def test_a_fact_read_does_not_carry_its_entry(neo4j: Neo4jStore, scope: Scope) -> None:
    (fid,) = facts(neo4j, scope, "Revenues")
    index(neo4j, scope.tenant, {fid: "revenue"})
    (row,) = neo4j.run(cypher.nodes_by_id(scope.tenant, FACT, [fid]))
    assert {"search_terms", "embedding", "embedding_model"} & set(row["n"]) == set()
    assert [(f.id, f.value) for f in neo4j.read(AsOf(scope))] == [(fid, 0)]


def test_a_lucene_query_refuses_a_token_its_syntax_would_read() -> None:
    assert lucene([["t.ab"], ["k.x", "k.y"]], ["b.1"]) == '+"t.ab"^0 +("k.x" "k.y")^0 +"b.1"'
    for bad in ('b.1" OR "x', "b.*", "plain", ""):
        with pytest.raises(ValueError, match="not a search token"):
            lucene([["t.ab"]], [bad])
