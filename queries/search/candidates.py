"""What fusing a search's candidates needs from the store (``vintage.queries.search.run``, step 2):
each candidate re-read through the whole as-of predicate with its cited sources and its subject (one
read), its count of the query's identifiers, and its demotion weight.

A deeper round reads only the candidates it adds: each candidate is read once per search, as
each round's ranking is a read of its own (docs/retrieval.md, "Search: the legal set first").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Subject
from vintage.graph.memory.ranking import FULL, weights
from vintage.graph.retrieval.documents import carried_among, is_memory, own_terms
from vintage.graph.retrieval.index import index_tx
from vintage.graph.store.protocol import Cited, Store
from vintage.queries.lineage.asof import as_known
from vintage.queries.search.fusion import Ranked

T = TypeVar("T")


@dataclass(frozen=True)
class Candidates:
    read: dict[str, Cited]  # the legal ones, as known at the cutoff
    exact: dict[str, float] | None  # identifier counts, when the mode runs the exact leg
    weights: dict[str, float]
    asked: frozenset[str]  # every id re-read so far, legal or not
    # The share of the query's distinct terms each carries, when the mode runs the keyword leg:
    # its keyword relevance (``fusion``), the same on every backend and in a tenant of any size.
    coverage: dict[str, float] | None = None


def read_candidates(store: Store, spec: AsOf, legs: dict[str, Ranked],
                    identifiers: Sequence[str], earlier: Candidates | None,
                    terms: Sequence[str] = ()) -> Candidates:
    """The legs' candidates, with what fusing them needs; ``earlier``: the last round's, whose
    reads a deeper round keeps for the candidates it found again."""
    ids = sorted({i for ranked in legs.values() for i, _ in ranked})
    asked = earlier.asked if earlier is not None else frozenset()
    fresh = [i for i in ids if i not in asked]
    read, subjects = _reread(store, spec, fresh)
    own = {i: own_terms(f, subjects.get(f.subject)) for i, (f, _) in read.items()} \
        if ("exact" in legs and identifiers) or ("keyword" in legs and terms) else {}
    exact = _exact_counts(read, own, identifiers) if "exact" in legs else None
    weighed = _weights(store, spec, read)
    covered = _coverage(read, own, terms) if "keyword" in legs else None
    if earlier is not None:
        read = {**_only(earlier.read, ids), **read}
        exact = None if exact is None or earlier.exact is None else \
            {**_only(earlier.exact, ids), **exact}
        weighed = {**_only(earlier.weights, ids), **weighed}
        covered = None if covered is None or earlier.coverage is None else \
            {**_only(earlier.coverage, ids), **covered}
    return Candidates(read, exact, weighed, asked | frozenset(fresh), covered)


def _only(found: dict[str, T], ids: Sequence[str]) -> dict[str, T]:
    return {i: found[i] for i in ids if i in found}


def _reread(store: Store, spec: AsOf,
            ids: Sequence[str]) -> tuple[dict[str, Cited], dict[str, Subject]]:
    """The ranked ids that are still legal, as known at the cutoff, with their cited sources,
    and the subjects they name, in one read."""
    if not ids:
        return {}, {}
    known, system = spec.known_at, spec.system_at
    assert known is not None and system is not None
    cited, subjects = store.reading(spec.scope.tenant, lambda tx: index_tx(
        tx).cited_with_subjects(replace(spec, ids=tuple(ids))))
    return ({f.id: (as_known(f, known, system), c) for f, c in cited},
            {s.id: s for s in subjects})


def _weights(store: Store, spec: AsOf, read: dict[str, Cited]) -> dict[str, float]:
    """Each candidate's demotion weight: a memory's as recorded at the cutoff; 1 for a
    business fact, which no demotion names (``vintage.graph.memory.ranking.demote`` takes a scope),
    so
    a search of filings does not read the tenant's demotions at all."""
    assert spec.known_at is not None
    memories = [i for i, (f, _) in read.items() if is_memory(f)]
    found = weights(store, spec.scope.tenant, memories, spec.known_at) if memories else {}
    return {i: found.get(i, FULL) for i in read}


def _exact_counts(read: dict[str, Cited], own: Mapping[str, frozenset[str]],
                  identifiers: Sequence[str]) -> dict[str, float]:
    """How many of the query's identifiers each candidate carries, counted on every candidate,
    not only on those the exact leg returned: that leg is cut at its depth among items that tie
    (every Q1 2018 figure carries "2018" and "q1"), and a candidate another leg found must not
    lose its count for the order the cut broke ties in. Counted on the document as of the
    cutoff (the sources it cites then), so a filing not yet public adds nothing."""
    wanted = frozenset(identifiers)
    if not wanted or not read:
        return {}
    return {i: float(carried_among(own[i], cited, wanted)) for i, (_, cited) in read.items()}


def _coverage(read: dict[str, Cited], own: Mapping[str, frozenset[str]],
              terms: Sequence[str]) -> dict[str, float]:
    """The share of the query's distinct terms each candidate's document carries (as of the
    cutoff). BM25 orders the keyword leg, but its scale moves with the corpus (a word's rarity
    in this tenant, on Neo4j in every tenant): the share of the question's words an item holds
    means the same everywhere, so relevance floors read it."""
    wanted = frozenset(terms)
    if not wanted:
        return {}
    return {i: carried_among(own[i], cited, wanted) / len(wanted)
            for i, (_, cited) in read.items()}
