"""Ranking inside the legal set on the SQLite store (``vintage.graph.retrieval.index.SearchStore``).

Each leg is one query that applies the as-of predicate (``vintage.graph.sqlite.asof``) in its
``WHERE``, so the database answers with legal rows only and reads nothing else:

- keyword and exact: the postings of the query's terms and identifiers (``postings``, seeked by
  (tenant, term)) joined to their entries and facts. BM25 is scored from them and the tenant's
  statistics (its entry count and total length in ``generations``, each term's document
  frequency counted in ``postings``), with ``bm25s``'s arithmetic
  (``vintage.graph.retrieval.bm25``), so the scores are those of the reference store
  (``vintage.graph.embedded.search``), which builds a ``bm25s`` model over every entry;
- semantic: the legal entries' vectors by the query's model, read as one float32 matrix and
  multiplied by the query vector.

A sealed entry holds its terms and vector as ciphertext only, so the database can neither post
nor score it: a tenant's sealed entries (memories) are opened once per process and kept while
its index generation is the same, and ranked beside the postings in Python, legal by the same
SQL predicate. What no leg returns is never read: a search's cost grows with what its terms
match and what its filters admit, not with the store.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vintage.graph.core.asof import AsOf
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.exclusion import REASONS, SUBJECT, why_excluded
from vintage.graph.embedded.entries import Entry
from vintage.graph.retrieval import bm25
from vintage.graph.retrieval.index import Hits, TextQuery
from vintage.graph.sealing.sealed import Sealer
from vintage.graph.sqlite import reads
from vintage.graph.sqlite.asof import UNDECIDED, to_sql
from vintage.graph.sqlite.rows import entry_of
from vintage.graph.sqlite.search_sql import (
    OUTSIDE,
    Params,
    frequencies_sql,
    legal_count_sql,
    legal_entries_sql,
    legal_postings_sql,
    others_sql,
    pending_sql,
    postings_sql,
    scope_clause,
    sealed_sql,
)

Ranked = tuple[tuple[str, float], ...]
KEPT = 6  # reads kept: one search's postings, count of others and vectors, and those of a
# staleness check


@dataclass(frozen=True)
class Opened:
    """A tenant's sealed entries, opened, at its index generation ``generation``."""

    generation: int
    entries: dict[str, Entry]


class Ranking:
    """What a store keeps between searches: each tenant's sealed entries, opened; and the rows
    of the reads made since the database last changed (a search asks the same legal postings
    and vectors again in a deeper round, for more of each leg; the database's data version
    and the connection's change count say when they are stale)."""

    def __init__(self) -> None:
        self.sealed: dict[str, Opened] = {}
        self.rows: dict[str, list[Any]] = {}
        self.version: tuple[int, int, int] | None = None

    def holds(self, conn: sqlite3.Connection, sql: str, params: Params) -> bool:
        """Whether the rows of this read are kept (and still current)."""
        self._current(conn)
        return f"{sql}\n{sorted(params.items())!r}" in self.rows

    def _current(self, conn: sqlite3.Connection) -> None:
        # Per connection: each has its own data version (a reader's, or the writer's).
        version = (id(conn), int(conn.execute("PRAGMA data_version").fetchone()[0]),
                   conn.total_changes)
        if version != self.version:
            self.rows, self.version = {}, version

    def fetch(self, conn: sqlite3.Connection, sql: str, params: Params) -> list[Any]:
        self._current(conn)
        key = f"{sql}\n{sorted(params.items())!r}"
        if key not in self.rows:
            if len(self.rows) >= KEPT:
                self.rows = {}
            self.rows[key] = conn.execute(sql, params).fetchall()
        return self.rows[key]


# -- the runner -----------------------------------------------------------------------------------


