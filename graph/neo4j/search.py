"""The Neo4j search index: ``vintage.graph.retrieval.index``'s seam over the builders of
``vintage.graph.neo4j.cypher_search``.

Text terms are blinded before they reach the server (``vintage.graph.sealing.sealed.Sealer.blind``):
Lucene's files and the store's hold HMACs under the tenant's index key, never the words of a sealed
memory, and a query's terms are blinded the same way to match them. A store opened without a
key store writes everything plain; its terms are hashed with no key, which hides nothing that
its facts do not already show.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import neo4j

from vintage.graph.core.asof import AsOf
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.model import Fact, Subject
from vintage.graph.neo4j import cypher_reads as reads
from vintage.graph.neo4j import cypher_search as cs
from vintage.graph.neo4j import ranker
from vintage.graph.neo4j.cypher import Query
from vintage.graph.neo4j.rows import fact_from, source_from, subject_from
from vintage.graph.neo4j.schema import FACT_TEXT
from vintage.graph.neo4j.tx import Neo4jTx
from vintage.graph.retrieval.index import Hits, IndexEntry, TextQuery
from vintage.graph.sealing.sealed import Sealer, blinded
from vintage.graph.store.protocol import Cited, check_tenant

# Lucene refuses a query of more than 1024 clauses; a query text this long is a document.
MAX_QUERY_TERMS = 1000
_UNKEYED = b"vintage search terms, no key store"
CLEAR_BATCH = 10_000


def prepare(session: neo4j.Session) -> None:
    """Before the schema is created: a store without the full-text index predates the search
    index, so its facts are queued for an entry first. The index itself is the mark that this
    was done (a crash in between leaves it absent, and the next open queues them again), and
    a store that has it is never scanned for this."""
    found = cs.index_exists(FACT_TEXT)
    if session.run(found.text, found.params).single() is None:
        adopt = cs.adopt_unindexed()
        session.run(adopt.text, adopt.params).consume()


def blind(sealer: Sealer | None, tenant: str, terms: Sequence[str],
          create: bool) -> dict[str, str]:
    """Each distinct term and its blinded token; empty when the tenant has no index key yet
    (and ``create`` is false): no entry of it can match."""
    distinct = list(dict.fromkeys(terms))
    if sealer is None:
        return {t: blinded(_UNKEYED, t) for t in distinct}
    tokens = sealer.blind(tenant, distinct, create=create)
    return {} if tokens is None else dict(zip(distinct, tokens, strict=True))


def _check_vector(vector: Sequence[float], what: str) -> None:
    if not vector or not all(isinstance(x, float | int) and math.isfinite(x) for x in vector):
        raise InvalidArgument(f"{what}: a vector of finite numbers, at least one")
    if not any(vector):
        raise InvalidArgument(f"{what}: the zero vector has no direction to compare")


def _check_entries(entries: Sequence[IndexEntry]) -> None:
    seen: set[str] = set()
    for e in entries:
        if e.fact_id in seen:
            raise InvalidArgument(f"two index entries for fact {e.fact_id}")
        seen.add(e.fact_id)
        if not e.model:
            raise InvalidArgument(f"the index entry of {e.fact_id} names no model")
        if any(not t or any(c.isspace() for c in t) for t in e.terms):
            raise InvalidArgument(f"the index entry of {e.fact_id} has an empty or spaced term")
        _check_vector(e.vector, f"the index entry of {e.fact_id}")
    dims = {(e.model, len(e.vector)) for e in entries}
    if len({m for m, _ in dims}) != len(dims):
        raise InvalidArgument("one model's vectors must all have one dimension")


class SearchTx(Neo4jTx):
    """A Neo4j transaction that also keeps the search index
    (``vintage.graph.retrieval.index.IndexTx``).
    ``columns``: the server ranks from the plugin's columns (``Neo4jStore.server_ranker``),
    and a search's re-read is asked of them first (``vintage.graph.neo4j.ranker.reread_call``)."""

    def __init__(self, tx: Any, tenant: str, sealer: Sealer | None = None,
                 procedures: bool = False, writing: bool = False, columns: bool = False) -> None:
        super().__init__(tx, tenant, sealer, procedures, writing)
        self.columns = columns

    def unindexed(self, model: str, limit: int) -> list[Fact]:
        if not model:
            raise InvalidArgument("unindexed() needs the model the index is built with")
        if limit < 1:
            raise InvalidArgument("unindexed() needs a limit of at least 1")
        found: list[Fact] = []
        after = ""
        while len(found) < limit:
            page = [fact_from(r["f"], self.sealer)
                    for r in self._run(cs.unindexed(self.tenant, model, limit, after))]
            # A sealed fact whose key is gone reads as erased (a backup restored after a
            # forget): left out, and the next page read, so that a page of only those does not
            # look like the end of the queue.
            found += [f for f in page if f.erased_at is None]
            if len(page) < limit:
                break
            after = page[-1].id
        return found[:limit]

    def put_index(self, entries: Sequence[IndexEntry]) -> None:
        _check_entries(entries)
        if not entries:
            return
        targets = {r["id"]: r for r in self._batch(cs.index_targets,
                                                   [e.fact_id for e in entries])}
        live = [e for e in entries if e.fact_id in targets]  # erased or gone: skipped
        if not live:
            return
        tokens = blind(self.sealer, self.tenant, [t for e in live for t in e.terms],
                       create=True)
        rows = [{"id": e.fact_id, "model": e.model, "vector": [float(x) for x in e.vector],
                 "terms": " ".join([*cs.entry_filters(self.tenant, targets[e.fact_id]["scope"],
                                                      targets[e.fact_id]["kind"]),
                                    *(tokens[t] for t in e.terms)])}
                for e in live]
        self._batch(cs.put_entries, rows)

    def clear_index(self) -> int:
        dropped = 0
        while True:  # in slices, so that no one query holds every node of a large tenant
            (row,) = self._run(cs.clear_entries(self.tenant, CLEAR_BATCH))
            cleared = int(row["cleared"])
            dropped += cleared
            if cleared < CLEAR_BATCH:
                return dropped

    def cited_with_subjects(self, spec: AsOf) -> tuple[list[Cited], list[Subject]]:
        check_tenant(self.tenant, spec.scope)
        served = self.columns and spec.ids is not None and ranker.serves(spec)
        rows = self._run(ranker.reread_call(spec)) if served else []
        (row,) = rows or self._run(reads.read_cited_with_subjects(spec))
        by_id = {s["id"]: source_from(s) for s in row["sources"]}
        cited = [(fact_from(r["f"], self.sealer), tuple(by_id[i] for i in r["sources"]))
                 for r in row["rows"]]
        return ([(f, sources) for f, sources in cited if f.erased_at is None],
                [subject_from(s) for s in row["subjects"]])


