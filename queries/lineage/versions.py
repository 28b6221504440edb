"""One assertion seen from one of its versions: every version with its sources and the class of
each revision, and the version a question would have been answered with at an instant.

What the explorer's fact page draws (docs/explorer.md): ``history`` answers the same for an
assertion named by subject, predicate and period; here the fact id names it, since a page
reached from a search result or a graph node holds an id, not a period.

A filed version cites the sources that support it now (as ``history`` does). A derived
version has no source of its own: it cites the sources of its inputs, at any depth, that were
public when the version became known (``StoreTx.input_sources``, one query per distinct
instant), so the page can show which filings each recomputation rested on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from vintage.graph.core.kinds import FactKind
from vintage.graph.core.model import Fact, Scope, Source
from vintage.graph.core.temporal import as_of
from vintage.graph.store.protocol import Store, StoreTx
from vintage.queries.lineage.asof import Answer, facts_as_of, with_sources

Cited = Literal["support", "inputs"]


@dataclass(frozen=True)
class Version:
    answer: Answer
    cited: Cited  # "inputs": a derived version's sources are its inputs'
    change: str | None  # the revision's class; None for the first version


def change_class(fact: Fact) -> str | None:
    """How this version differs from the one before: None for the first; "recomputed" for a
    derived fact (its inputs changed); a filed figure's recorded class, or "unclassified" when
    the source did not say (a KPI table's row), never guessed."""
    if fact.revision <= 1:
        return None
    if fact.kind is FactKind.DERIVED:
        return "recomputed"
    return fact.change.value if fact.change is not None else "unclassified"


def versions(store: Store, tenant: str, key: str) -> list[Version]:
    """Every version of the assertion ``key``, oldest first, with the sources each cites."""
    found = store.history(tenant, key)
    filed = {a.fact.id: a for a in with_sources(
        store, tenant, [f for f in found if f.kind is not FactKind.DERIVED])}
    derived = [f for f in found if f.kind is FactKind.DERIVED]
    inputs = store.reading(tenant, lambda tx: _input_sources(tx, derived, store.now()))
    return [Version(filed[f.id], "support", change_class(f)) if f.id in filed
            else Version(Answer(f, inputs.get(f.id, ())), "inputs", change_class(f))
            for f in found]


def _input_sources(tx: StoreTx, derived: Sequence[Fact],
                   now: datetime) -> dict[str, tuple[Source, ...]]:
    cited: dict[str, tuple[Source, ...]] = {}
    for known in sorted({f.available_at for f in derived}):
        ids = [f.id for f in derived if f.available_at == known]
        cited |= tx.input_sources(ids, known, now)
    return cited


def assertion_as_of(store: Store, scope: Scope, fact: Fact, cutoff: datetime,
                    system_at: datetime | None = None) -> Answer | None:
    """The version of ``fact``'s assertion a question at knowledge cutoff ``cutoff`` (and
    system instant ``system_at``, default now) would have been answered with, as known then;
    None when none was public yet. The store reads the subject, concept and valid instant;
    the assertion is then the one whose key is ``fact``'s (a quarter and a year both hold
    on the quarter's first day)."""
    found = facts_as_of(store, scope, subjects=[fact.subject], predicates=[fact.predicate],
                        known_at=cutoff, valid=as_of(fact.valid_from), system_at=system_at)
    return next((a for a in found if a.fact.key == fact.key), None)
