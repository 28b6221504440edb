"""As-of questions over stored facts: what was known at a cutoff, and the history behind it.

No look-ahead (docs/contract.md): a fact read as of a cutoff C and a system instant T shows
only what was known at (C, T). Its stored record may already hold a knowledge end, an
invalidation or a system-time gap learned later; :func:`as_known` shows those as open, and only
``hindsight=True`` shows them as stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Fact, Scope, Source, assertion_key
from vintage.graph.core.temporal import Interval, all_time
from vintage.graph.store.protocol import Store
from vintage.queries.lineage.staleness import ReadInstants, Stale, staleness


@dataclass(frozen=True)
class Answer:
    """A visible fact with the sources that support it, earliest first."""

    fact: Fact
    sources: tuple[Source, ...]
    stale: Stale | None = None  # a premise it rests on stopped holding as of the read


def as_known(fact: Fact, known_at: datetime | None, system_at: datetime) -> Fact:
    """``fact`` as it read at cutoff ``known_at`` (None: no cutoff, every knowledge end the
    engine held) and system instant ``system_at``: a knowledge end after the cutoff (or
    recorded after the system instant), an invalidation after the system instant and a gap not
    over by then are hindsight, and read as open."""
    update: dict[str, object] = {}
    ended = fact.superseded_at
    if ended is not None and ((known_at is not None and ended > known_at)
                              or fact.superseded_recorded_at is None
                              or fact.superseded_recorded_at > system_at):
        update |= {"superseded_at": None, "superseded_recorded_at": None}
    if fact.invalidated_at is not None and fact.invalidated_at > system_at:
        update["invalidated_at"] = None
    if any(end > system_at for end in fact.gaps_to):
        kept = [(a, b) for a, b in zip(fact.gaps_from, fact.gaps_to, strict=True)
                if b <= system_at]
        update |= {"gaps_from": tuple(a for a, _ in kept), "gaps_to": tuple(b for _, b in kept)}
    return fact.model_copy(update=update) if update else fact


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
    hindsight: bool = False,
) -> list[Answer]:
    """The facts visible at the cutoff (default now), as known then: a knowledge end learned
    after it reads as open unless ``hindsight`` (see :func:`as_known`). Subjects are ids; a
    caller taking names from a person resolves them first (``vintage.queries.lineage.subjects``)."""
    spec = AsOf(
        scope, known_at=known_at, system_at=system_at, valid=valid or all_time(),
        subjects=None if subjects is None else tuple(subjects),
        predicates=None if predicates is None else tuple(predicates),
    ).resolved(store.now())
    assert spec.known_at is not None and spec.system_at is not None
    known, system = spec.known_at, spec.system_at
    found = store.read_cited(spec, limit)
    read = ReadInstants(known, system, spec.valid.start if spec.valid.is_instant else None)
    marks = staleness(store, scope.tenant, [f.id for f, _ in found], read)
    return [Answer(f if hindsight else as_known(f, known, system), cited, marks.get(f.id))
            for f, cited in found]


def history(
    store: Store, scope: Scope, subject: str, predicate: str,
    valid_from: datetime, valid_to: datetime | None, unit: str | None = None,
) -> list[Answer]:
    """Every version of one assertion, on every axis, oldest first (hindsight by design: a
    history has no cutoff)."""
    key = assertion_key(scope, subject, predicate, valid_from, valid_to, unit)
    return with_sources(store, scope.tenant, store.history(scope.tenant, key))
