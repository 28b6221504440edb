"""The embedded store's search entries on disk: they survive a reopen; a sealed fact's entry
(terms and vector) reaches the database only as ciphertext under the fact's own key, and a copy
of the store taken before an erasure no longer yields it once that key is destroyed."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import string
from contextlib import closing
from pathlib import Path

import numpy as np

from tests.factories import PinnedClock
from tests.test_search_index import MODEL, facts, unit
from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Scope
from vintage.graph.memory.primitives import memory_tx
from vintage.graph.retrieval.index import IndexEntry, TextQuery, index_tx
from vintage.graph.sealing.keyfile import FileKeyStore
from vintage.graph.sealing.sealed import CIPHERTEXT
from vintage.graph.sqlite.schema import DB_NAME
from vintage.graph.sqlite.store import SqliteStore
from vintage.graph.store.protocol import Erasure

PLAIN_VECTOR, SEALED_VECTOR = unit(1, 2, 3, 4), unit(4, 3, 2, 1)


def word() -> str:
    return "".join(random.choices(string.ascii_lowercase, k=12))


def index_records(store: SqliteStore) -> dict[str, dict[str, object]]:
    """Each entry's stored columns that hold something, by fact id."""
    assert store.path is not None
    uri = f"file:{store.path / DB_NAME}?mode=ro"
    with closing(sqlite3.connect(uri, uri=True)) as conn:
        conn.row_factory = sqlite3.Row
        return {r["fact_id"]: {k: v for k, v in zip(r.keys(), tuple(r), strict=True)
                               if v is not None}
                for r in conn.execute("SELECT * FROM entries")}


def holding(directory: Path, needles: list[bytes]) -> list[bytes]:
    """The needles some file under ``directory`` holds."""
    data = [p.read_bytes() for p in directory.rglob("*") if p.is_file()]
    return [n for n in needles if any(n in d for d in data)]


def packed(vector: tuple[float, ...]) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def test_entries_survive_a_reopen_and_a_sealed_one_is_ciphertext_under_its_facts_key(
    tmp_path: Path, clock: PinnedClock,
) -> None:
    tenant = "on-disk"
    store = SqliteStore.open(tmp_path / "store", clock, FileKeyStore(tmp_path / "keys"))
    (plain,) = facts(store, Scope(tenant=tenant), "Revenues")
    user = Scope(tenant=tenant, keys={"user": "42"})
    (sealed,) = facts(store, user, "shipping.preference")
    plain_terms, sealed_terms = [word(), word()], [word(), word()]
    store.write(tenant, lambda tx: index_tx(tx).put_index([
        IndexEntry(plain, tuple(plain_terms), PLAIN_VECTOR, MODEL),
        IndexEntry(sealed, tuple(sealed_terms), SEALED_VECTOR, MODEL)]))
    query = TextQuery((*plain_terms, *sealed_terms), (), SEALED_VECTOR, MODEL, 5)
    wide = AsOf(Scope(tenant=tenant))
    before = store.rank(wide, query)
    assert sorted(i for i, _ in before.keyword) == sorted([plain, sealed])

    # A plain entry is in the database as it is, its vector as float32; a sealed one is its
    # fact id and a ciphertext, nothing else.
    directory = tmp_path / "store"
    in_clear = [t.encode() for t in plain_terms] + [packed(PLAIN_VECTOR)]
    assert holding(directory, in_clear) == in_clear
    assert holding(directory, [*(t.encode() for t in sealed_terms), packed(SEALED_VECTOR)]) == []
    assert set(index_records(store)[sealed]) == {"tenant", "fact_id", "model", "sealed"}
    assert CIPHERTEXT in json.loads(str(index_records(store)[sealed]["sealed"]))

    reopened = SqliteStore.open(directory, clock, FileKeyStore(tmp_path / "keys"))
    assert reopened.rank(wide, query) == before
    assert reopened.rank(AsOf(user), query).semantic[0][0] == sealed

    # A copy taken before the erasure keeps the ciphertext, which no longer opens.
    shutil.copytree(directory, tmp_path / "backup")
    clock.advance(minutes=1)
    reopened.write(tenant, lambda tx: memory_tx(tx).erase_facts([Erasure(sealed, clock.now)]))
    assert sealed not in index_records(reopened) and plain in index_records(reopened)
    restored = SqliteStore.open(tmp_path / "backup", clock, FileKeyStore(tmp_path / "keys"))
    assert CIPHERTEXT in json.loads(str(index_records(restored)[sealed]["sealed"]))
    after = restored.rank(wide, query)
    assert [i for i, _ in after.keyword] == [plain]
    assert (after.matched, after.legal) == (1, 1)


def test_a_cleared_index_stays_cleared_after_a_reopen_and_what_was_indexed_since_stays(
    tmp_path: Path, clock: PinnedClock,
) -> None:
    scope = Scope(tenant="on-disk")
    store = SqliteStore.open(tmp_path / "store", clock, FileKeyStore(tmp_path / "keys"))
    first, second = facts(store, scope, "Revenues", "NetIncomeLoss")
    put = [IndexEntry(first, ("revenu",), PLAIN_VECTOR, MODEL),
           IndexEntry(second, ("net", "incom"), SEALED_VECTOR, MODEL)]
    store.write(scope.tenant, lambda tx: index_tx(tx).put_index(put))
    assert store.write(scope.tenant, lambda tx: index_tx(tx).clear_index()) == 2
    store.write(scope.tenant, lambda tx: index_tx(tx).put_index(put[1:]))

    reopened = SqliteStore.open(tmp_path / "store", clock, FileKeyStore(tmp_path / "keys"))
    hits = reopened.rank(AsOf(scope), TextQuery(("revenu", "net"), (), PLAIN_VECTOR, MODEL, 5))
    assert ([i for i, _ in hits.keyword], [i for i, _ in hits.semantic]) == ([second], [second])
    assert [f.id for f in reopened.reading(
        scope.tenant, lambda tx: index_tx(tx).unindexed(MODEL, 10))] == [first]
