"""The embedded store's search entries on disk: they survive a reopen; a sealed fact's entry
(terms and vector) reaches the log only as ciphertext under the fact's own key, and a copy of
the log taken before an erasure no longer yields it once that key is destroyed."""

from __future__ import annotations

import json
import random
import shutil
import string
from pathlib import Path

from tests.factories import PinnedClock
from tests.test_search_index import MODEL, facts, unit
from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Scope
from vintage.graph.embedded.codec import pack_vector
from vintage.graph.embedded.log import unframe
from vintage.graph.embedded.store import LOG_NAME, EmbeddedStore
from vintage.graph.memory.primitives import memory_tx
from vintage.graph.retrieval.index import IndexEntry, TextQuery, index_tx
from vintage.graph.sealing.keyfile import FileKeyStore
from vintage.graph.sealing.sealed import CIPHERTEXT
from vintage.graph.store.protocol import Erasure

PLAIN_VECTOR, SEALED_VECTOR = unit(1, 2, 3, 4), unit(4, 3, 2, 1)


def word() -> str:
    return "".join(random.choices(string.ascii_lowercase, k=12))


def index_records(store: EmbeddedStore) -> dict[str, dict[str, object]]:
    assert store.path is not None
    raw = (store.path / LOG_NAME).read_bytes()
    return {p["fact_id"]: p for n, line in enumerate(raw.splitlines())
            for op, p in unframe(line, f"line {n}")["ops"] if op == "index"}


def holding(directory: Path, needles: list[str]) -> list[str]:
    """The needles (as their JSON strings: a term is one in the log) some file holds."""
    data = [p.read_bytes() for p in directory.rglob("*") if p.is_file()]
    return [n for n in needles if any(json.dumps(n).encode() in d for d in data)]


def test_entries_survive_a_reopen_and_a_sealed_one_is_ciphertext_under_its_facts_key(
    tmp_path: Path, clock: PinnedClock,
) -> None:
    tenant = "on-disk"
    store = EmbeddedStore.open(tmp_path / "store", clock, FileKeyStore(tmp_path / "keys"))
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

    # A plain entry is in the log as it is, its vector as base64 of float32; a sealed one is
    # its fact id and a ciphertext, nothing else.
    directory = tmp_path / "store"
    plain_vector, sealed_vector = pack_vector(PLAIN_VECTOR), pack_vector(SEALED_VECTOR)
    assert holding(directory, [*plain_terms, plain_vector]) == [*plain_terms, plain_vector]
    assert holding(directory, [*sealed_terms, sealed_vector]) == []
    assert set(index_records(store)[sealed]) == {"fact_id", CIPHERTEXT}

    reopened = EmbeddedStore.open(directory, clock, FileKeyStore(tmp_path / "keys"))
    assert reopened.rank(wide, query) == before
    assert reopened.rank(AsOf(user), query).semantic[0][0] == sealed

    # A copy taken before the erasure keeps the ciphertext, which no longer opens.
    shutil.copytree(directory, tmp_path / "backup")
    clock.advance(minutes=1)
    reopened.write(tenant, lambda tx: memory_tx(tx).erase_facts([Erasure(sealed, clock.now)]))
    assert sealed not in index_records(reopened) and plain in index_records(reopened)
    restored = EmbeddedStore.open(tmp_path / "backup", clock, FileKeyStore(tmp_path / "keys"))
    assert CIPHERTEXT in index_records(restored)[sealed]
    after = restored.rank(wide, query)
    assert [i for i, _ in after.keyword] == [plain]
    assert (after.matched, after.legal) == (1, 1)


def test_a_cleared_index_stays_cleared_after_a_reopen_and_what_was_indexed_since_stays(
    tmp_path: Path, clock: PinnedClock,
) -> None:
    scope = Scope(tenant="on-disk")
    store = EmbeddedStore.open(tmp_path / "store", clock, FileKeyStore(tmp_path / "keys"))
    first, second = facts(store, scope, "Revenues", "NetIncomeLoss")
    put = [IndexEntry(first, ("revenu",), PLAIN_VECTOR, MODEL),
           IndexEntry(second, ("net", "incom"), SEALED_VECTOR, MODEL)]
    store.write(scope.tenant, lambda tx: index_tx(tx).put_index(put))
    assert store.write(scope.tenant, lambda tx: index_tx(tx).clear_index()) == 2
    store.write(scope.tenant, lambda tx: index_tx(tx).put_index(put[1:]))

    reopened = EmbeddedStore.open(tmp_path / "store", clock, FileKeyStore(tmp_path / "keys"))
    hits = reopened.rank(AsOf(scope), TextQuery(("revenu", "net"), (), PLAIN_VECTOR, MODEL, 5))
    assert ([i for i, _ in hits.keyword], [i for i, _ in hits.semantic]) == ([second], [second])
    assert [f.id for f in reopened.reading(
        scope.tenant, lambda tx: index_tx(tx).unindexed(MODEL, 10))] == [first]