def rank(conn: sqlite3.Connection, spec: AsOf, query: TextQuery, sealer: Sealer | None,
         cache: Ranking) -> Hits:
    """``spec`` (resolved) ranked by each leg of ``query``, inside the caller's transaction."""
    if query.per_leg < 1:
        raise InvalidArgument("a search returns at least one item per leg (per_leg >= 1)")
    tenant = spec.scope.tenant
    row = conn.execute("SELECT n, docs, terms FROM generations WHERE tenant = ?",
                       (tenant,)).fetchone()
    generation, docs, length = (0, 0, 0) if row is None else (int(x) for x in row)
    sealed = _opened(conn, tenant, generation, sealer, cache)
    legal_sealed = _legal_ids(conn, spec, sorted(sealed))
    pending = None if query.indexed_by is None else conn.execute(
        *pending_sql(tenant, query.indexed_by)).fetchone() is not None
    terms = list(dict.fromkeys(query.terms))  # a term repeated in the query counts once
    wanted = _wanted(query)
    # Counted: the postings with their verdicts, one read; else (or kept from the first
    # round) those of the legal set alone.
    judging = postings_sql(spec, wanted)
    found = [] if not wanted else cache.fetch(conn, *judging) if (
        query.counted or cache.holds(conn, *judging)) else [
        (*r, None) for r in cache.fetch(conn, *legal_postings_sql(spec, wanted))]
    posted = [(i, t, tf, n) for i, t, tf, n, why in found if why is None]
    for i in sorted(legal_sealed):
        counts: dict[str, int] = defaultdict(int)
        for t in sealed[i].terms:
            counts[t] += 1
        posted += [(i, t, counts[t], len(sealed[i].terms)) for t in wanted if t in counts]
    keyword = _keyword(conn, tenant, terms, posted, sealed, docs, length, query.per_leg)
    exact = _exact(posted, set(query.identifiers), query.per_leg)
    entries = None if query.vector is None or query.model is None else cache.fetch(
        conn, *legal_entries_sql(spec, query.model))
    semantic = _semantic(query, entries or [], sealed, legal_sealed)
    if not query.counted:
        return Hits(exact=exact, keyword=keyword, semantic=semantic, legal=0, matched=0,
                    pending=pending)
    legal = (conn.execute(*legal_count_sql(spec)).fetchone()[0] if entries is None
             else len(entries)) + len(legal_sealed)
    wanted_terms = set(terms)
    admitted = {i for i, t, _, _ in posted if t in wanted_terms}
    judged = sorted({i: why for i, t, _, _, why in found
                     if why is not None and why != OUTSIDE and t in wanted_terms}.items())
    # A sealed entry's terms are matched here, and its fact judged from its record, as is a
    # fact with a TTL.
    sealed_outside = [i for i in _in_scope(conn, spec, [
        i for i, e in sealed.items() if not wanted_terms.isdisjoint(e.terms)])
        if i not in admitted]
    undecided = [i for i, why in judged if why == UNDECIDED] + sealed_outside
    reason = why_excluded(spec)
    excluded: dict[str, int] = defaultdict(int)
    for why in [why for _, why in judged if why != UNDECIDED] + [
            reason(f) for f in reads.facts(conn, tenant, undecided, sealer).values()]:
        if why is not None:
            excluded[why] += 1
    others = _others(conn, spec, terms, cache)
    if others:
        excluded[SUBJECT] += others
    outside = len(judged) + len(sealed_outside) + others
    return Hits(exact=exact, keyword=keyword, semantic=semantic, legal=int(legal),
                matched=len(admitted) + outside,
                excluded={r: excluded[r] for r in REASONS if r in excluded}, pending=pending)


def read_ahead(conn: sqlite3.Connection, spec: AsOf, query: TextQuery, cache: Ranking) -> None:
    """Read into ``cache`` the rows ``rank`` reads for ``query`` (whose vector is not known yet):
    the postings of its terms, judged, and the legal entries by its model. A search embeds its
    question meanwhile, in another thread (``vintage.queries.search.run``): in a new process the
    model's load and these reads, the two largest costs of a search, overlap."""
    wanted = _wanted(query)
    if wanted and query.counted:
        cache.fetch(conn, *postings_sql(spec, wanted))
        _others(conn, spec, list(dict.fromkeys(query.terms)), cache)
    if query.model is not None:
        cache.fetch(conn, *legal_entries_sql(spec, query.model))


def _others(conn: sqlite3.Connection, spec: AsOf, terms: Sequence[str], cache: Ranking) -> int:
    """How many facts of subjects the read does not name its terms match in its scope (none
    when it names no subject: its postings read judged every one)."""
    if spec.subjects is None or not terms:
        return 0
    return int(cache.fetch(conn, *others_sql(spec, terms))[0][0])


def _wanted(query: TextQuery) -> list[str]:
    """The terms and identifiers whose postings a query reads, each once."""
    return sorted(set(query.terms) | set(query.identifiers))


def _opened(conn: sqlite3.Connection, tenant: str, generation: int, sealer: Sealer | None,
            cache: Ranking) -> dict[str, Entry]:
    """The tenant's sealed entries, opened (kept while its generation is the same). One sealed
    under a key since destroyed is gone with its fact."""
    cached = cache.sealed.get(tenant)
    if cached is None or cached.generation != generation:
        entries: dict[str, Entry] = {}
        for fact_id, model, sealed in conn.execute(*sealed_sql(tenant)):
            entry = entry_of(model, None, None, sealed, tenant, sealer)
            if entry is not None:
                entries[fact_id] = entry
        cached = cache.sealed[tenant] = Opened(generation, entries)
    return cached.entries


