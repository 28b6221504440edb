"""Conflict sets: two memories of equal authority that disagree, with no rule to choose.

Both sides are kept and marked ``conflicted``: the current version gets a new, conflicted
version (history kept), and the challenger is held beside it as a variant assertion (unit
``conflict:<source>``, so it never joins the key's version chain), linked ``CONFLICTS_WITH``.
Reads return both, explicitly conflicted, never one side silently. ``review`` lists the open
sets; ``resolve`` is a person's decision: the kept value becomes the active version, the
challengers are invalidated (history kept). All of it in one transaction per step.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from graph.asof import AsOf
from graph.memory import FACT_KIND, MEMORY_EPOCH, MemoryIn
from graph.model import Fact, FactIn, Scope, SourceIn, SourceKind, Status, Subject, Value
from graph.store import Conflict, Invalidation, Store, StoreTx, UnknownReference
from graph.writes import Batch, WriteReport, record

VARIANT = "conflict:"


@dataclass(frozen=True)
class ConflictSet:
    subject: str
    key: str
    sides: tuple[Fact, ...]


def open_conflict(store: Store, m: MemoryIn, key: str, current: Fact, *, actor: str,
                  reason: str, details: dict[str, str | int | float | bool]) -> WriteReport:
    assert m.source_kind is not None and m.source_id is not None and m.observed_at is not None
    latest = max(store.supports(m.tenant, [current.id]), key=lambda s: s.available_at)
    incumbent = FactIn(
        subject=m.subject, predicate=m.key, value=current.value, valid_from=MEMORY_EPOCH,
        kind=current.kind, status=Status.CONFLICTED, source=latest.source_id,
        owner=current.owner, retention_reason=current.retention_reason,
        expires_at=current.expires_at)
    challenger = FactIn(
        subject=m.subject, predicate=m.key, value=m.value, unit=VARIANT + m.source_id,
        valid_from=MEMORY_EPOCH, kind=FACT_KIND[m.kind], status=Status.CONFLICTED,
        source=m.source_id, owner=m.owner, retention_reason=m.retention_reason,
        expires_at=m.expires_at)
    source = SourceIn(id=m.source_id, kind=m.source_kind, available_at=m.observed_at,
                      version=m.source_version, authority=m.authority)

    def link(tx: StoreTx, report: WriteReport) -> None:
        mine, theirs = report.created
        tx.link_conflicts([Conflict(theirs, mine, store.now())])

    return record(store, m.scope(), Batch(subjects=[Subject(id=m.subject)], sources=[source],
                                          facts=[incumbent, challenger]),
                  actor=actor, reason=reason, expected={key: current.revision},
                  details=details, then=link)


def review(store: Store, scope: Scope) -> list[ConflictSet]:
    """The open conflict sets in a scope, for a person to resolve."""
    sides = store.read(AsOf(scope, statuses=frozenset({Status.CONFLICTED}),
                            kinds=tuple(FACT_KIND.values())))
    sets: dict[tuple[str, str], list[Fact]] = {}
    for fact in sides:
        sets.setdefault((fact.subject, fact.predicate), []).append(fact)
    return [ConflictSet(s, k, tuple(sorted(fs, key=lambda f: f.unit or "")))
            for (s, k), fs in sorted(sets.items())]


def resolve(store: Store, scope: Scope, subject: str, key: str, keep: Value, *,
            source_id: str, observed_at: datetime, owner: str, actor: str,
            reason: str) -> WriteReport:
    """A person's decision on a conflict set: ``keep`` becomes the active value, the other
    sides are invalidated. ``source_id``/``observed_at`` name the decision itself."""
    found = [c for c in review(store, scope) if (c.subject, c.key) == (subject, key)]
    if not found:
        raise UnknownReference(f"no open conflict on {subject} {key} in this scope")
    (open_set,) = found
    main = next(f for f in open_set.sides if f.unit is None)
    variants = [f for f in open_set.sides if f.unit is not None]
    decision = SourceIn(id=source_id, kind=SourceKind.USER_MESSAGE, available_at=observed_at)
    kept = FactIn(subject=subject, predicate=key, value=keep, valid_from=MEMORY_EPOCH,
                  kind=main.kind, status=Status.ACTIVE, source=source_id, owner=owner,
                  retention_reason=main.retention_reason)

    def retire(tx: StoreTx, report: WriteReport) -> None:
        tx.invalidate_facts([Invalidation(f.id, store.now()) for f in variants])

    return record(store, scope, Batch(sources=[decision], facts=[kept]), actor=actor,
                  reason=f"resolve conflict: {reason}", expected={main.key: main.revision},
                  details={"decision": "resolved", "subject": subject, "key": key},
                  then=retire)
