"""Ranking inside the legal set on the SQLite store (``vintage.graph.retrieval.index.SearchStore``).

The legal set is one query: the as-of predicate (``vintage.graph.sqlite.asof``) over the tenant's
facts joined to their search entries, answered by the database with no fact decoded. The legs
rank as on the reference store (``vintage.graph.embedded.search``): BM25 over the tenant's whole
index, the exact identifiers, cosine over the query model's vectors, each masked to the legal
set. The ranking structures are built from the tenant's entries on the first search and kept
while the tenant's index generation (a row the writes move on) is the same, in this process
or any other.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict

import numpy as np
import numpy.typing as npt

from vintage.graph.core.asof import AsOf
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.exclusion import REASONS, why_excluded
from vintage.graph.embedded.entries import Entry
from vintage.graph.embedded.search import TenantIndex, legs
from vintage.graph.retrieval.index import Hits, TextQuery
from vintage.graph.sealing.sealed import Sealer
from vintage.graph.sqlite import reads
from vintage.graph.sqlite.asof import to_sql
from vintage.graph.sqlite.rows import entry_of

Mask = npt.NDArray[np.bool_]


def tenant_index(conn: sqlite3.Connection, tenant: str, sealer: Sealer | None,
                 cache: dict[str, TenantIndex]) -> TenantIndex:
    row = conn.execute("SELECT n FROM generations WHERE tenant = ?", (tenant,)).fetchone()
    generation = 0 if row is None else int(row[0])
    cached = cache.get(tenant)
    if cached is None or cached.generation != generation:
        entries: dict[str, Entry] = {}
        for fact_id, model, terms, vector, sealed in conn.execute(
                "SELECT fact_id, model, terms, vector, sealed FROM entries WHERE tenant = ?",
                (tenant,)):
            entry = entry_of(model, terms, vector, sealed, tenant, sealer)
            if entry is not None:  # sealed under a key since destroyed: gone with its fact
                entries[fact_id] = entry
        cached = cache[tenant] = TenantIndex(entries, generation)
    return cached


def _mask(index: TenantIndex, ids: list[str]) -> Mask:
    found = np.zeros(len(index.ids), dtype=np.bool_)
    rows = [index.columns.row[i] for i in ids if i in index.columns.row]
    found[rows] = True
    return found


class Ranking:
    """What a store keeps between searches: each tenant's ranking structures, and the legal
    sets of the reads made since the database last changed (one search asks the same read in
    several rounds; the database's data version and this connection's change count say when
    an answer is stale)."""

    def __init__(self) -> None:
        self.indexes: dict[str, TenantIndex] = {}
        self.legal: dict[str, tuple[Mask, Mask]] = {}
        self.version: tuple[int, int, int] | None = None

    def legal_set(self, conn: sqlite3.Connection, index: TenantIndex,
                  spec: AsOf) -> tuple[Mask, Mask]:
        # Per connection: each has its own data version (a reader's, or the writer's).
        version = (id(conn), int(conn.execute("PRAGMA data_version").fetchone()[0]),
                   conn.total_changes)
        if version != self.version:
            self.legal, self.version = {}, version
        key = f"{id(index)} {spec!r}"
        if key not in self.legal:
            self.legal[key] = legal(conn, index, spec)
        return self.legal[key]


def legal(conn: sqlite3.Connection, index: TenantIndex, spec: AsOf) -> tuple[Mask, Mask]:
    """The rows the as-of predicate admits, and the rows within the read's scope."""
    where, params = to_sql(spec, "f")
    join = "JOIN entries e ON e.tenant = f.tenant AND e.fact_id = f.id"
    admitted = [i for (i,) in conn.execute(f"SELECT f.id FROM facts f {join} WHERE {where}",
                                           params)]
    scope = spec.scope
    if spec.shared_only:
        clause = "f.scope = '[]'"
    else:
        clause = ("NOT EXISTS (SELECT 1 FROM json_each(:terms) t WHERE t.value NOT IN "
                  "(SELECT value FROM json_each(f.scope)))")
    in_scope = [i for (i,) in conn.execute(
        f"SELECT f.id FROM facts f {join} WHERE f.tenant = :tenant AND {clause}",
        {"tenant": scope.tenant, "terms": reads.js(scope.terms())})]
    return _mask(index, admitted), _mask(index, in_scope)


def rank(conn: sqlite3.Connection, spec: AsOf, query: TextQuery, sealer: Sealer | None,
         cache: Ranking) -> Hits:
    """``spec`` (resolved) ranked by each leg of ``query``, inside the caller's transaction."""
    if query.per_leg < 1:
        raise InvalidArgument("a search returns at least one item per leg (per_leg >= 1)")
    tenant = spec.scope.tenant
    index = tenant_index(conn, tenant, sealer, cache.indexes)
    pending = None if query.indexed_by is None else conn.execute(
        "SELECT 1 FROM facts f LEFT JOIN entries e ON e.tenant = f.tenant AND e.fact_id = f.id"
        " WHERE f.tenant = ? AND f.erased = 0 AND (e.model IS NULL OR e.model != ?) LIMIT 1",
        (tenant, query.indexed_by)).fetchone() is not None
    admitted, in_scope = cache.legal_set(conn, index, spec)
    terms = list(dict.fromkeys(query.terms))  # a term repeated in the query counts once
    exact, keyword, semantic = legs(index, admitted, query, terms)
    if not query.counted:
        return Hits(exact=exact, keyword=keyword, semantic=semantic, legal=0, matched=0,
                    pending=pending)
    matched = index.having(terms) & in_scope
    reason = why_excluded(spec)
    excluded: dict[str, int] = defaultdict(int)
    outside = [index.ids[n] for n in np.flatnonzero(matched & ~admitted).tolist()]
    for fact in reads.facts(conn, tenant, outside, sealer).values():
        why = reason(fact)
        if why is not None:
            excluded[why] += 1
    return Hits(exact=exact, keyword=keyword, semantic=semantic, legal=int(admitted.sum()),
                matched=int(matched.sum()),
                excluded={r: excluded[r] for r in REASONS if r in excluded}, pending=pending)
