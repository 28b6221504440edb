"""The closed treatment of staleness, at read time: the derived facts and inferences the cascade
closed because a premise was superseded, that this read would have matched had they still held
(docs/semantics.md, "Staleness").

Found from the read's own legal set: its versions that replaced an earlier one known by the
cutoff name the superseded premises; the store's downstream walk from those reaches what they
derived; a reached fact whose knowledge ended by the cutoff, and that the read's filters admit
as known just before its closure, is closed. The query's ranking then decides which of them the
read would have matched: each is ranked as known just before its closure, by the legs of the
read's mode, and the best ``limit`` are kept. Each is decided by
``vintage.queries.lineage.staleness.decide``, which names the premise, when and by what.

A notice names ids, subjects, keys and instants, never the closed item's value: it is not
evidence. A candidate inference (what a model inferred, held for review) is noticed too: the
question that would have found it learns why nothing answers. Scoped reads only: a read of the
tenant's shared facts (filings) reaches derived metric facts, which a restatement recomputes
(``vintage ingest --recompute``) rather than leaving closed.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from vintage.graph.core.asof import AsOf, to_predicate
from vintage.graph.core.kinds import Status
from vintage.graph.retrieval.index import SearchStore, TextQuery
from vintage.graph.store.protocol import Store, StoreTx
from vintage.queries.lineage.staleness import BEFORE, ReadInstants, Stale, decide
from vintage.queries.search.fusion import Mode, legs_of


def closing(tx: StoreTx, spec: AsOf, read: ReadInstants) -> dict[str, datetime]:
    """What ``closed_for`` ranks, read in the caller's transaction (a search reads it with its
    staleness marks: one round trip, not two): the derived facts the cascade closed by the
    cutoff that the read's filters admit as known just before their closure, id -> the
    instant their knowledge ended; none for a read of shared facts."""
    return _closed(tx, spec, read) if scoped(spec) else {}


def scoped(spec: AsOf) -> bool:
    """Whether a read can meet a closed item: only a scoped read (module docstring)."""
    return bool(spec.scope.keys) and not spec.shared_only


def closed_for(store: Store, ranker: SearchStore, spec: AsOf, query: TextQuery, mode: Mode,
               limit: int, read: ReadInstants,
               found: dict[str, datetime]) -> tuple[Stale, ...]:
    """The closed items the read would have matched, best first, at most ``limit``;
    ``found``: ``closing``'s answer, read by the caller in the transaction of its other
    marks."""
    if not found:
        return ()
    best: dict[str, float] = {}
    by_closure: dict[datetime, list[str]] = {}
    for fid, ended in found.items():
        by_closure.setdefault(ended, []).append(fid)
    for ended, ids in sorted(by_closure.items()):
        before = replace(spec, ids=tuple(sorted(ids)), known_at=ended - BEFORE,
                         statuses=spec.statuses | {Status.CANDIDATE})
        hits = ranker.rank(before, replace(query, per_leg=len(ids), counted=False,
                                           indexed_by=None))
        for ranked in legs_of(mode, hits).values():
            for n, (fid, _) in enumerate(ranked):
                best[fid] = max(best.get(fid, 0.0), 1.0 / (1 + n))
    kept = sorted(best, key=lambda i: (-best[i], i))[:limit]
    decided = store.reading(spec.scope.tenant, lambda tx: decide(tx, kept, read, closed=True))
    return tuple(decided[i] for i in kept if i in decided)


def _closed(tx: StoreTx, spec: AsOf, read: ReadInstants) -> dict[str, datetime]:
    """The derived facts the cascade closed by the cutoff that the read's filters admit as
    known just before their closure: id -> the instant their knowledge ended. The replaced
    premises are chosen by the store (``StoreTx.replaced_premises``): only a version some
    derivation used can start a closure, and most reads have none, so nothing of the legal set
    comes back to be looked at here."""
    anyway = replace(spec, statuses=spec.statuses | {Status.CANDIDATE}, ids=None)
    replaced = tx.replaced_premises(anyway)
    if not replaced:
        return {}
    down = tx.downstream(replaced, read.system_at)
    ended = {fid: e.knowledge for fid, e in down.ends.items()
             if fid in down.reached and e.knowledge is not None and e.knowledge <= read.known_at}
    facts = tx.get_facts(sorted(ended))
    return {fid: when for fid, when in ended.items() if fid in facts
            and to_predicate(replace(anyway, known_at=when - BEFORE))(facts[fid])}
