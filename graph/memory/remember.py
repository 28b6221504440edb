"""``remember``: one memory write through the gate (``vintage.graph.memory.gate``), after the checks
that come before it: an observed time in range (``vintage.graph.memory.observed``) and one source
saying one thing (``vintage.graph.memory.said``). Outcomes and promotion live in
``vintage.graph.memory.promotion``.

Every decision is an ``Event``: a write's own event carries the decision and why; a refusal,
duplicate or conflict writes a decision event alone. Events carry the subject and key, never the
value, so that erasure leaves no copy behind.

Concurrency: the gate and the write run in one transaction, after the subject's write lock
(``StoreTx.lock_subjects``): the decision rests on exactly the state it changes, and writers of
one subject are gated one after the other (sixteen concurrent updates all land, in some order).
A caller's ``expected`` revision is compared and set in that transaction; a mismatch raises
``ConflictError``. Without one, a transaction that still fails to commit (a brand-new subject
has no lock to take yet; two writers may then collide on its first version) runs again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from vintage.graph.core.kinds import Status
from vintage.graph.core.model import (
    DerivationIn,
    Event,
    Fact,
    FactIn,
    Scope,
    SourceIn,
    Subject,
    digest,
    new_event_id,
    revision_of,
)
from vintage.graph.memory.conflicts import open_conflict, open_sides, retire_rivals
from vintage.graph.memory.gate import (
    FACT_KIND,
    NOT_EVIDENCE,
    Decision,
    MemoryIn,
    Verdict,
    gate,
    memory_key,
    refused,
)
from vintage.graph.memory.observed import check_observed
from vintage.graph.memory.ranking import last_injection
from vintage.graph.memory.said import said_before
from vintage.graph.memory.scoping import require_scope
from vintage.graph.memory.sensitive import withheld
from vintage.graph.memory.tools import unregistered_tool
from vintage.graph.memory.trust import untrusted
from vintage.graph.store.protocol import (
    ConflictError,
    DerivationWrite,
    Store,
    StoreTx,
    UnknownReference,
)
from vintage.graph.writes.corrections import ExitReport, invalidate
from vintage.graph.writes.semantics import Batch, WriteReport, record_in

_ATTEMPTS = 64
Step = Callable[[StoreTx, WriteReport], None]
_UNSET = object()
Note = Mapping[str, str]  # more for a decision's event (an outcome's task and reporter)
HELD = "held"  # the event detail saying why a write's source held it as a candidate


@dataclass(frozen=True)
class Remembered:
    decision: Decision
    reason: str
    key: str  # the memory's assertion key: its identity across versions
    memory_id: str | None  # the version now current (None: nothing stored)
    revision: int | None
    event_id: str


def current_version(store: Store, tenant: str, key: str) -> tuple[Fact | None, set[str]]:
    """The live version of a memory and the sources that support it now."""
    live = [f for f in store.history(tenant, key)
            if f.superseded_at is None and f.invalidated_at is None]
    if not live:
        return None, set()
    fact = live[-1]
    return fact, {s.source_id for s in store.supports(tenant, [fact.id])}


def _current_in(tx: StoreTx, key: str) -> tuple[Fact | None, set[str], datetime | None]:
    """The current version, its sources and, when none is current but versions are held (the
    one that corrected the last was invalidated or retracted), where the last one ended."""
    held = tx.versions([key]).get(key, [])
    live = [f for f in held if f.superseded_at is None]
    if not live:
        return None, set(), held[-1].superseded_at if held else None
    return live[-1], {s.source_id for s in tx.supports_of([live[-1].id])}, None


def remember(store: Store, m: MemoryIn, *, actor: str,
             expected: int | object | None = _UNSET, clock_skew: timedelta | None = None,
             note: Note | None = None) -> Remembered:
    """Gate and write one memory; return the decision and why (an ``Event`` either way).
    An observed time beyond ``clock_skew`` (default: ``vintage.graph.memory.observed``) into the
    future, or before 1900, is refused before anything is read or written."""
    check_observed(m.observed_at, store.now(), skew=clock_skew)
    key = m.assertion_key()
    hold = untrusted(store, m.tenant, m.source_kind, m.source_id) or unregistered_tool(
        store, m.tenant, m.source_kind, m.tool or m.source_id, m.source_version,
        actor)  # both read before the lock
    for _ in range(_ATTEMPTS):
        try:
            return store.write(m.tenant, lambda tx: _remember_in(tx, store, m, key, actor,
                                                                 expected, hold, note))
        except ConflictError:
            if expected is not _UNSET:
                raise
    raise ConflictError(f"memory {m.subject} {m.key}: still contended after {_ATTEMPTS} tries")


def _remember_in(tx: StoreTx, store: Store, m: MemoryIn, key: str, actor: str,
                 expected: object, hold: str | None = None,
                 note: Note | None = None) -> Remembered:
    """The gate and the write in one transaction, after the subject's lock: the decision
    rests on exactly the state it changes."""
    tx.lock_subjects([m.subject])
    now = store.now()
    current, sources, ended = _current_in(tx, key)
    others = ([f for f in open_sides(tx.read, m.scope(), m.subject, m.key, now)
               if f.unit is not None]
              if current is not None and current.status is Status.CONFLICTED else [])
    said = said_before(tx, m, key, others)
    if said is not None:  # a retry, or the same source contradicting itself
        done = _decided(tx, now, m, key, said[0], current, actor, note)
        return replace(done, reason=said[1])
    verdict = _after(m, ended, gate(m, current, sources, others, hold=hold))
    if verdict.decision is Decision.DUPLICATE and m.source_kind in NOT_EVIDENCE \
            and current is not None:
        verdict = _traced(store, m.tenant, current.id, verdict)
    if verdict.decision is Decision.CONFLICT and current is not None:
        report, held = open_conflict(tx, now, m, key, current, others, actor=actor,
                                     reason=f"remember: conflict: {verdict.reason}",
                                     details=_details(m, verdict))
        if report.event_id is not None:
            return Remembered(verdict.decision, verdict.reason, key, held, 1, report.event_id)
        return _decided(tx, now, m, key, verdict, current, actor, note)  # a side's source
    if not verdict.writes:
        return _decided(tx, now, m, key, verdict, current, actor, note)
    if hold is not None and verdict.status is Status.CANDIDATE:
        # Why it is held (an unregistered tool or document source, a reporter not allowed),
        # kept on the write's event: review lists it by that (``held_for_review``).
        note = {**(note or {}), HELD: hold}
    revision = current.revision if current else None
    return write_verdict(tx, now, m, key, verdict, actor, current,
                         revision if expected is _UNSET else expected, note)


def _after(m: MemoryIn, ended: datetime | None, verdict: Verdict) -> Verdict:
    """No version is current but the last one held ended at ``ended`` (its correction was
    invalidated or retracted): a write observed before that end would rewrite what was known
    then, and is refused like any out-of-order write."""
    if ended is None or not verdict.writes or m.observed_at is None or m.observed_at >= ended:
        return verdict
    return refused(f"observed at {m.observed_at.isoformat()}, before the last version held "
                   f"ended (known until {ended.isoformat()}): an out-of-order write changes "
                   "nothing")


def write_verdict(tx: StoreTx, now: datetime, m: MemoryIn, key: str, verdict: Verdict,
                  actor: str, current: Fact | None, expected: object,
                  note: Note | None = None) -> Remembered:
    """Write the gated draft, compare-and-set on ``expected``; ``current`` is the version the
    gate saw."""
    assert verdict.status is not None and m.source_kind is not None
    assert m.source_id is not None and m.observed_at is not None
    valid_from, valid_to = m.event_time(current)
    draft = FactIn(
        subject=m.subject, predicate=m.key, value=m.value, valid_from=valid_from,
        valid_to=valid_to, key=key, kind=FACT_KIND[m.kind], status=verdict.status,
        source=m.source_id, owner=m.owner, retention_reason=m.retention_reason,
        expires_at=m.expires_at,
    )
    source = SourceIn(id=m.source_id, kind=m.source_kind, available_at=m.observed_at,
                      version=m.source_version, authority=m.authority)
    steps = [_evidence(m, now)] if m.evidence else []
    if current is not None and current.status is Status.CONFLICTED:
        steps.append(retire_rivals(m.scope(), m.subject, m.key, lambda: now))
    report = record_in(
        tx, now, m.scope(),
        Batch(subjects=[_subject(m.subject)], sources=[source], facts=[draft]),
        actor=actor, reason=f"remember: {verdict.decision.value}: {verdict.reason}",
        expected={key: expected},  # type: ignore[dict-item]
        details=_details(m, verdict, note), then=_each(steps),
    )
    memory_id: str | None = current.id if current else None  # a repeat: support added
    revision: int | None = current.revision if current else None
    if report.created:  # a new version (after an invalidation, not always revision + 1)
        memory_id = report.created[-1]
        revision = revision_of(memory_id)
    return Remembered(verdict.decision, verdict.reason, key, memory_id, revision,
                      report.event_id or "")


def _traced(store: Store, tenant: str, memory_id: str, verdict: Verdict) -> Verdict:
    """Name the context an echo repeats, when the engine recorded injecting the memory."""
    injected = last_injection(store, tenant, memory_id)
    if injected is None:
        return verdict
    return Verdict(verdict.decision, f"{verdict.reason} (an echo of context {injected.id}, "
                                     f"thread {injected.details.get('thread')})", verdict.status)


def _each(steps: list[Step]) -> Step | None:
    if not steps:
        return None

    def run(tx: StoreTx, report: WriteReport) -> None:
        for step in steps:
            step(tx, report)

    return run


def _evidence(m: MemoryIn, now: datetime) -> Step:
    """An inference rests on its evidence as lineage (``USED`` -> derivation -> ``GENERATED``),
    so that correcting the evidence closes the inference and erasing it erases the inference.
    The recipe is never registered: an inference is re-inferred, not recomputed."""

    def link(tx: StoreTx, report: WriteReport) -> None:
        if not report.created:
            return
        missing = set(m.evidence) - set(tx.get_facts(sorted(set(m.evidence))))
        if missing:
            raise UnknownReference(f"unknown evidence: {', '.join(sorted(missing)[:5])}")
        (fact_id,) = report.created
        derivation = DerivationIn(id="d" + digest("inference", fact_id, sorted(m.evidence)),
                                  recipe="memory:inference", version="evidence")
        tx.put_derivations(DerivationWrite(
            derivation, tuple((e, "evidence") for e in sorted(set(m.evidence))), (fact_id,),
            now))

    return link


def _decided(tx: StoreTx, now: datetime, m: MemoryIn, key: str, verdict: Verdict,
             current: Fact | None, actor: str, note: Note | None = None,
             action: str = "remember") -> Remembered:
    event = Event(id=new_event_id(), tenant=m.tenant, at=now, actor=actor,
                  action=action, reason=f"{verdict.decision.value}: {verdict.reason}",
                  details=_details(m, verdict, note))
    tx.append_events(event)
    return Remembered(verdict.decision, verdict.reason, key, current.id if current else None,
                      current.revision if current else None, event.id)


def decide(store: Store, m: MemoryIn, key: str, verdict: Verdict, current: Fact | None,
           actor: str, note: Note | None = None, action: str = "remember") -> Remembered:
    """A decision that writes nothing but its event, in a transaction of its own."""
    return store.write(m.tenant, lambda tx: _decided(tx, store.now(), m, key, verdict,
                                                     current, actor, note, action))


def _details(m: MemoryIn, verdict: Verdict,
             note: Note | None = None) -> dict[str, str | int | float | bool]:
    # Who and what, never the value: erasure must not leave a copy in the audit trail.
    # A subject or key that is itself sensitive (``ssn.123-45-6789``) is withheld too.
    return {"decision": verdict.decision.value, "kind": m.kind.value,
            "subject": withheld(m.subject), "key": withheld(m.key),
            "scope": ",".join(m.scope().terms()) or "-",
            "source_kind": m.source_kind.value if m.source_kind else "-",
            **({"tool": m.tool} if m.tool else {}),
            **(note or {})}


def _subject(subject: str) -> Subject:
    return Subject(id=subject, kind=subject.split(":", 1)[0] if ":" in subject else "entity")


def invalidate_memory(store: Store, scope: Scope, subject: str, key: str, *, actor: str,
                      reason: str) -> ExitReport:
    """Stop holding a memory from now on: invisible to reads for now, unchanged for as-of
    reads before; history kept; anything derived from it is closed in system time."""
    require_scope(scope, "invalidating a memory")
    ident = memory_key(scope, subject, key)
    current, _ = current_version(store, scope.tenant, ident)
    if current is None:
        raise UnknownReference(f"no memory {subject} {key} in this scope")
    return invalidate(store, scope, [current.id], actor=actor, reason=reason)
