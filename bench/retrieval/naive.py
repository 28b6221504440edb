"""The naive reference: the same scores, ranked over the whole tenant first, filtered after.

What a search built on a global index does: ask each leg for its best ``DEPTH`` items over
*every* entry of the tenant (other users' memories, superseded versions, expired items,
candidates), fuse them with the product's rule (``vintage.queries.search.fusion.fuse``), keep the
first
``LIMIT`` and only then drop what the reader may not see. It runs on the embedded store's own
ranking structures (``vintage.graph.embedded.search.tenant_index``: the same BM25 index, postings
and vectors the embedded backend ranks with), so the one difference from the product is the order
of "filter" and "rank". Reported: its recall, the legal answers it loses that the legal-first
search found, and how many illegal items its unfiltered top ``LIMIT`` held (what it would leak
without the filter).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from bench.retrieval.queries import Query, legal
from bench.retrieval.run import LIMIT, Answer, Truth, hit
from vintage.graph.embedded.search import TenantIndex, tenant_index
from vintage.graph.embedded.store import EmbeddedStore
from vintage.graph.retrieval.embedder import Embedder
from vintage.graph.retrieval.terms import identifiers, terms
from vintage.queries.search.fusion import LEGS, Mode, Ranked, fuse, per_leg

DEPTH = per_leg(LIMIT)  # how many of each leg the product fuses first (its candidates)
Result = dict[str, Any]


def _best(index: TenantIndex, scores: npt.NDArray[np.float64], rows: npt.NDArray[np.int64]
          ) -> Ranked:
    order = np.lexsort((rows, -scores[rows]))[:DEPTH]
    return tuple((index.ids[int(rows[o])], float(scores[rows[o]])) for o in order)


def global_top(store: EmbeddedStore, embedder: Embedder, q: Query, tenant: str, mode: Mode,
               now: datetime) -> list[str]:
    """The first ``LIMIT`` ids over the whole tenant, before any filter."""
    index = tenant_index(store.state, tenant)
    facts = store.state.facts.get(tenant, {})
    legs: dict[str, Ranked] = {}
    words = list(dict.fromkeys(terms(q.text)))
    if "keyword" in LEGS[mode] and words and index.bm25 is not None:
        scores = index.bm25.get_scores(words).astype(np.float64)
        legs["keyword"] = _best(index, scores, np.flatnonzero(scores > 0))
    if "exact" in LEGS[mode]:
        counts = np.zeros(len(index.ids), dtype=np.float64)
        for ident in set(identifiers(q.text)):
            rows = index.postings.get(ident)
            if rows is not None:
                counts[rows] += 1
        legs["exact"] = _best(index, counts, np.flatnonzero(counts > 0))
    if "semantic" in LEGS[mode]:
        vector = embedder.embed([q.text])[0]
        group = index.vectors.get((embedder.name, len(vector)))
        if group is not None:
            rows, matrix = group
            sims = np.zeros(len(index.ids), dtype=np.float64)
            sims[rows] = matrix @ vector
            legs["semantic"] = _best(index, sims, rows)
    ids = {i for ranked in legs.values() for i, _ in ranked}
    scored = fuse(legs, {i: facts[i] for i in ids if i in facts}, {}, q.cutoff or now)
    return [s.id for s in scored[:LIMIT]]


def compare(store: EmbeddedStore, embedder: Embedder, queries: Sequence[Query],
            tenants: Mapping[str, str], answers: Sequence[Answer], truth: Truth) -> Result:
    """Per mode: the naive recall, the answers it loses against the product's, the illegal
    items its unfiltered top held."""
    mine = {(a.query, a.mode): a for a in answers}
    out: Result = {}
    for mode in sorted({Mode(a.mode) for a in answers}, key=list(Mode).index):
        r5 = lost = leaked = scored = 0.0
        lost_ids = []
        for q in queries:
            ours = mine.get((q.id, mode.value))
            if ours is None:
                continue
            top = global_top(store, embedder, q, tenants[q.tenant], mode, ours.now)
            keep = []
            for i in top:
                v = truth.get((q.tenant, i))
                if v is not None and legal(q, v, ours.now):
                    keep.append(i)
                else:
                    leaked += 1
            if q.expected:
                scored += 1
                r5 += hit(q, keep)[1]
                theirs, found = set(keep[:5]), set(ours.ids[:5])
                gone = [e for e in q.expected if e in found and e not in theirs]
                lost += len(gone)
                if gone:
                    lost_ids.append(q.id)
        out[mode.value] = {"recall@5": r5 / scored if scored else None,
                           "answers_lost": int(lost), "queries_losing": lost_ids[:40],
                           "illegal_in_unfiltered_top": int(leaked)}
    return out
