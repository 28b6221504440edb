"""The search index a backend keeps beside its facts, and the seam it ranks through.

Every fact version gets one ``IndexEntry``: its text terms (``vintage.graph.retrieval.terms``, exact
identifiers included) and its unit vector (``vintage.graph.retrieval.embedder``). Entries are
derived content: a backend keeps them with the fact (Neo4j: properties of the node, under a
full-text and the exact cosine; embedded: the log, sealed like the fact's value) and erasure removes
them with the text they came from.

``rank`` is where the order of retrieval is kept (docs/retrieval.md): a backend ranks *inside*
the legal set of ``spec`` (the whole as-of predicate, run in the store before any score), so a
keyword or vector score never brings back an excluded item and an excluded item never pushes a
legal one out of the top. It also says, for the items of the tenant within the read's scope
that the query's terms matched, how many each hard filter excluded
(``vintage.graph.core.exclusion``). The scope is a boundary, not a filter to explain: an item beyond
it is neither counted nor given a reason, or the count would tell one user that another's memories
hold their words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Fact, Subject
from vintage.graph.retrieval.terms import RULES
from vintage.graph.store.protocol import Cited, StoreError, StoreTx


def index_key(embedder_name: str) -> str:
    """What an entry is made by, as it records it (``IndexEntry.model``) and a query asks for
    it: the embedder's name and the term rules' (``terms.RULES``). An entry made by another
    model or cut by other rules is stale, so ``unindexed`` returns its fact and the next
    search or ``vintage index`` makes it again; the vectors of two models are never
    compared."""
    return f"{embedder_name}+{RULES}"


@dataclass(frozen=True, slots=True)
class IndexEntry:
    fact_id: str
    terms: tuple[str, ...]  # vintage.graph.retrieval.terms.terms() of the fact's document, in order
    vector: tuple[float, ...]  # unit length, ``model``'s dimension
    model: str  # index_key(): the embedder's and the term rules' names


@dataclass(frozen=True, slots=True)
class TextQuery:
    terms: tuple[str, ...]  # vintage.graph.retrieval.terms.terms() of the query text
    identifiers: tuple[str, ...]  # the exact identifiers among them (vintage.graph.retrieval.terms)
    vector: tuple[float, ...] | None  # the query embedded by ``model`` (None: no semantic leg)
    model: str | None
    per_leg: int  # how many of each leg's best to return
    # False: the legs only, not the counts (legal, matched, excluded), which a deeper round of
    # one search already has from its first; Hits then holds 0 and {} for them on either
    # backend.
    counted: bool = True
    # The embedder a search indexes with: the read also says whether any of the tenant's facts
    # has no entry by it (Hits.pending), so that the index is refreshed only then. None: not
    # asked.
    indexed_by: str | None = None


@dataclass(frozen=True)
class Hits:
    """Each leg's best, within the legal set, as (fact id, score), best first, ties by id."""

    exact: tuple[tuple[str, float], ...]  # items carrying a query identifier (score: how many)
    keyword: tuple[tuple[str, float], ...]  # BM25 over the terms
    semantic: tuple[tuple[str, float], ...]  # cosine similarity to the query vector
    # legal, matched, excluded: 0, 0, {} when the query was not ``counted`` (a deeper round)
    legal: int  # how many items the legal set holds (those with an entry)
    matched: int  # items of the tenant within the read's scope the query terms matched, legal
    # or not (every scope term of the spec is in the item's scope)
    excluded: Mapping[str, int] = field(default_factory=dict)  # of ``matched``: reason -> count
    # Each similarity leg's scores, from this same read, of the items the other legs returned
    # that its own best lacks (none: it does not score them): what a search would ask the cut
    # legs for next by id (``vintage.queries.search.run``), given by a backend that has them at
    # hand; None when it did not (then they are asked for).
    also: Mapping[str, Mapping[str, float]] | None = None
    # Whether, at this read, some fact of the tenant (not erased) had no entry by the query's
    # ``indexed_by`` (what ``IndexTx.unindexed`` finds); None when not asked.
    pending: bool | None = None


@runtime_checkable
class IndexTx(StoreTx, Protocol):
    def unindexed(self, model: str, limit: int) -> list[Fact]:
        """Up to ``limit`` facts of the tenant with no entry (or one by another model), never
        erased ones, in a stable order: what the indexer has to embed next."""
        ...
    def put_index(self, entries: Sequence[IndexEntry]) -> None:
        """Store each entry on its fact (replacing any earlier one); a fact erased or gone
        meanwhile is skipped, so an entry never outlives its text."""
        ...
    def clear_index(self) -> int:
        """Drop every entry of the tenant, whatever its model, so that each fact not erased is
        unindexed again (a rebuild: how facts are described or tokenised changed); how many
        entries were dropped."""
        ...
    def cited_with_subjects(self, spec: AsOf) -> tuple[list[Cited], list[Subject]]:
        """``Store.read_cited(spec)`` (``spec`` resolved by the caller) with the subjects its
        facts name, by id, in one read: what a search fuses its candidates with."""
        ...


@runtime_checkable
class SearchStore(Protocol):
    def rank(self, spec: AsOf, query: TextQuery) -> Hits:
        """Rank ``spec``'s legal set (resolved against the store's clock here) by each leg."""
        ...


@runtime_checkable
class ReadsAhead(Protocol):
    """A store whose ranking reads the legal set's rows into the process (SQLite), which it can
    do before the question's vector exists: ``read_ahead(spec, query)`` reads what
    ``rank(spec, query with its vector)`` will, and keeps it while the store is unchanged. A
    search embeds its question meanwhile. Neo4j ranks in the server, from the vector: nothing
    to read ahead."""

    def read_ahead(self, spec: AsOf, query: TextQuery) -> None: ...


def index_tx(tx: StoreTx) -> IndexTx:
    if not isinstance(tx, IndexTx):
        raise StoreError(f"{type(tx).__name__} keeps no search index")
    return tx
