"""The ranker's semantic leg (Vectors.java: every entry's vector in one array, Lucene's sums)
ranks long vectors as Cypher's ``vector.similarity.cosine`` does: MiniLM's 384 dimensions,
an odd count past the unrolled sums (their remainder), and a short one (no unrolling)."""

from __future__ import annotations

import random

import pytest
from neo4j.exceptions import Neo4jError

from tests.factories import PinnedClock
from tests.test_neo4j_ranker import (
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

MODELS = {"test-384d": 384, "test-37d": 37, "test-5d": 5}
FACTS = 60


def gaussian(rng: random.Random, dims: int) -> tuple[float, ...]:
    # Signed, and not exact in binary: a term summed twice or skipped moves the cosine.
    return tuple(rng.gauss(0.0, 0.1) for _ in range(dims))


def test_long_and_odd_vectors_rank_as_cypher_ranks_them(
    store: Neo4jStore, tenant: str, clock: PinnedClock,  # noqa: F811
) -> None:
    made = filed_facts(store, tenant, FACTS, "src-vectors")
    rng = random.Random(13)
    models = list(MODELS)
    put(store, tenant, [IndexEntry(fid, ("oper",), gaussian(rng, MODELS[models[n % 3]]),
                                   models[n % 3]) for n, fid in enumerate(made)])
    assert columns(store, tenant) == FACTS
    clock.advance(days=1)
    spec = everything(store, tenant, clock.now)
    for model, dims in MODELS.items():
        for _ in range(3):
            terms, vector = blinded(store, tenant, ["oper"]), gaussian(rng, dims)
            (row,) = store.run(ranker.rank_call(spec, terms, [], vector, model, 12))
            (cypher,) = store.run(cypher_search.rank(spec, terms, [], vector, model, 12))
            assert len(row["semantic"]) == 12, model
            assert [i for i, _ in row["semantic"]] == [i for i, _ in cypher["semantic"]], model
            assert [s for _, s in row["semantic"]] == pytest.approx(
                [s for _, s in cypher["semantic"]], abs=1e-6), model


def test_a_query_vector_of_another_length_fails_the_ranking_as_cypher_fails_it(
    store: Neo4jStore, tenant: str, clock: PinnedClock,  # noqa: F811
) -> None:
    # The scan runs on a helper thread (Cosine.SCANS): its error must reach the caller.
    made = filed_facts(store, tenant, 1, "src-vectors")
    rng = random.Random(5)
    put(store, tenant, [IndexEntry(made[0], ("oper",), gaussian(rng, 384), "test-384d")])
    assert columns(store, tenant) == 1
    spec = everything(store, tenant, clock.now)
    short = gaussian(rng, 5)
    with pytest.raises(Neo4jError, match="5 dimensions"):
        store.run(ranker.rank_call(spec, [], [], short, "test-384d", 3))
    with pytest.raises(Neo4jError):
        store.run(cypher_search.rank(spec, [], [], short, "test-384d", 3))
    assert store.run(ranker.rank_call(spec, [], [], gaussian(rng, 384), "test-384d", 3))
