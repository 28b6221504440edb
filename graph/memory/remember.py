"""``remember``: one memory write through the gate (``graph.memory.gate``), and the operations that
move a memory along its life: outcomes that validate an experience, promotion.

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

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from graph.corrections import ExitReport, invalidate
from graph.kinds import SourceKind, Status
from graph.memory.conflicts import open_conflict, open_sides, retire_rivals
from graph.memory.gate import (
    FACT_KIND,
    MEMORY_EPOCH,
    NOT_EVIDENCE,
    Decision,
    MemoryIn,
    MemoryKind,
    Verdict,
    gate,
    memory_key,
    refused,
)
from graph.memory.ranking import last_injection
from graph.model import (
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
from graph.store import ConflictError, DerivationWrite, Store, StoreTx, UnknownReference
from graph.writes import Batch, WriteReport, record_in

_ATTEMPTS = 64
Step = Callable[[StoreTx, WriteReport], None]
_UNSET = object()
DEFAULT_VALIDATIONS = 2


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


def _current_in(tx: StoreTx, key: str) -> tuple[Fact | None, set[str]]:
    live = [f for f in tx.versions([key]).get(key, []) if f.superseded_at is None]
    if not live:
        return None, set()
    return live[-1], {s.source_id for s in tx.supports_of([live[-1].id])}


def remember(store: Store, m: MemoryIn, *, actor: str,
             expected: int | object | None = _UNSET) -> Remembered:
    """Gate and write one memory; return the decision and why (an ``Event`` either way)."""
    key = m.assertion_key()
    for _ in range(_ATTEMPTS):
        try:
            return store.write(m.tenant, lambda tx: _remember_in(tx, store, m, key, actor,
                                                                 expected))
        except ConflictError:
            if expected is not _UNSET:
                raise
    raise ConflictError(f"memory {m.subject} {m.key}: still contended after {_ATTEMPTS} tries")


def _remember_in(tx: StoreTx, store: Store, m: MemoryIn, key: str, actor: str,
                 expected: object) -> Remembered:
    """The gate and the write in one transaction, after the subject's lock: the decision
    rests on exactly the state it changes."""
    tx.lock_subjects([m.subject])
    now = store.now()
    current, sources = _current_in(tx, key)
    others = ([f for f in open_sides(tx.read, m.scope(), m.subject, m.key, now)
               if f.unit is not None]
              if current is not None and current.status is Status.CONFLICTED else [])
    verdict = gate(m, current, sources, others)
    if verdict.decision is Decision.DUPLICATE and m.source_kind in NOT_EVIDENCE \
            and current is not None:
        verdict = _traced(store, m.tenant, current.id, verdict)
    if verdict.decision is Decision.CONFLICT and current is not None:
        report, held = open_conflict(tx, now, m, key, current, others, actor=actor,
                                     reason=f"remember: conflict: {verdict.reason}",
                                     details=_details(m, verdict))
        if report.event_id is not None:
            return Remembered(verdict.decision, verdict.reason, key, held, 1, report.event_id)
        return _decided(tx, now, m, key, verdict, current, actor)  # a side's source again
    if not verdict.writes:
        return _decided(tx, now, m, key, verdict, current, actor)
    revision = current.revision if current else None
    return _write(tx, now, m, key, verdict, actor, current,
                  revision if expected is _UNSET else expected)


def _write(tx: StoreTx, now: datetime, m: MemoryIn, key: str, verdict: Verdict, actor: str,
           current: Fact | None, expected: object) -> Remembered:
    """Write the gated draft, compare-and-set on ``expected``; ``current`` is the version the
    gate saw."""
    assert verdict.status is not None and m.source_kind is not None
    assert m.source_id is not None and m.observed_at is not None
    draft = FactIn(
        subject=m.subject, predicate=m.key, value=m.value, valid_from=MEMORY_EPOCH,
        kind=FACT_KIND[m.kind], status=verdict.status, source=m.source_id, owner=m.owner,
        retention_reason=m.retention_reason, expires_at=m.expires_at,
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
        details=_details(m, verdict), then=_each(steps),
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
        tx.put_derivation(DerivationWrite(
            derivation, tuple((e, "evidence") for e in sorted(set(m.evidence))), (fact_id,),
            now))

    return link


def _decided(tx: StoreTx, now: datetime, m: MemoryIn, key: str, verdict: Verdict,
             current: Fact | None, actor: str) -> Remembered:
    event = Event(id=new_event_id(), tenant=m.tenant, at=now, actor=actor,
                  action="remember", reason=f"{verdict.decision.value}: {verdict.reason}",
                  details=_details(m, verdict))
    tx.append_event(event)
    return Remembered(verdict.decision, verdict.reason, key, current.id if current else None,
                      current.revision if current else None, event.id)


def _decide(store: Store, m: MemoryIn, key: str, verdict: Verdict, current: Fact | None,
            actor: str) -> Remembered:
    """A decision that writes nothing but its event, in a transaction of its own."""
    return store.write(m.tenant, lambda tx: _decided(tx, store.now(), m, key, verdict,
                                                     current, actor))


def _details(m: MemoryIn, verdict: Verdict) -> dict[str, str | int | float | bool]:
    # Who and what, never the value: erasure must not leave a copy in the audit trail.
    return {"decision": verdict.decision.value, "kind": m.kind.value, "subject": m.subject,
            "key": m.key, "scope": ",".join(m.scope().terms()) or "-",
            "source_kind": m.source_kind.value if m.source_kind else "-"}


def _subject(subject: str) -> Subject:
    return Subject(id=subject, kind=subject.split(":", 1)[0] if ":" in subject else "entity")


def outcome(store: Store, m: MemoryIn, *, task: str, succeeded: bool, at: datetime,
            actor: str) -> Remembered:
    """A task outcome for an experience: a success on a distinct task supports it (as a
    ``tool_result`` source ``outcome:<task>``); a failure is recorded as a decision event."""
    if m.kind is not MemoryKind.EXPERIENCE:
        return _decide(store, m, m.assertion_key(), refused("only experiences take outcomes"),
                        None, actor)
    if not succeeded:
        return _decide(store, m, m.assertion_key(), Verdict(Decision.CANDIDATE,
                        f"failed on task {task}: not validation"), None, actor)
    evidence = m.model_copy(update={"source_kind": SourceKind.TOOL_RESULT,
                                    "source_id": f"outcome:{task}", "source_version": None,
                                    "observed_at": at, "authority": None})
    return remember(store, evidence, actor=actor)


def validations(store: Store, tenant: str, key: str) -> int:
    """Distinct tasks an experience succeeded on (its ``outcome:<task>`` supports)."""
    fact, _ = current_version(store, tenant, key)
    if fact is None:
        return 0
    return len({s.source_id for s in store.supports(tenant, [fact.id])
                if s.source_id.startswith("outcome:")})


def promote(store: Store, m: MemoryIn, *, actor: str, by_user: bool = False,
            needed: int = DEFAULT_VALIDATIONS) -> Remembered:
    """Candidate to active: an experience validated on ``needed`` distinct tasks, or any
    candidate on an explicit user action (``m`` then names the user's message as its source).
    Task state is never promoted."""
    key = m.assertion_key()
    current, _ = current_version(store, m.tenant, key)
    if current is None or current.status is not Status.CANDIDATE:
        return _decide(store, m, key, refused("nothing candidate to promote"), current, actor)
    if m.kind is MemoryKind.TASK_STATE:
        return _decide(store, m, key, refused("task state is never promoted"), current, actor)
    if not by_user:
        seen = validations(store, m.tenant, key)
        if m.kind is not MemoryKind.EXPERIENCE or seen < needed:
            return _decide(store, m, key, refused(
                f"promotion needs {needed} validated tasks (has {seen}) or a user action"),
                current, actor)
    verdict = Verdict(Decision.ACTIVE, "promoted by the user" if by_user else
                      f"promoted: validated on {needed} distinct tasks", Status.ACTIVE)
    update: dict[str, object] = {"value": current.value}
    if not by_user:  # the validation itself is the source, public now
        update.update(source_kind=SourceKind.TOOL_RESULT, source_id=f"validated:{current.id}",
                      source_version="outcomes", observed_at=store.now(), authority=None)
    draft = m.model_copy(update=update)

    def work(tx: StoreTx) -> Remembered:
        tx.lock_subjects([m.subject])  # the compare-and-set on the revision seen decides
        return _write(tx, store.now(), draft, key, verdict, actor, current, current.revision)

    return store.write(m.tenant, work)


def invalidate_memory(store: Store, scope: Scope, subject: str, key: str, *, actor: str,
                      reason: str) -> ExitReport:
    """Stop holding a memory from now on: invisible to reads for now, unchanged for as-of
    reads before; history kept; anything derived from it is closed in system time."""
    ident = memory_key(scope, subject, key)
    current, _ = current_version(store, scope.tenant, ident)
    if current is None:
        raise UnknownReference(f"no memory {subject} {key} in this scope")
    return invalidate(store, scope, [current.id], actor=actor, reason=reason)
