"""The naive RAG peer: one global top-k by embedding over every text the tenant was given.

What a team without a temporal store builds first: each write's text is embedded into one list
(a vector store), and a question takes the k nearest, with no scope, time or status filter, then
the same answer rule as every rung. It is given what the engine was given, in the same order;
an erasure deletes the erased memory's texts (a vector store's delete by id): nothing else
(invalidation, retraction, rollback, expiry, supersession) reaches it, since it keeps no such
state. Each item keeps the id of the engine's version, so the same checks read both.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vintage.graph.retrieval.counting import token_counter
from vintage.graph.retrieval.embedder import Embedder, query_vector
from vintage.graph.store.protocol import Store
from vintage.queries.eval import scenario as sc
from vintage.queries.eval.rungs import Handed, Shown
from vintage.queries.eval.written import Replay, Settable, Written

K = 10


@dataclass
class NaiveRag:
    embedder: Embedder
    name: str = "naive-rag"
    k: int = K
    _texts: list[Written] = field(default_factory=list)
    _vectors: Any = None

    def load(self, replay: Replay) -> None:
        erased = {id(w) for w in replay.forgotten}
        # Everything it was given, refused by the engine's gates or not: it has no gates.
        kept = [w for w in replay.written if w.text and id(w) not in erased]
        self._texts = kept
        self._vectors = (np.asarray(self.embedder.embed([w.text for w in kept]))
                         if kept else None)

    def ask(self, store: Store, clock: Settable, replay: Replay, a: sc.Ask) -> Handed:
        started = time.perf_counter()
        if self._vectors is None:
            return Handed((), (), "", 0, a.budget, nothing_relevant=False,
                          seconds=time.perf_counter() - started)
        query = np.asarray(query_vector(self.embedder, a.query), dtype=np.float32)
        order = np.argsort(-(self._vectors @ query), kind="stable")[: self.k]
        chosen = [self._texts[i] for i in order]
        items = tuple(Shown(id=w.ids[-1] if w.ids else w.name, subject=w.subject, key=w.key,
                            value=w.value, status="active", sources=1) for w in chosen)
        text = "\n".join(f"- {w.text}" for w in chosen)
        counter = token_counter()
        lines, used = [], 0
        for item, w in zip(items, chosen, strict=True):  # cut to the budget, best first
            cost = counter.count(f"- {w.text}\n")
            if used + cost > a.budget:
                break
            lines.append(item)
            used += cost
        text = "\n".join(f"- {w.text}" for w in chosen[: len(lines)])
        return Handed(tuple(lines), tuple(i.id for i in items), text, used, a.budget,
                      nothing_relevant=False, seconds=time.perf_counter() - started)