def rank(run: Callable[[Query], list[dict[str, Any]]], sealer: Sealer | None, spec: AsOf,
         query: TextQuery, server_ranker: bool = False) -> Hits:
    """``SearchStore.rank`` on Neo4j, ``spec`` already resolved: one query (cs.rank), or, on
    a server with the plugin's ranker and a read it serves, ``vintage.rank`` first
    (vintage.graph.neo4j.ranker), and cs.rank only when it had no columns to rank from."""
    if query.per_leg < 1:
        raise InvalidArgument("a search returns at least one item per leg")
    if query.vector is not None:
        if query.model is None:
            raise InvalidArgument("a query vector needs the model that embedded it")
        _check_vector(query.vector, "the query vector")
    terms = list(dict.fromkeys([*query.terms, *query.identifiers]))
    if len(terms) > MAX_QUERY_TERMS:
        raise InvalidArgument(f"a search of {len(terms)} distinct terms; at most "
                              f"{MAX_QUERY_TERMS}")
    tokens = blind(sealer, spec.scope.tenant, terms, create=False)
    identifiers = [tokens[t] for t in dict.fromkeys(query.identifiers) if t in tokens]
    args = (spec, list(tokens.values()), identifiers, query.vector, query.model,
            query.per_leg, query.counted)
    def asked(rank: Query) -> Query:
        return rank if query.indexed_by is None else \
            cs.with_pending(rank, spec.scope.tenant, query.indexed_by)
    rows = run(asked(ranker.rank_call(*args))) if server_ranker and ranker.serves(spec) \
        else []
    row = rows[0] if rows else run(asked(cs.rank(*args)))[0]
    return Hits(
        exact=tuple((i, float(s)) for i, s in row["exact"]),
        keyword=tuple((i, float(s)) for i, s in row["keyword"]),
        semantic=tuple((i, float(s)) for i, s in row["semantic"]),
        legal=row["legal"], matched=row["matched"],
        excluded={str(reason): int(n) for reason, n in row["excluded"]},
        also=None if row.get("also") is None else
        {str(leg): {i: float(s) for i, s in pairs} for leg, pairs in row["also"].items()},
        pending=None if query.indexed_by is None else bool(row["pending"]),
    )
