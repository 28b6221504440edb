"""Search: find facts and memories by what they say, inside the legal set only.

The order is fixed (docs/retrieval.md, "Search: the legal set first"; docs/contract.md,
"Retrieval and context"):

1. **The legal set, in the store.** The request becomes one as-of spec: tenant and scope (fail
   closed: a search naming a user, project or thread reads that scope's memories; one naming
   none reads the tenant's shared facts only, the filings and tables that carry no scope term,
   and never a memory; every scope at once is ``all_scopes`` with an actor, and is audited),
   knowledge cutoff, valid time, system instant, statuses (active and conflicted;
   candidates only when asked), subjects and kinds. ``form`` and ``period`` are a two-stage
   filter: the facts of the spec whose valid period lies in ``period`` and that a source of
   ``form`` supports at the cutoff are found first, and the ranking runs over those ids only.
   The index is complete at the ranking read: that read also says whether any of the tenant's
   facts has no entry by the embedder (``Hits.pending``), and only then is the index brought
   up to date (``vintage.graph.retrieval.indexer.refresh``) and the read made again, so no
   legal item is missing for want of an entry and a search of an indexed tenant pays no read
   for it.
2. **Ranking inside it.** The store ranks each leg of the mode within that set
   (``SearchStore.rank``; a store that reads the legal set's rows into the process reads them
   while the question is embedded: ``ReadsAhead``); ``vintage.queries.search.fusion`` fuses
   them and ``vintage.queries.search.diverse`` steps down a memory whose key an answer above
   has. The fused ids are read again through the whole as-of predicate (``AsOf.ids``), which
   also gives their values and cited sources: nothing shown is not legal
   (``vintage.queries.search.candidates``: once per search, a deeper round reading only the
   candidates it adds).
3. **Checks.** Duplicates (one subject, predicate, period, unit and value, from several versions
   or echoed in several scopes) collapse to the current version, at the best position any of
   them had; the sides of a conflict set are shown together, each naming the others.
4. **The limit** counts answers: a conflict set is one answer, never split.

Valid time, unless ``valid_at`` or ``period`` says: a scoped search (memories) reads what holds
at the cutoff; a search of shared facts, or of all scopes, reads every valid time, as
``vintage facts`` does, since a business fact for Q1 2018 is still the answer about Q1 2018 at a
2018-06-30 cutoff. Whatever the window, a memory whose TTL ended by the cutoff is out
(``AsOf.unexpired_at``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import datetime

from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Source
from vintage.graph.memory.scoping import audited_while, require_read_scope
from vintage.graph.retrieval.embedder import Embedder, cosine_floor, query_vector
from vintage.graph.retrieval.index import ReadsAhead, SearchStore, TextQuery, index_key
from vintage.graph.retrieval.indexer import Progress, refresh
from vintage.graph.retrieval.terms import identifiers, query_terms
from vintage.graph.store.protocol import Store, StoreError, StoreTx
from vintage.queries.lineage.staleness import ReadInstants, Stale, decide
from vintage.queries.search.abstain import Verdict, judge
from vintage.queries.search.candidates import Candidates, read_candidates
from vintage.queries.search.checks import Checked, arrange
from vintage.queries.search.closed import closed_for, closing, scoped
from vintage.queries.search.diverse import diversified, diversify
from vintage.queries.search.fusion import (
    REACH,
    Mode,
    Ranked,
    Rescored,
    cut_legs,
    deep_enough,
    fuse,
    heads,
    legs_of,
    per_leg,
    unscored,
)
from vintage.queries.search.request import (
    Found,
    SearchRequest,
    SearchResult,
    check,
    found,
    legal_spec,
    two_stage_ids,
)

__all__ = ["search"]


def search(store: Store, embedder: Embedder, request: SearchRequest, *,
           progress: Progress | None = None) -> SearchResult:
    """The legal items that best answer ``request.query`` (module docstring); ``progress``
    hears how many facts were indexed when the store had some without an entry."""
    check(request)
    ranker = _ranker(store)
    tenant = request.scope.tenant
    if request.all_scopes:
        require_read_scope(request.scope, "a search", all_scopes=True)
    spec = legal_spec(store, request)  # a malformed request fails here, before any write
    if not request.all_scopes:
        return _searched(store, ranker, embedder, request, spec, progress)
    with audited_while(store, tenant, actor=request.actor, read="search",
                       subject=",".join(request.subjects or ()) or "-"):
        return _searched(store, ranker, embedder, request, spec, progress)


def _searched(store: Store, ranker: SearchStore, embedder: Embedder, request: SearchRequest,
              spec: AsOf, progress: Progress | None = None) -> SearchResult:
    tenant = request.scope.tenant
    if request.form is not None or request.period is not None:
        spec = replace(spec, ids=two_stage_ids(store, spec, request.form, request.period))
    semantic = request.mode in (Mode.SEMANTIC, Mode.HYBRID)
    depth = per_leg(request.limit)  # the candidates: each leg's first ``depth``
    query = TextQuery(terms=tuple(query_terms(request.query)),
                      identifiers=tuple(identifiers(request.query)), vector=None,
                      model=index_key(embedder.name) if semantic else None,
                      per_leg=REACH * depth, indexed_by=index_key(embedder.name))
    if semantic:
        query = replace(query, vector=_asked(ranker, embedder, spec, query, request.query))
    counts = hits = ranker.rank(spec, query)
    # A fact had no entry yet (or the store did not say): ranked again once indexed. One that
    # cannot be (a sealed fact whose key is gone reads as erased) costs no second read.
    if hits.pending is not False and refresh(store, tenant, embedder, progress=progress):
        counts = hits = ranker.rank(spec, query)
    query = replace(query, indexed_by=None)  # later reads of this search rank only
    candidates: Candidates | None = None
    floor = cosine_floor(embedder)
    while True:  # deeper until no item below the candidates could reach the results
        legs = legs_of(request.mode, hits)
        candidates = read_candidates(store, spec, heads(legs, depth), query.identifiers,
                                     candidates, query.terms)
        # What the ranking read already scored of them (``Hits.also``) costs no read: taken
        # now, it spares fusing the candidates a second time with it (a filing question's
        # exact leg is cut among ties every round: each round fused twice before).
        missing = unscored(legs, depth, counts.legal, query.per_leg)
        rescored = _given(missing, hits.also)
        considered = _considered(store, spec, legs, candidates, rescored, floor)
        enough = _enough(considered, legs, depth, query.per_leg, counts.legal, request.limit,
                         rescored, floor)
        # First the candidates a cut leg missed, by id (too few answers: only depth helps).
        if not enough and not rescored and missing and \
                len(_answers(considered)) >= request.limit:
            rescored = _rescore(ranker, spec, query, missing)
            considered = _considered(store, spec, legs, candidates, rescored, floor)
            enough = _enough(considered, legs, depth, query.per_leg, counts.legal,
                             request.limit, rescored, floor)
        if enough:
            break
        depth *= 2
        # Past what the legs returned, and some were cut there: they are ranked again, further.
        if depth > query.per_leg and cut_legs(legs, query.per_leg, counts.legal):
            # The counts do not change with the depth: a deeper round ranks the legs alone.
            query = replace(query, per_leg=REACH * depth, counted=False)
            hits = ranker.rank(spec, query)
    # Staleness is marked after the checks, on what is shown, at the read's own instants.
    assert spec.known_at is not None and spec.system_at is not None
    read = ReadInstants(spec.known_at, spec.system_at, request.valid_at, request.min_authority)
    marks, inputs, closes = _marks_and_inputs(store, spec, considered, read)
    shown = tuple(found(c, n, marks.get(c.fact.id), inputs.get(c.fact.id, ()))
                  for n, c in enumerate(considered, start=1))
    closed = closed_for(store, ranker, spec, query, request.mode, request.limit, read, closes)
    verdict = _verdict(request, embedder, considered, counts.legal)
    return SearchResult(request.query, request.mode,
                        _head(shown, request.limit) if verdict.relevant else (),
                        shown, counts.legal, counts.matched, dict(counts.excluded),
                        depth, len(set().union(*(r.asked for r in rescored.values()))),
                        closed, request.min_authority, verdict)


def _marks_and_inputs(store: Store, spec: AsOf, considered: Sequence[Checked],
                      read: ReadInstants) -> tuple[dict[str, Stale],
                                                   dict[str, tuple[Source, ...]],
                                                   dict[str, datetime]]:
    """The staleness of the shown items (``vintage.queries.lineage.staleness``), what those
    that cite no source of their own (a derived figure, a summary) rest on (their inputs'
    sources at any depth, at the read's instants), and the closed items the read may have to
    name (``closed.closing``): one transaction for the three, each asked only when there is
    something to ask."""
    ids = [c.fact.id for c in considered]
    bare = [c.fact.id for c in considered if not c.sources]
    if not ids and not scoped(spec):
        return {}, {}, {}

    def three(tx: StoreTx) -> tuple[dict[str, Stale], dict[str, tuple[Source, ...]],
                                    dict[str, datetime]]:
        inputs = tx.input_sources(bare, read.known_at, read.system_at) if bare else {}
        return decide(tx, ids, read) if ids else {}, inputs, closing(tx, spec, read)

    return store.reading(spec.scope.tenant, three)


def _verdict(request: SearchRequest, embedder: Embedder,
             considered: Sequence[Checked], legal: int) -> Verdict:
    """Whether the answers hold anything relevant (``vintage.queries.search.abstain``); a side
    of a conflict set shown with score 0 for its set is judged with its set."""
    signals = [c.scored.signals for c in _answers(considered)]
    return judge(request.mode, embedder.name,
                 [(s.get("exact", 0.0), s.get("relevance", 0.0)) for s in signals],
                 legal=legal)


def _given(missing: dict[str, list[str]],
           given: Mapping[str, Mapping[str, float]] | None) -> dict[str, Rescored]:
    """Each cut leg's scores of the candidates it did not return (``missing``), as the ranking
    read gave them beside the legs (``Hits.also``); none when it did not give every such leg
    (then ``_rescore`` asks, and only if the candidates' answers are not final without)."""
    if not missing or given is None or not all(leg in given for leg in missing):
        return {}
    return {leg: Rescored(frozenset(ids), {i: given[leg][i] for i in ids if i in given[leg]})
            for leg, ids in missing.items()}


def _rescore(ranker: SearchStore, spec: AsOf, query: TextQuery,
             missing: dict[str, list[str]]) -> dict[str, Rescored]:
    """Each cut leg's scores of the candidates it did not return (``missing``): one ranking of
    the legal set narrowed to those ids: a leg's score of an item does not depend on what else
    is legal (BM25's statistics are the whole index's, a cosine is the item's own). A read of
    its own: a write committed since the legs were ranked can move BM25's statistics."""
    asked = sorted({i for ids in missing.values() for i in ids})
    narrowed = replace(query, terms=query.terms if "keyword" in missing else (),
                       identifiers=(), per_leg=len(asked), counted=False,
                       vector=query.vector if "semantic" in missing else None)
    hits = ranker.rank(replace(spec, ids=tuple(asked)), narrowed)
    wanted = {leg: frozenset(ids) for leg, ids in missing.items()}
    return {leg: Rescored(ids, {i: s for i, s in getattr(hits, leg) if i in ids})
            for leg, ids in wanted.items()}


def _considered(store: Store, spec: AsOf, legs: dict[str, Ranked], candidates: Candidates,
                rescored: dict[str, Rescored], floor: float) -> list[Checked]:
    """The legs' legal candidates fused, checked and diversified (module docstring, steps
    2-3; ``vintage.queries.search.diverse``); shown (``request.found``) once the last round has
    them."""
    assert spec.known_at is not None
    scored = fuse(legs, {i: f for i, (f, _) in candidates.read.items()}, candidates.weights,
                  spec.known_at, exact=candidates.exact, rescored=rescored, floor=floor,
                  coverage=candidates.coverage)
    return diversify(arrange(store, spec, scored, candidates.read))


def _enough(considered: Sequence[Checked], legs: dict[str, Ranked], depth: int, reach: int,
            legal: int, limit: int, rescored: dict[str, Rescored], floor: float) -> bool:
    """Whether ``considered``'s answers at this depth are final (``fusion.deep_enough``). The
    first ``limit`` are read at the scores they were taken at (``diverse.diversified``: the
    limit-th is the floor an item below must not reach), the others at their fused scores
    (what they could reach without a penalty)."""
    answers = [(c.fact.id, diversified(c) if n < limit else c.scored.score,
                c.scored.signals.get("weight", 1.0))
               for n, c in enumerate(_answers(considered))]
    return deep_enough(legs, depth, legal, answers, limit, rescored, reach, floor)


def _answers(considered: Sequence[Checked]) -> list[Checked]:
    """The candidates that are answers of their own: not a later side of a conflict set."""
    seconds = _conflict_seconds([(c.fact.id, c.conflicts_with) for c in considered])
    return [c for c in considered if c.fact.id not in seconds]


def _conflict_seconds(considered: Sequence[tuple[str, tuple[str, ...]]]) -> set[str]:
    """The sides shown after the first side of their conflict set (they are not answers of
    their own), of (id, the other sides) in order."""
    seconds: set[str] = set()
    for i, others in considered:
        if i not in seconds:
            seconds.update(others)
    return seconds


def _asked(ranker: SearchStore, embedder: Embedder, spec: AsOf, query: TextQuery,
           question: str) -> tuple[float, ...]:
    """The question's vector. A store that reads the legal set into the process reads what the
    ranking needs meanwhile (``ReadsAhead``), the question embedded in another thread: in a
    new process the model's load and the store's reads, a search's two largest costs, overlap
    (bench/RESULTS.md, embedded_cli). An error of either is the search's."""
    if not isinstance(ranker, ReadsAhead):
        return query_vector(embedder, question)
    with ThreadPoolExecutor(1, thread_name_prefix="vintage-question") as pool:
        asked = pool.submit(query_vector, embedder, question)
        ranker.read_ahead(spec, query)
        return asked.result()


def _ranker(store: Store) -> SearchStore:
    if not isinstance(store, SearchStore):
        raise StoreError(f"{type(store).__name__} keeps no search index")
    return store


def _head(considered: tuple[Found, ...], limit: int) -> tuple[Found, ...]:
    """The first ``limit`` answers, a conflict set counting once and never split."""
    seconds = _conflict_seconds([(f.id, f.conflicts_with) for f in considered])
    shown: list[Found] = []
    answers = 0
    for item in considered:
        if item.id not in seconds:
            if answers == limit:
                break
            answers += 1
        shown.append(item)
    return tuple(shown)

