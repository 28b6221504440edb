"""Ranking inside the legal set on the embedded store
(``vintage.graph.retrieval.index.SearchStore``).

The legal set comes first: the whole as-of predicate (``vintage.graph.core.asof.to_predicate``) over
the tenant's facts that have a search entry (``vintage.graph.embedded.legal``). Every leg then ranks
exactly within it, so a legal item is never lost because illegal ones outranked it:

- keyword: BM25 (``bm25s``, Lucene's variant) scored for *every* entry of the tenant, then
  masked to the legal set and sorted. Document frequencies count the tenant's whole index, as
  Neo4j's full-text index does, so a score does not depend on the read's filters;
- exact: the legal items carrying the query's identifiers, scored by how many distinct ones;
- semantic: cosine (the dot product of unit vectors, in float32) over the legal items whose
  vector comes from the query's model (and has its dimension: two models never compare).

Each leg keeps its best ``per_leg``, best first, ties by fact id. What the query's terms
matched is counted within the read's scope only: the scope is a boundary, and a count of
another user's matches would tell this user what that one holds. The tenant's BM25 index,
postings, vector matrices and the legal set's columns are built on the first search and kept
until its entries change (``State.generation``): a write that indexes pays nothing here, the
next search rebuilds.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from vintage.graph.core.asof import AsOf
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.exclusion import REASONS, why_excluded
from vintage.graph.embedded.entries import Entry
from vintage.graph.embedded.legal import Columns, legal
from vintage.graph.retrieval.index import Hits, TextQuery

if TYPE_CHECKING:
    import bm25s

    from vintage.graph.embedded.state import State

Mask = npt.NDArray[np.bool_]
Rows = npt.NDArray[np.int64]
Ranked = tuple[tuple[str, float], ...]


class TenantIndex:
    """One tenant's entries as ranking structures; row ``n`` is the ``n``-th fact id in
    order, so that sorting by row breaks ties by id."""

    def __init__(self, entries: dict[str, Entry], generation: int) -> None:
        self.generation = generation
        self.ids = sorted(entries)
        self.columns = Columns(self.ids)
        postings: dict[str, list[int]] = defaultdict(list)
        groups: dict[tuple[str, int], list[int]] = defaultdict(list)
        for n, i in enumerate(self.ids):
            e = entries[i]
            for term in dict.fromkeys(e.terms):
                postings[term].append(n)
            groups[(e.model, e.vector.size)].append(n)
        self.postings = {t: np.array(rows, dtype=np.int64) for t, rows in postings.items()}
        self.vectors = {key: (np.array(rows, dtype=np.int64),
                              np.stack([entries[self.ids[n]].vector for n in rows]))
                        for key, rows in groups.items()}
        self.bm25: bm25s.BM25 | None = None
        if postings:  # bm25s divides by the mean length: a corpus without a term has none
            import bm25s  # on the first search: a command that never searches skips its load

            self.bm25 = bm25s.BM25()
            self.bm25.index([list(entries[i].terms) for i in self.ids], show_progress=False)

    def having(self, terms: Iterable[str]) -> Mask:
        """The rows whose terms hold any of ``terms``."""
        found = np.zeros(len(self.ids), dtype=np.bool_)
        for t in terms:
            rows = self.postings.get(t)
            if rows is not None:
                found[rows] = True
        return found


def tenant_index(state: State, tenant: str) -> TenantIndex:
    """The tenant's ranking structures, rebuilt if its entries changed since they were built.
    The caller holds the store's lock."""
    generation = state.generation.get(tenant, 0)
    cached = state.rank_cache.get(tenant)
    if not isinstance(cached, TenantIndex) or cached.generation != generation:
        cached = TenantIndex(dict(state.entries.get(tenant, {})), generation)
        state.rank_cache[tenant] = cached
    return cached


def rank(state: State, spec: AsOf, query: TextQuery) -> Hits:
    """``spec`` (resolved) ranked by each leg of ``query``; the caller holds the lock."""
    if query.per_leg < 1:
        raise InvalidArgument("a search returns at least one item per leg (per_leg >= 1)")
    tenant = spec.scope.tenant
    index = tenant_index(state, tenant)
    facts = state.facts.get(tenant, {})
    pending = None if query.indexed_by is None else \
        next(unindexed_ids(state, tenant, query.indexed_by), None) is not None
    admitted, in_scope = legal(index.columns, facts, spec)
    terms = list(dict.fromkeys(query.terms))  # a term repeated in the query counts once
    exact, keyword, semantic = legs(index, admitted, query, terms)
    if not query.counted:
        return Hits(exact=exact, keyword=keyword, semantic=semantic, legal=0, matched=0,
                    pending=pending)
    matched = index.having(terms) & in_scope
    reason = why_excluded(spec)
    excluded: dict[str, int] = defaultdict(int)
    for n in np.flatnonzero(matched & ~admitted):
        why = reason(facts[index.ids[n]])
        if why is not None:
            excluded[why] += 1
    return Hits(exact=exact, keyword=keyword, semantic=semantic, legal=int(admitted.sum()),
                matched=int(matched.sum()),
                excluded={r: excluded[r] for r in REASONS if r in excluded}, pending=pending)


def unindexed_ids(state: State, tenant: str, model: str) -> Iterator[str]:
    """The ids of the tenant's facts, not erased, with no entry by ``model`` (the indexer's
    queue: ``IndexTx.unindexed``)."""
    entries = state.entries.get(tenant, {})
    for i, f in state.facts.get(tenant, {}).items():
        entry = entries.get(i)
        if f.erased_at is None and (entry is None or entry.model != model):
            yield i


def legs(index: TenantIndex, admitted: Mask, query: TextQuery,
         terms: list[str]) -> tuple[Ranked, Ranked, Ranked]:
    """Each leg's best ``query.per_leg`` (exact, keyword, semantic) among the ``admitted`` rows
    of ``index``: the ranking both embedded stores share (the log store's and SQLite's)."""
    keyword: Ranked = ()
    if terms and index.bm25 is not None:
        scores = index.bm25.get_scores(terms).astype(np.float64)
        rows = np.flatnonzero(admitted & (scores > 0))
        keyword = _best(index, rows, scores[rows], query.per_leg)
    counts = np.zeros(len(index.ids), dtype=np.float64)
    for ident in set(query.identifiers):
        carrying = index.postings.get(ident)
        if carrying is not None:
            counts[carrying] += 1
    exact_rows = np.flatnonzero(admitted & (counts > 0))
    exact = _best(index, exact_rows, counts[exact_rows], query.per_leg)
    semantic: Ranked = ()
    if query.vector is not None and query.model is not None:
        group = index.vectors.get((query.model, len(query.vector)))
        if group is not None:
            rows, matrix = group
            inside = admitted[rows]
            sims = matrix[inside] @ np.asarray(query.vector, dtype=np.float32)
            semantic = _best(index, rows[inside], sims.astype(np.float64), query.per_leg)
    return exact, keyword, semantic


def _best(index: TenantIndex, rows: Rows, scores: npt.NDArray[np.float64], k: int) -> Ranked:
    """The ``k`` best (id, score), best first, ties by id (rows are in id order)."""
    order = np.lexsort((rows, -scores))[:k]
    return tuple((index.ids[int(rows[o])], float(scores[o])) for o in order)
