"""Keeping a tenant's search index complete: every fact version gets its entry before a search.

``refresh`` reads the facts that have no entry by the embedder's model and the current term
rules (``index_key``, ``IndexTx.unindexed``),
describes them (``vintage.graph.retrieval.documents``), embeds them (below), and
writes the entries in one transaction; then the next batch, until none is left. A search calls
it first, so that nothing legal is missing from the ranking for want of an entry; ``vintage
index`` calls it ahead of time. The embedding runs between the two transactions, never inside
one: a write transaction holds the store's lock, and the model takes a while.

A fact erased between the read and the write is skipped by ``put_index`` (an entry never
outlives its text), and ``unindexed`` never returns an erased fact, so the loop ends. A backend
that kept returning a fact it would not index would loop for ever; the loop stops when a batch
holds nothing it has not tried already. A change of the term rules renames the key, so
``refresh`` redoes every entry; ``rebuild`` drops every entry first, for when how facts are
described has changed: ``refresh`` never redoes an entry of the same key.

Each fact's vector is the normalised sum of its document's parts' embeddings (one part for a
memory; a business fact's *what* and *when*: ``vintage.graph.retrieval.documents``). Each distinct
part of a batch is embedded once, and a business fact's parts are kept, by embedder and text, in a
process-wide cache of the last ``CACHED`` (``PARTS``): the next batch, or the next company's
filings, repeat them. A memory's text is never cached: it would outlive the memory's erasure.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

from vintage.graph.core.model import Fact, Source
from vintage.graph.retrieval.documents import Document, describe
from vintage.graph.retrieval.embedder import Embedder, Vectors, unit_rows
from vintage.graph.retrieval.index import IndexEntry, index_key, index_tx
from vintage.graph.store.protocol import Store, StoreTx

BATCH = 256
CACHED = 4096  # parts: 6 MiB of 384-dimensional vectors


Progress = Callable[[int], None]  # told the facts indexed so far, after each batch


def refresh(store: Store, tenant: str, embedder: Embedder, *, batch: int = BATCH,
            progress: Progress | None = None) -> int:
    """Index every fact of ``tenant`` that has no entry by ``embedder``; how many were (a fact
    erased while its batch was embedded is not). ``progress`` hears the count after each batch
    (a first search of a large store waits for it: the interfaces say so)."""
    if batch < 1:
        raise ValueError("an index batch holds at least one fact")
    done = 0
    tried: set[str] = set()
    key = index_key(embedder.name)
    while True:
        facts, cited = store.reading(tenant, lambda tx: _pending(tx, key, batch))
        fresh = [f for f in facts if f.id not in tried]
        if not fresh:
            return done
        tried.update(f.id for f in fresh)
        subjects = {s.id: s for s in store.subjects(tenant, sorted({f.subject for f in fresh}))}
        documents = [describe(f, subjects.get(f.subject), cited.get(f.id, ())) for f in fresh]
        entries = _entries(fresh, documents, embedder)
        done += store.write(tenant, _writer(entries))
        if progress is not None:
            progress(done)


def rebuild(store: Store, tenant: str, embedder: Embedder,
            *, batch: int = BATCH, progress: Progress | None = None) -> tuple[int, int]:
    """Drop every entry of ``tenant`` (``IndexTx.clear_index``), then index every fact again:
    after an upgrade changed how facts are described or tokenised, which ``refresh`` never
    redoes (an entry by the embedder's model is kept). (Entries dropped, facts indexed.)"""
    if batch < 1:
        raise ValueError("an index batch holds at least one fact")
    dropped = store.write(tenant, lambda tx: index_tx(tx).clear_index())
    return dropped, refresh(store, tenant, embedder, batch=batch, progress=progress)


def _writer(entries: list[IndexEntry]) -> Callable[[StoreTx], int]:
    """Write the entries whose fact is still there and not erased; how many."""
    def write(tx: StoreTx) -> int:
        held = tx.get_facts([e.fact_id for e in entries])
        live = [e for e in entries if e.fact_id in held and held[e.fact_id].erased_at is None]
        index_tx(tx).put_index(live)
        return len(live)
    return write


def _pending(tx: StoreTx, model: str, limit: int) -> tuple[list[Fact], dict[str, list[Source]]]:
    """The next facts to index, each with every source that ever supported it."""
    facts = index_tx(tx).unindexed(model, limit)
    supports = tx.supports_of([f.id for f in facts])
    sources = tx.get_sources(sorted({s.source_id for s in supports}))
    cited: dict[str, list[Source]] = {}
    for s in sorted(supports, key=lambda s: (s.available_at, s.source_id)):
        if s.source_id in sources:
            cited.setdefault(s.fact_id, []).append(sources[s.source_id])
    return facts, cited


class PartCache:
    """Embeddings of shared document parts by (embedder name, text), least recently used
    dropped first; safe to share between threads."""

    def __init__(self, size: int = CACHED) -> None:
        self.size = size
        self._rows: OrderedDict[tuple[str, str], Vectors] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, embedder: Embedder, texts: Sequence[str],
              keep: set[str]) -> dict[str, Vectors]:
        """Each distinct text's vector, the texts not cached embedded in one call; those of
        ``keep`` are cached."""
        found: dict[str, Vectors] = {}
        with self._lock:
            for text in texts:
                row = self._rows.get((embedder.name, text))
                if row is not None:
                    self._rows.move_to_end((embedder.name, text))
                    found[text] = row
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if not missing:
            return found
        fresh = embedder.embed(missing)  # outside the lock: the model takes a while
        with self._lock:
            for text, row in zip(missing, fresh, strict=True):
                found[text] = row
                if text in keep:
                    self._rows[(embedder.name, text)] = row
            while len(self._rows) > self.size:
                self._rows.popitem(last=False)
        return found

    def __contains__(self, key: object) -> bool:  # (embedder name, text)
        with self._lock:
            return key in self._rows

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()


PARTS = PartCache()


def _entries(facts: Sequence[Fact], documents: Sequence[Document],
             embedder: Embedder) -> list[IndexEntry]:
    shared = {p for d in documents if d.shared for p in d.parts}
    vectors = PARTS.embed(embedder, [p for d in documents for p in d.parts], shared)
    summed = [np.sum([vectors[p] for p in d.parts], axis=0) for d in documents]
    rows = unit_rows(np.array(summed, dtype=np.float32), embedder.name)
    key = index_key(embedder.name)
    return [IndexEntry(f.id, d.terms, tuple(float(x) for x in row), key)
            for f, d, row in zip(facts, documents, rows, strict=True)]
