"""Conflict sets: memories of equal authority that disagree, with no rule to choose.

Both sides are kept and marked ``conflicted``: the current version gets a new, conflicted
version (history kept), and each challenger is held beside it as a variant assertion (unit
``conflict:<source>``, so it never joins the key's version chain), every side linked
``CONFLICTS_WITH`` to every other. Reads return all sides, explicitly conflicted, never one
silently.

While a set is open, a write to its key (``vintage.graph.memory.gate.gate``) is one of: support for
a side that already holds its value; another side, at equal authority; a settlement, from a higher
authority (the user's correction above all): the new value becomes the active version and the
other sides retire. A person settles a set with ``resolve``. The sides a settlement retires are
read inside its transaction, after the subject lock, so a side that joined a moment earlier is
never left behind.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from vintage.graph.core.asof import AsOf
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.kinds import SourceKind, Status
from vintage.graph.core.limits import required
from vintage.graph.core.model import Fact, FactIn, Scope, SourceIn, Subject, Value, assertion_key
from vintage.graph.memory.gate import FACT_KIND, MEMORY_EPOCH, MemoryIn, same_value
from vintage.graph.memory.injection import scan_write
from vintage.graph.memory.primitives import memory_tx
from vintage.graph.memory.scoping import record_wide_read, require_read_scope, require_scope
from vintage.graph.memory.sensitive import sensitive_write
from vintage.graph.store.protocol import Conflict, Invalidation, Store, StoreTx, UnknownReference
from vintage.graph.writes.semantics import Batch, WriteReport, record, record_in

VARIANT = "conflict:"
_KINDS = tuple(FACT_KIND.values())
Reader = Callable[[AsOf], list[Fact]]


@dataclass(frozen=True)
class ConflictSet:
    subject: str
    key: str
    scope: tuple[str, ...]
    sides: tuple[Fact, ...]  # the key's own version first, then the variants


def open_sides(read: Reader, scope: Scope, subject: str, key: str, now: datetime) -> list[Fact]:
    """The conflicted sides of one memory in exactly ``scope`` (``store.read`` or ``tx.read``)."""
    spec = AsOf(scope, known_at=now, system_at=now, subjects=(subject,), predicates=(key,),
                statuses=frozenset({Status.CONFLICTED}), kinds=_KINDS)
    terms = tuple(scope.terms())
    return sorted((f for f in read(spec) if tuple(f.scope) == terms),
                  key=lambda f: (f.unit is not None, f.unit or ""))


def open_conflict(tx: StoreTx, now: datetime, m: MemoryIn, key: str, current: Fact,
                  others: Sequence[Fact], *, actor: str, reason: str,
                  details: dict[str, str | int | float | bool]) -> tuple[WriteReport, str]:
    """Open a set on ``current`` or add ``m`` to the open one (``others``: its variants), in
    the caller's transaction (which holds the subject's lock). Returns the report and the id
    of the side that now holds ``m``'s value."""
    assert m.source_kind is not None and m.source_id is not None and m.observed_at is not None
    source = SourceIn(id=m.source_id, kind=m.source_kind, available_at=m.observed_at,
                      version=m.source_version, authority=m.authority)
    joining = current.status is Status.CONFLICTED
    held_by = [current, *others] if joining else []
    match = next((r for r in held_by if same_value(r.value, m.value)), None)
    facts: list[FactIn] = []
    if not joining:
        latest = max(tx.supports_of([current.id]), key=lambda s: s.available_at)
        facts.append(_side(current, current.value, latest.source_id, unit=None))
    if match is not None:  # one more source for a side: support, no new side
        facts.append(_side(match, match.value, m.source_id, unit=match.unit))
    else:
        variant = VARIANT + m.source_id  # a side is an assertion of its own, by its unit
        valid_from, valid_to = m.event_time(None)
        facts.append(FactIn(
            subject=m.subject, predicate=m.key, value=m.value, unit=variant,
            valid_from=valid_from, valid_to=valid_to, kind=FACT_KIND[m.kind],
            key=assertion_key(m.scope(), m.subject, m.key, MEMORY_EPOCH, None, variant),
            status=Status.CONFLICTED, source=m.source_id, owner=m.owner,
            retention_reason=m.retention_reason, expires_at=m.expires_at))

    def link(tx: StoreTx, report: WriteReport) -> None:
        sides = [current.id] if joining else report.created[:1]
        sides += [r.id for r in others]
        new = report.created if joining else report.created[1:]
        memory_tx(tx).link_conflicts([Conflict(n, s, now) for n in new for s in sides])

    report = record_in(tx, now, m.scope(), Batch(subjects=[Subject(id=m.subject)],
                                                 sources=[source], facts=facts),
                       actor=actor, reason=reason,
                       expected=None if joining else {key: current.revision},
                       details=details, then=link)
    held = match.id if match is not None else report.created[-1]
    return report, held


