"""The ranker's full-text reads (FullText.java) go to Lucene directly (TextPass.java), past
the kernel's collector, and score every hit as ``db.index.fulltext.queryNodes`` scores it, bit
for bit: entries written one transaction each, of several lengths, with repeated terms, a third
of them indexed again (their first documents deleted). A transaction with state of its own
reads through the kernel's cursor, with the same scores."""

from __future__ import annotations

import random

import pytest

from tests.factories import PinnedClock
from tests.test_neo4j_ranker import (
    MODEL,
    VECTORS,
    blinded,
    columns,
    everything,
    filed_facts,
    put,
    store,  # noqa: F401 (a fixture)
)
from vintage.graph.neo4j import cypher_search, ranker
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.retrieval.index import IndexEntry

pytestmark = pytest.mark.neo4j

WORDS = ("alphabet", "oper", "incom", "revenu", "ship", "refund", "e4031", "q1", "2018")
FACTS = 40


def test_the_ranker_scores_each_full_text_hit_as_query_nodes_does_from_lucene_itself(
    store: Neo4jStore, tenant: str, clock: PinnedClock,  # noqa: F811
) -> None:
    made = filed_facts(store, tenant, FACTS, "src-text")
    rng = random.Random(7)

    def words() -> tuple[str, ...]:  # 1 to 12 words, repeats included: tf and length vary
        return tuple(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))

    for fid in made:  # a transaction each: many small segments
        put(store, tenant, [IndexEntry(fid, words(), VECTORS[0], MODEL)])
    # Each third entry again: Lucene keeps its first document, deleted.
    put(store, tenant, [IndexEntry(fid, words(), VECTORS[0], MODEL) for fid in made[::3]])
    assert columns(store, tenant) == FACTS
    clock.advance(days=1)
    spec = everything(store, tenant, clock.now)
    asked = [list(WORDS), ["oper"], ["q1", "2018"], ["alphabet", "refund", "e4031"], ["ship"]]
    (before,) = store.run(ranker.text_passes())
    for words_asked in asked:
        terms = blinded(store, tenant, words_asked)
        (row,) = store.run(ranker.rank_call(spec, terms, [], None, None, FACTS))
        (cypher,) = store.run(cypher_search.rank(spec, terms, [], None, None, FACTS))
        assert row["keyword"], words_asked
        assert row["keyword"] == cypher["keyword"], words_asked  # equal, not approximately
        assert row["matched"] == cypher["matched"], words_asked
    (after,) = store.run(ranker.text_passes())
    # At least: a background build of another test's columns may read Lucene meanwhile.
    assert after["lucene"] - before["lucene"] >= len(asked), "every pass read Lucene itself"
    assert after["kernel"] == before["kernel"] and after["unavailable"] is None

    # With state of its own (a node no index holds), the transaction's reads take the cursor.
    terms = blinded(store, tenant, list(WORDS))
    rank, cypher_rank = (ranker.rank_call(spec, terms, [], None, None, FACTS),
                         cypher_search.rank(spec, terms, [], None, None, FACTS))
    with store.driver.session() as session, session.begin_transaction() as tx:
        tx.run("CREATE (:TextPassProbe)").consume()
        (row,) = tx.run(rank.text, rank.params).data()
        (cypher,) = tx.run(cypher_rank.text, cypher_rank.params).data()
        tx.rollback()
    assert row["keyword"] and row["keyword"] == cypher["keyword"]
    (last,) = store.run(ranker.text_passes())
    assert last["kernel"] == after["kernel"] + 1