def _legal_ids(conn: sqlite3.Connection, spec: AsOf, ids: Sequence[str]) -> set[str]:
    if not ids:
        return set()
    where, params = to_sql(spec, "f")
    return {i for (i,) in conn.execute(
        f"SELECT f.id FROM facts f WHERE f.tenant = :asof_tenant AND f.id IN "
        f"(SELECT value FROM json_each(:ids)) AND {where}", {**params, "ids": reads.js(ids)})}


def _in_scope(conn: sqlite3.Connection, spec: AsOf, ids: Sequence[str]) -> list[str]:
    if not ids:
        return []
    scope, params = scope_clause(spec)
    return [i for (i,) in conn.execute(
        f"SELECT f.id FROM facts f WHERE f.tenant = :tenant AND f.id IN "
        f"(SELECT value FROM json_each(:ids)) AND {scope} ORDER BY f.id",
        {**params, "tenant": spec.scope.tenant, "ids": reads.js(ids)})]


def _keyword(conn: sqlite3.Connection, tenant: str, terms: list[str],
             posted: Sequence[tuple[str, str, int, int]], sealed: dict[str, Entry], docs: int,
             length: int, k: int) -> Ranked:
    """BM25 over the legal postings; statistics over the tenant's whole index (every entry
    in the clear, and the sealed ones opened), as the reference's model counts them."""
    docs += len(sealed)
    length += sum(len(e.terms) for e in sealed.values())
    wanted = set(terms)
    rows = [r for r in posted if r[1] in wanted]
    if not rows or not length:
        return ()
    df: dict[str, int] = dict(conn.execute(*frequencies_sql(tenant, terms)).fetchall())
    for e in sealed.values():
        for t in set(e.terms).intersection(terms):
            df[t] = df.get(t, 0) + 1
    ids = sorted({r[0] for r in rows})
    row_of = {i: n for n, i in enumerate(ids)}
    position = {t: n for n, t in enumerate(terms)}
    found = bm25.scores(
        terms, df, docs, length, len(ids),
        np.array([position[r[1]] for r in rows], dtype=np.int64),
        np.array([row_of[r[0]] for r in rows], dtype=np.int64),
        np.array([r[2] for r in rows], dtype=np.float64),
        np.array([r[3] for r in rows], dtype=np.float64)).astype(np.float64)
    return _best(ids, found, k, positive=True)


def _exact(posted: Iterable[tuple[str, str, int, int]], identifiers: set[str], k: int) -> Ranked:
    """The legal items carrying the query's identifiers, by how many distinct ones."""
    counts: dict[str, int] = defaultdict(int)
    for i, t, _, _ in posted:
        if t in identifiers:
            counts[i] += 1
    ids = sorted(counts)
    return _best(ids, np.array([counts[i] for i in ids], dtype=np.float64), k)


def _semantic(query: TextQuery, entries: Sequence[tuple[str, bytes | None]],
              sealed: dict[str, Entry], legal_sealed: set[str]) -> Ranked:
    """Cosine (float32 dot products of unit vectors) over the legal entries by the query's
    model: the database hands over their vectors (``legal_entries_sql``), one matrix."""
    if query.vector is None or query.model is None:
        return ()
    dim = len(query.vector)
    rows = [(i, v) for i, v in entries if v is not None and len(v) == 4 * dim]
    ids = [i for i, _ in rows]
    blobs = [v for _, v in rows]
    for i in sorted(legal_sealed):
        e = sealed[i]
        if e.model == query.model and e.vector.size == dim:
            ids.append(i)
            blobs.append(np.asarray(e.vector, dtype="<f4").tobytes())
    if not ids:
        return ()
    # In id order, a fresh array, as the reference multiplies its rows: BLAS may round a row's
    # dot product differently with its position and alignment, and the scores must be equal.
    order = np.argsort(np.array(ids), kind="stable")
    matrix = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(ids), dim)[order]
    sims = (matrix @ np.asarray(query.vector, dtype=np.float32)).astype(np.float64)
    return _best([ids[n] for n in order], sims, query.per_leg)


def _best(ids: Sequence[str], scores: npt.NDArray[np.float64], k: int,
          positive: bool = False) -> Ranked:
    """The ``k`` best (id, score), best first, ties by id (``ids`` are sorted); only scores
    above 0 when ``positive`` (BM25, as the reference keeps them)."""
    rows = np.flatnonzero(scores > 0) if positive else np.arange(len(ids))
    order = rows[np.lexsort((rows, -scores[rows]))][:k]
    return tuple((ids[int(o)], float(scores[o])) for o in order)
