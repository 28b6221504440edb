"""Write semantics, once for every backend: idempotent batches, supersede, compare-and-set.

A batch is planned inside one store transaction: read the current version of every assertion it
touches, decide per draft (new, repeat, correction), then write the plan with a handful of bulk
primitives. Any refusal raises before the first write, so bad input changes nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Required, TypedDict, Unpack

from vintage.graph.core.labels import SUBJECT
from vintage.graph.core.model import (
    Event,
    Fact,
    FactIn,
    Scope,
    Source,
    SourceIn,
    Subject,
    Value,
    new_event_id,
    version_id,
)
from vintage.graph.sealing.sealed import sealed_in
from vintage.graph.store.protocol import (
    Closure,
    ConflictError,
    Refused,
    Store,
    StoreTx,
    Supersession,
    Support,
    UnknownReference,
)
from vintage.graph.writes.cascade import Fate, Outcome
from vintage.graph.writes.corrections import cascade_knowledge


@dataclass(frozen=True)
class Batch:
    subjects: Sequence[Subject] = ()
    sources: Sequence[SourceIn] = ()
    facts: Sequence[FactIn] = ()


@dataclass
class WriteReport:
    event_id: str | None = None
    created: list[str] = field(default_factory=list)
    repeated: list[str] = field(default_factory=list)
    superseded: list[tuple[str, str]] = field(default_factory=list)  # (old id, new id)
    revisions: Counter[str] = field(default_factory=Counter)  # supersedes by change class
    cascade: list[Outcome] = field(default_factory=list)  # derived facts the change reached
    dry_run: bool = False  # planned and rolled back: nothing was written

    @property
    def changed(self) -> bool:
        return self.event_id is not None and not self.dry_run


@dataclass
class _Plan:
    now: datetime
    scope: Scope
    sources: dict[str, Source]
    history: dict[str, list[Fact]]  # live versions per assertion key, oldest first
    top: dict[str, int]  # highest revision ever recorded per key (invalidated ones included)
    pending: dict[str, Fact] = field(default_factory=dict)
    supports: list[Support] = field(default_factory=list)
    closures: list[Closure] = field(default_factory=list)
    links: list[Supersession] = field(default_factory=list)
    report: WriteReport = field(default_factory=WriteReport)


class Recording(TypedDict, total=False):
    """How a batch is recorded, shared by :func:`record` and :func:`record_in`.

    ``actor`` (required) and ``reason`` go on the event. ``expected`` maps assertion keys to
    the revision the caller last saw (``None``: "must not exist yet"); a mismatch raises
    :class:`ConflictError`. A correction cascades in the same transaction to every derived
    fact downstream; with ``recompute`` those are computed again from the corrected inputs
    (``vintage.graph.writes.corrections``), stopping where a value moves by at most ``tolerance``.
    ``details`` are added to the event; ``then`` runs last in the same transaction, before the
    event (links a caller adds to what it wrote)."""

    actor: Required[str]
    reason: str | None
    expected: Mapping[str, int | None] | None
    recompute: bool
    tolerance: float
    details: Mapping[str, Value] | None
    then: Callable[[StoreTx, WriteReport], None] | None


def record(
    store: Store, scope: Scope, batch: Batch, *, dry_run: bool = False,
    **how: Unpack[Recording],
) -> WriteReport:
    """Write a batch atomically (see :class:`Recording` for ``how``). ``dry_run`` plans and
    applies the batch in the transaction, then rolls it back: the report says what the batch
    would do (the impact of a filing before it is applied)."""

    def work(tx: StoreTx) -> WriteReport:
        tx.lock_subjects(sorted({d.subject for d in batch.facts}))
        report = record_in(tx, store.now(), scope, batch, **how)
        if dry_run and report.event_id is not None:
            report.dry_run = True
            raise _RolledBack(report)
        return report

    try:
        return store.write(scope.tenant, work)
    except _RolledBack as rolled_back:
        return rolled_back.report


def record_in(
    tx: StoreTx, now: datetime, scope: Scope, batch: Batch, **how: Unpack[Recording],
) -> WriteReport:
    """:func:`record`'s planning and writes inside a caller's transaction, for a caller that
    reads and writes more in it. The caller holds the locks of the batch's subjects and read
    ``now`` after taking them (so no writer of those subjects committed later)."""
    sources, new_sources = _resolve_sources(tx, batch, now)
    _check_subjects(tx, batch)
    keys = [draft.assertion_key(scope) for draft in batch.facts]
    unique = sorted(set(keys))
    plan = _Plan(now, scope, sources, tx.versions(unique), tx.top_revisions(unique))
    _check_expected(plan.history, how.get("expected") or {})
    event_id = new_event_id()
    for key, draft in zip(keys, batch.facts, strict=True):
        _plan_draft(plan, key, draft, event_id)
    known = tx.existing(SUBJECT, [s.id for s in batch.subjects])
    new_subjects = [s for s in batch.subjects if s.id not in known]
    plan.supports = _fresh(tx, plan.supports)
    if not (plan.pending or plan.supports or new_sources or new_subjects):
        return plan.report  # an idempotent rewrite: nothing to record, no event
    tx.put_subjects(new_subjects)
    tx.put_sources(new_sources)
    tx.create_facts(list(plan.pending.values()))
    tx.add_support(plan.supports)
    tx.close_knowledge(plan.closures)
    tx.link_supersedes(plan.links)
    plan.report.cascade = cascade_knowledge(
        tx, now, {c.fact_id: c.superseded_at for c in plan.closures},
        {s.old_id: s.new_id for s in plan.links}, actor=how["actor"],
        recompute=how.get("recompute", False), tolerance=how.get("tolerance", 0.0),
    )
    then = how.get("then")
    if then is not None:
        then(tx, plan.report)
    tx.append_events(_event(tx.tenant, event_id, now, how["actor"], "record", how.get("reason"),
                           plan, how.get("details") or {}))
    plan.report.event_id = event_id
    return plan.report


class _RolledBack(Exception):
    """Raised out of a dry-run transaction so that the store rolls it back."""

    def __init__(self, report: WriteReport) -> None:
        super().__init__("dry run")
        self.report = report


def _resolve_sources(
    tx: StoreTx, batch: Batch, now: datetime,
) -> tuple[dict[str, Source], list[Source]]:
    given = {s.id: s for s in batch.sources}
    named = {d.source for d in batch.facts if d.source is not None}
    stored = tx.get_sources(sorted(set(given) | named))
    resolved: dict[str, Source] = dict(stored)
    new: list[Source] = []
    for sid, draft in given.items():
        if sid in stored:
            if stored[sid].model_dump(exclude={"recorded_at"}) != draft.model_dump():
                raise Refused(f"source {sid!r} is already recorded with other attributes",
                              source=sid)
        else:
            resolved[sid] = Source(**draft.model_dump(), recorded_at=now)
            new.append(resolved[sid])
    missing = named - set(resolved)
    if missing:
        raise UnknownReference(f"unknown source(s): {', '.join(sorted(missing)[:5])}")
    return resolved, new


def _check_subjects(tx: StoreTx, batch: Batch) -> None:
    named = {d.subject for d in batch.facts} - {s.id for s in batch.subjects}
    missing = named - tx.existing(SUBJECT, sorted(named))
    if missing:
        raise UnknownReference(f"unknown subject(s): {', '.join(sorted(missing)[:5])}")


def _check_expected(
    history: Mapping[str, list[Fact]], expected: Mapping[str, int | None],
) -> None:
    for key, revision in expected.items():
        current = _current(history.get(key, []))
        seen = current.revision if current else None
        if seen != revision:
            raise ConflictError(
                f"assertion {key}: expected revision {revision}, the store holds {seen}"
            )


def _current(versions: list[Fact]) -> Fact | None:
    """The current version: the last one held, unless its knowledge interval is closed (the
    version that corrected it was invalidated or lost its sources): then none is, and a new
    value supersedes nothing."""
    return versions[-1] if versions and versions[-1].superseded_at is None else None


def _plan_draft(plan: _Plan, key: str, draft: FactIn, event_id: str) -> None:
    assert draft.source is not None
    source = plan.sources[draft.source]
    versions = plan.history.setdefault(key, [])
    last, cur = (versions[-1] if versions else None), _current(versions)
    known = None if last is None else last.available_at if cur else last.superseded_at
    if known is not None and source.available_at < known:
        # A late-arriving older source: it may only repeat the vintage it was published in.
        then = [v for v in _versions_at(versions, source.available_at)
                if v.content_hash == draft.content_hash()]
        if then:
            _support(plan, then[0], source)
            return
        raise Refused(
            f"{draft.subject} {draft.predicate}: source {source.id!r} (available "
            f"{source.available_at.isoformat()}) is older than the "
            f"{'current version (available' if cur else 'last version held (known until'} "
            f"{known.isoformat()}) and disagrees with what was known then; "
            "out-of-order corrections are refused", draft=draft,
        )
    if cur is not None and cur.content_hash == draft.content_hash():
        _support(plan, cur, source)
        return
    revision = max(plan.top.get(key, 0), last.revision if last else 0) + 1
    plan.top[key] = revision
    fact = _new_fact(plan, key, draft, source, revision, event_id)
    plan.pending[fact.id] = fact
    versions.append(fact)
    plan.supports.append(Support(fact.id, source.id, source.available_at, plan.now))
    plan.report.created.append(fact.id)
    if cur is None:
        return
    plan.links.append(Supersession(fact.id, cur.id, source.id, source.available_at, plan.now))
    plan.report.superseded.append((cur.id, fact.id))
    plan.report.revisions[draft.change.value if draft.change else "unclassified"] += 1
    closed = {"superseded_at": source.available_at, "superseded_recorded_at": plan.now}
    if cur.id in plan.pending:  # corrected within the same batch
        plan.pending[cur.id] = versions[-2] = cur.model_copy(update=closed)
    else:
        versions[-2] = cur.model_copy(update=closed)
        plan.closures.append(Closure(cur.id, source.available_at, plan.now))


def _versions_at(versions: list[Fact], t: datetime) -> list[Fact]:
    """The version current at ``t``, after any that were published and replaced at ``t``
    itself (two filings of one day that disagree: the later one wins the day)."""
    return [f for f in versions if f.available_at == t or (
        f.available_at <= t and (f.superseded_at is None or t < f.superseded_at))]


def _support(plan: _Plan, fact: Fact, source: Source) -> None:
    plan.supports.append(Support(fact.id, source.id, source.available_at, plan.now))
    plan.report.repeated.append(fact.id)


def _new_fact(
    plan: _Plan, key: str, draft: FactIn, source: Source, revision: int, event_id: str,
) -> Fact:
    return Fact(
        id=version_id(key, revision), key=key, revision=revision,
        tenant=plan.scope.tenant, scope=tuple(plan.scope.terms()),
        kind=draft.kind, status=draft.status, subject=draft.subject,
        predicate=draft.predicate, value=draft.value, unit=draft.unit,
        valid_from=draft.valid_from, valid_to=draft.valid_to,
        available_at=source.available_at, superseded_at=None, superseded_recorded_at=None,
        recorded_at=plan.now, invalidated_at=None,
        authority=int(source.effective_authority), owner=draft.owner,
        retention_reason=draft.retention_reason, content_hash=draft.content_hash(),
        event_id=event_id, change=draft.change if revision > 1 else None,
        expires_at=draft.expires_at, sealed=sealed_in(plan.scope),
    )


def _fresh(tx: StoreTx, supports: list[Support]) -> list[Support]:
    """Drop support edges that already exist, so that a repeat of a repeat is a no-op."""
    have = {(s.fact_id, s.source_id) for s in tx.supports_of(sorted({s.fact_id for s in supports}))}
    seen: set[tuple[str, str]] = set()
    fresh = []
    for s in supports:
        pair = (s.fact_id, s.source_id)
        if pair not in have and pair not in seen:
            seen.add(pair)
            fresh.append(s)
    return fresh


def _event(
    tenant: str, event_id: str, now: datetime, actor: str, action: str,
    reason: str | None, plan: _Plan, extra: Mapping[str, Value],
) -> Event:
    return Event(
        id=event_id, tenant=tenant, at=now, actor=actor, action=action, reason=reason,
        details={**extra,
            "created": len(plan.report.created),
            "superseded": len(plan.report.superseded),
            "support_added": len(plan.supports),
            "cascade_closed": sum(o.fate is Fate.CLOSED for o in plan.report.cascade),
            "recomputed": sum(o.fate is Fate.RECOMPUTED for o in plan.report.cascade),
        },
    )
