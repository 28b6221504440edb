"""Loading the retrieval benchmark's corpus through the product's write paths, and indexing it.

Memories go through ``vintage.graph.writes.semantics.record`` in batches of at most ``BATCH``
versions, one transaction each, all of one batch in one memory scope (a memory's versions stay in
one batch, so a 500-version memory is a batch of its own); each version is a ``FactIn`` shaped as
``remember`` writes it (valid from ``MEMORY_EPOCH``, its kind, status, source, owner, retention
reason, expiry). Conflict sets go through ``remember`` itself (two tool results that disagree),
since only the gate opens one. SEC filings go through ``ingest_companyfacts``. Then
``vintage.graph.retrieval.indexer.refresh`` gives every version its entry, embedding with MiniLM
behind a cache by text (``Cached``), so the second backend and size of a run reuse the vectors of
the first instead of running the model twice on one text.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bench.retrieval import sec as retrieval_sec
from bench.retrieval.corpus import Corpus, Memory, Version
from vintage.graph.core.kinds import SourceKind
from vintage.graph.core.model import FactIn, Scope, SourceIn, Subject
from vintage.graph.memory.gate import MEMORY_EPOCH, Decision, MemoryIn, MemoryKind
from vintage.graph.memory.remember import remember
from vintage.graph.memory.tools import register_tool
from vintage.graph.retrieval.embedder import Embedder, Vectors, cosine_floor
from vintage.graph.retrieval.indexer import refresh
from vintage.graph.store.protocol import Store
from vintage.graph.writes.semantics import Batch, record
from vintage.ingest.sec.companyfacts import ingest_companyfacts

ACTOR = "bench:retrieval"
BATCH = 300
INDEX_BATCH = 1024
RETAINED = "bench: the user said it"


class Cached:
    """An embedder that runs ``inner`` once per distinct text of the whole run."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        # Where the model's cosines start to mean anything (the fusion's calibration): E5's.
        self.cosine_floor = cosine_floor(inner)
        self.vectors: dict[str, Any] = {}
        self.queries: dict[str, Any] = {}
        self.computed = 0
        self.seconds = 0.0

    @property
    def dim(self) -> int:
        return self.inner.dim

    def keep(self, path: Path) -> None:
        """Save the vectors (``--vector-cache``: to iterate on the bench without embedding the
        SEC files again; a reported run starts without one)."""
        texts = list(self.vectors)
        matrix = np.stack([self.vectors[t] for t in texts]) if texts else np.zeros((0, 0))
        np.savez(path, model=np.array([self.name]), texts=np.array(texts, dtype=object),
                 vectors=matrix)

    def reuse(self, path: Path) -> int:
        """Load vectors saved by ``keep`` for this model; how many."""
        if not path.exists():
            return 0
        saved = np.load(path, allow_pickle=True)
        if str(saved["model"][0]) != self.name:
            return 0
        for text, row in zip(saved["texts"], saved["vectors"], strict=True):
            self.vectors[str(text)] = row
        return len(saved["texts"])

    def embed(self, texts: Sequence[str]) -> Vectors:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            began = time.perf_counter()
            for text, row in zip(missing, self.inner.embed(missing), strict=True):
                self.vectors[text] = row
            self.seconds += time.perf_counter() - began
            self.computed += len(missing)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.vectors[t] for t in texts]).astype(np.float32)

    def embed_query(self, texts: Sequence[str]) -> Vectors:
        """A question as the model embeds one (E5's ``query:`` role; a model with one role
        embeds a question as any text), cached apart from the indexed texts."""
        inner = getattr(self.inner, "embed_query", None)
        if inner is None:
            return self.embed(texts)
        missing = [t for t in dict.fromkeys(texts) if t not in self.queries]
        if missing:
            began = time.perf_counter()
            for text, row in zip(missing, inner(missing), strict=True):
                self.queries[text] = row
            self.seconds += time.perf_counter() - began
            self.computed += len(missing)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.queries[t] for t in texts]).astype(np.float32)


