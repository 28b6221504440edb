"""The SQLite store ranks from its postings and statistics exactly as the reference store ranks
from a ``bm25s`` model over every entry: the same ids, the same scores to the last bit, the same
counts, on a tenant of filings (one assertion restated many times, twenty others) and of
sealed memories in two users' scopes, at several cutoffs and filters, before and after entries
are replaced and facts erased."""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path

import pytest

from tests.factories import ACTOR, PinnedClock, batch, fact, source
from tests.test_search_index import MODEL, facts, unit
from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import parse_instant
from vintage.graph.embedded.store import EmbeddedStore
from vintage.graph.memory.primitives import memory_tx
from vintage.graph.retrieval.index import IndexEntry, TextQuery, index_tx
from vintage.graph.sealing.keyfile import FileKeyStore
from vintage.graph.sqlite.store import SqliteStore
from vintage.graph.store.protocol import Erasure, Store
from vintage.graph.writes.semantics import record

TENANT = "same"
VOCAB = ["oper", "incom", "loss", "googl", "revenu", "ship", "offic", "e4031", "退款", "退",
         "us-gaap:operatingincomeloss", "quarter", "2018"]
FILED = parse_instant("2018-04-24")


def stores(tmp_path: Path, clock: PinnedClock) -> tuple[EmbeddedStore, SqliteStore]:
    return (EmbeddedStore.open(tmp_path / "ref", clock, FileKeyStore(tmp_path / "ref.keys")),
            SqliteStore.open(tmp_path / "sql", clock, FileKeyStore(tmp_path / "sql.keys")))


def populate(store: Store) -> list[str]:
    """Filings (30 versions of one assertion, one a day; 20 other assertions) and memories
    of two users; the same ids on either store."""
    shared = Scope(tenant=TENANT)
    days = [(FILED + timedelta(days=i)).date().isoformat() for i in range(30)]
    sources = tuple(source(f"s{i:02d}", d) for i, d in enumerate(days))
    ids = list(record(store, shared, batch(*(fact(1000 + i, f"s{i:02d}") for i in range(30)),
                                           sources=sources), actor=ACTOR).created)
    ids += facts(store, shared, *(f"Concept{n}" for n in range(20)))
    for user in ("42", "43"):
        ids += facts(store, Scope(tenant=TENANT, keys={"user": user}),
                     *(f"memory.{n}" for n in range(8)))
    return ids


def entries(ids: list[str], rng: random.Random) -> list[IndexEntry]:
    found = []
    for i in ids:
        terms = tuple(rng.choice(VOCAB) for _ in range(rng.randint(0, 12)))
        vector = unit(*(rng.uniform(-1, 1) for _ in range(4)))
        found.append(IndexEntry(i, terms, vector, MODEL))
    return found


def queries(rng: random.Random) -> list[TextQuery]:
    found = []
    for _ in range(12):
        terms = tuple(rng.sample(VOCAB, rng.randint(1, 4)))
        idents = tuple(t for t in terms if any(c.isdigit() or c == ":" for c in t))
        vector = unit(*(rng.uniform(-1, 1) for _ in range(4)))
        found.append(TextQuery(terms, idents, vector, MODEL, rng.choice([1, 3, 50])))
    return found


def specs() -> list[AsOf]:
    shared, user = Scope(tenant=TENANT), Scope(tenant=TENANT, keys={"user": "42"})
    return [AsOf(shared), AsOf(shared, shared_only=True),
            AsOf(shared, known_at=FILED + timedelta(days=10, hours=12)),
            AsOf(shared, predicates=("Concept1", "Concept2", "OperatingIncomeLoss")),
            AsOf(user), AsOf(user, known_at=FILED)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sqlite_ranks_every_leg_and_counts_exactly_as_the_reference_store(
    tmp_path: Path, clock: PinnedClock, seed: int,
) -> None:
    rng = random.Random(seed)
    reference, sqlite = stores(tmp_path, clock)
    ids = populate(reference)
    assert populate(sqlite) == ids
    put = entries(ids, rng)
    asked = queries(rng)

    def same() -> None:
        for spec in specs():
            for query in asked:
                assert sqlite.rank(spec, query) == reference.rank(spec, query), (spec, query)

    for store in (reference, sqlite):
        store.write(TENANT, lambda tx: index_tx(tx).put_index(put))
    same()
    # Entries replaced (a new text for a third of the facts), and two facts erased: the
    # statistics move with them.
    again = entries(rng.sample(ids, len(ids) // 3), rng)
    clock.advance(minutes=1)
    gone = [Erasure(ids[-1], clock.now), Erasure(ids[31], clock.now)]
    for store in (reference, sqlite):
        store.write(TENANT, lambda tx: index_tx(tx).put_index(again))
        store.write(TENANT, lambda tx: memory_tx(tx).erase_facts(gone[:1]))
    same()
