"""As-of questions over stored facts: what was known at a cutoff, and the history behind it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from graph.asof import AsOf
from graph.model import Fact, Scope, Source, assertion_key
from graph.store import Store
from graph.temporal import Interval, all_time


@dataclass(frozen=True)
class Answer:
    """A visible fact with the sources that support it, earliest first."""

    fact: Fact
    sources: tuple[Source, ...]


def with_sources(store: Store, tenant: str, facts: Sequence[Fact]) -> list[Answer]:
    """Each fact with the sources that support it now (a retracted source is not cited).
    Reads with a cutoff cite through ``Store.read_cited`` instead: only what was public then."""
    supports = store.supports(tenant, [f.id for f in facts])
    by_id = {s.id: s for s in store.sources(tenant, sorted({s.source_id for s in supports}))}
    cited: dict[str, list[Source]] = {}
    for support in supports:
        cited.setdefault(support.fact_id, []).append(by_id[support.source_id])
    return [
        Answer(f, tuple(sorted(cited.get(f.id, []), key=lambda s: (s.available_at, s.id))))
        for f in facts
    ]


def facts_as_of(
    store: Store,
    scope: Scope,
    *,
    subjects: Sequence[str] | None = None,
    predicates: Sequence[str] | None = None,
    known_at: datetime | None = None,
    valid: Interval | None = None,
    system_at: datetime | None = None,
    limit: int | None = None,
) -> list[Answer]:
    spec = AsOf(
        scope, known_at=known_at, system_at=system_at, valid=valid or all_time(),
        subjects=None if subjects is None else tuple(subjects),
        predicates=None if predicates is None else tuple(predicates),
    )
    return [Answer(f, cited) for f, cited in store.read_cited(spec, limit)]


def history(
    store: Store, scope: Scope, subject: str, predicate: str,
    valid_from: datetime, valid_to: datetime | None, unit: str | None = None,
) -> list[Answer]:
    """Every version of one assertion, on every axis, oldest first."""
    key = assertion_key(scope, subject, predicate, valid_from, valid_to, unit)
    return with_sources(store, scope.tenant, store.history(scope.tenant, key))