@dataclass
class Loaded:
    seconds: float = 0.0
    facts: int = 0
    transactions: int = 0
    created: int = 0
    superseded: int = 0
    remembered: int = 0
    wrong_decisions: int = 0
    batch_seconds: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        out = {k: v for k, v in vars(self).items() if k != "batch_seconds"}
        out["facts_per_s"] = self.facts / self.seconds if self.seconds else None
        ordered = sorted(self.batch_seconds)
        out["batch_p50_s"] = ordered[len(ordered) // 2] if ordered else None
        out["batch_max_s"] = ordered[-1] if ordered else None
        return out


def _batches(memories: Sequence[Memory]) -> Iterator[list[Memory]]:
    """Consecutive groups of one tenant and scope, at most ``BATCH`` versions each."""
    group: list[Memory] = []
    for m in sorted(memories, key=lambda m: (m.tenant, m.scope)):
        size = sum(len(g.said) for g in group)
        if group and ((group[0].tenant, group[0].scope) != (m.tenant, m.scope)
                      or size + len(m.said) > BATCH):
            yield group
            group = []
        group.append(m)
    if group:
        yield group


def _batch(group: list[Memory]) -> Batch:
    subjects = {m.subject: Subject(id=m.subject, kind=m.subject.split(":", 1)[0])
                for m in group}
    sources = [SourceIn(id=s.source, kind=s.source_kind, available_at=s.observed)
               for m in group for s in m.said]
    facts = [FactIn(subject=m.subject, predicate=m.key, value=s.value, valid_from=MEMORY_EPOCH,
                    kind=m.kind, status=s.status, source=s.source, owner=m.subject,
                    retention_reason=RETAINED, expires_at=s.expires)
             for m in group for s in m.said]
    return Batch(subjects=list(subjects.values()), sources=sources, facts=facts)


def load_memories(store: Store, corpus: Corpus, tenants: dict[str, str]) -> Loaded:
    """Every memory of ``corpus`` into the tenants named by ``tenants`` (logical -> stored)."""
    done = Loaded()
    began = time.perf_counter()
    for group in _batches([m for m in corpus.memories if not m.conflict]):
        scope = group[0].scope_in(tenants[group[0].tenant])
        t0 = time.perf_counter()
        report = record(store, scope, _batch(group), actor=ACTOR)
        done.batch_seconds.append(time.perf_counter() - t0)
        done.transactions += 1
        done.facts += sum(len(m.said) for m in group)
        done.created += len(report.created)
        done.superseded += len(report.superseded)
    for m in corpus.memories:
        if m.conflict:
            done.wrong_decisions += _conflict(store, m, tenants[m.tenant])
            done.remembered += 2
            done.facts += 3
    done.seconds = time.perf_counter() - began
    return done


def _conflict(store: Store, m: Memory, tenant: str) -> int:
    """Two systems' values for one business fact of the user: active, then a conflict set.
    Returns how many decisions differ from those."""
    wrong = 0
    for said, want in zip(m.said, (Decision.ACTIVE, Decision.CONFLICT), strict=True):
        # Each system is a tool the tenant registered: its results carry authority.
        register_tool(store, tenant, said.source, actor=ACTOR, reason="a system of record")
        scope = dict(m.scope)
        done = remember(store, MemoryIn(
            kind=MemoryKind.FACT, tenant=tenant, subject=m.subject, key=m.key, value=said.value,
            source_kind=SourceKind.TOOL_RESULT, source_id=said.source, source_version="v1",
            observed_at=said.observed, owner=m.subject, retention_reason=RETAINED,
            user=scope.get("user"), project=scope.get("project")), actor=ACTOR)
        wrong += done.decision is not want
    return wrong


def load_filings(store: Store, tenant: str, tickers: Collection[str] | None = None,
                 concepts: Collection[str] | None = None) -> Loaded:
    done = Loaded()
    began = time.perf_counter()
    for path in retrieval_sec.ticker_files(tickers):
        t0 = time.perf_counter()
        summary = ingest_companyfacts(store, Scope(tenant=tenant), path, actor=ACTOR,
                                      concepts=concepts)
        done.batch_seconds.append(time.perf_counter() - t0)
        done.transactions += 1
        done.created += summary.created
        done.superseded += len(summary.superseded)
    done.facts = done.created
    done.seconds = time.perf_counter() - began
    return done


def index(store: Store, tenants: Collection[str], embedder: Cached) -> dict[str, Any]:
    """``refresh`` each tenant; the seconds, entries, and texts the model had to embed."""
    began, computed, model_s = time.perf_counter(), embedder.computed, embedder.seconds
    entries = sum(refresh(store, t, embedder, batch=INDEX_BATCH) for t in tenants)
    seconds = time.perf_counter() - began
    return {"seconds": seconds, "entries": entries,
            "texts_embedded": embedder.computed - computed,
            "model_seconds": embedder.seconds - model_s,
            "store_seconds": seconds - (embedder.seconds - model_s)}


def stored_mismatches(store: Store, tenant: str, predicted: Sequence[Version]) -> list[str]:
    """The predicted versions of some assertions against what the store holds for them (ids,
    status, knowledge interval, expiry): a check of the generator, not of retrieval."""
    by_key: dict[str, list[Version]] = {}
    for v in predicted:
        by_key.setdefault(v.id.rsplit(".r", 1)[0], []).append(v)
    wrong = []
    for key, want in by_key.items():
        held = {f.id: f for f in store.history(tenant, key)}
        for v in want:
            f = held.get(v.id)
            if f is None:
                wrong.append(f"{v.id}: not stored")
            elif (f.status, f.available_at, f.superseded_at, f.expires_at) != (
                    v.status, v.available, v.superseded, v.expires):
                wrong.append(f"{v.id}: stored {f.status.value} {f.available_at} "
                             f"{f.superseded_at} {f.expires_at}")
    return wrong