def _side(like: Fact, value: Value, source_id: str, unit: str | None) -> FactIn:
    return FactIn(subject=like.subject, predicate=like.predicate, value=value, unit=unit,
                  valid_from=like.valid_from, valid_to=like.valid_to, key=like.key,
                  kind=like.kind, status=Status.CONFLICTED,
                  source=source_id, owner=like.owner, retention_reason=like.retention_reason,
                  expires_at=like.expires_at)


def retire_rivals(scope: Scope, subject: str, key: str,
                  now: Callable[[], datetime]) -> Callable[[StoreTx, WriteReport], None]:
    """A ``then`` step for a settlement: invalidate the variants open at commit time."""

    def retire(tx: StoreTx, report: WriteReport) -> None:
        at = now()
        tx.invalidate_facts([Invalidation(f.id, at)
                             for f in open_sides(tx.read, scope, subject, key, at)
                             if f.unit is not None])

    return retire


def review(store: Store, scope: Scope, *, all_scopes: bool = False,
           actor: str | None = None) -> list[ConflictSet]:
    """The open conflict sets in a scope (and the narrower scopes it contains); in every
    scope of the tenant only with ``all_scopes`` and an ``actor`` (an audited read)."""
    require_read_scope(scope, "a review", all_scopes=all_scopes)
    if all_scopes:
        record_wide_read(store, scope.tenant, actor=actor, read="review", subject="-")
    sides = store.read(AsOf(scope, statuses=frozenset({Status.CONFLICTED}), kinds=_KINDS))
    sets: dict[tuple[str, str, tuple[str, ...]], list[Fact]] = {}
    for fact in sides:
        sets.setdefault((fact.subject, fact.predicate, tuple(fact.scope)), []).append(fact)
    return [ConflictSet(s, k, terms, tuple(sorted(fs, key=lambda f: (f.unit is not None,
                                                                     f.unit or ""))))
            for (s, k, terms), fs in sorted(sets.items())]


def _admissible(subject: str, key: str, keep: Value, owner: str, reason: str) -> None:
    """What a resolution keeps passes the write gates' content checks (a value kept by a
    person's decision is still a memory's value): not empty, no sensitive content (kept with
    consent only by ``remember``) and nothing instruction-like; the owner and reason are
    given. Refused in one line that names what was found, never the text."""
    if isinstance(keep, str):
        required(keep, "the kept value")
    required(owner, "the owner")
    required(reason, "the reason")
    found = sensitive_write({"value": keep, "owner": owner, "reason": reason})
    if found:
        raise InvalidArgument(f"sensitive content ({found}): a resolution does not keep it "
                              "(remember it with consent instead)")
    held = scan_write(key=key, value=keep, subject=subject, owner=owner,
                      retention_reason=reason)
    if held:
        raise InvalidArgument(f"held back: {held}; a resolution keeps no such value")


def resolve(store: Store, scope: Scope, subject: str, key: str, keep: Value, *,
            source_id: str, observed_at: datetime, owner: str, actor: str,
            reason: str) -> WriteReport:
    """A person's decision on the conflict set of one memory in exactly ``scope``: ``keep``
    becomes the active value, the other sides are invalidated. ``source_id``/``observed_at``
    name the decision itself."""
    require_scope(scope, "resolving a conflict")
    _admissible(subject, key, keep, owner, reason)
    found = open_sides(store.read, scope, subject, key, store.now())
    main = next((f for f in found if f.unit is None), None)
    if main is None:
        raise UnknownReference(f"no open conflict on {subject} {key} in this scope")
    decision = SourceIn(id=source_id, kind=SourceKind.USER_MESSAGE, available_at=observed_at)
    kept = FactIn(subject=subject, predicate=key, value=keep, valid_from=main.valid_from,
                  valid_to=main.valid_to, key=main.key, kind=main.kind, status=Status.ACTIVE,
                  source=source_id, owner=owner, retention_reason=main.retention_reason)
    return record(store, scope, Batch(sources=[decision], facts=[kept]), actor=actor,
                  reason=f"resolve conflict: {reason}", expected={main.key: main.revision},
                  details={"decision": "resolved", "subject": subject, "key": key},
                  then=retire_rivals(scope, subject, key, store.now))
