"""Applying a change and its cascade in one transaction: supersede (knowledge axis), invalidate
and retract a source (system axis). History is kept: intervals close, nothing is deleted.

Recompute (on request, knowledge axis) is ``vintage.graph.writes.recompute``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from vintage.graph.core.labels import FACT, SUPPORTED_BY
from vintage.graph.core.limits import required
from vintage.graph.core.model import Event, Fact, Scope, Value, new_event_id
from vintage.graph.store.protocol import (
    Direction,
    Invalidation,
    Reopening,
    Store,
    StoreError,
    StoreTx,
    UnknownReference,
)
from vintage.graph.writes.cascade import Axis, Fate, Outcome, close, downstream, plan
from vintage.graph.writes.locking import under_locks
from vintage.graph.writes.reach import FactRef
from vintage.graph.writes.recompute import recompute_plan
from vintage.graph.writes.reinstate import settle_knowledge


def cascade_knowledge(
    tx: StoreTx, now: datetime, changed: Mapping[str, datetime], successors: Mapping[str, str],
    *, actor: str, recompute: bool = False, tolerance: float = 0.0,
) -> list[Outcome]:
    """Close (or recompute) every derived fact whose inputs were superseded."""
    if recompute:
        return recompute_plan(tx, now, plan(tx, changed, Axis.KNOWLEDGE, now), successors, actor,
                              tolerance)
    affected = close(tx, changed, Axis.KNOWLEDGE, now)
    return [Outcome(a.fact, a.depth, a.path, Fate.SURVIVES if a.ends_at is None
                    else Fate.CLOSED, a.ends_at) for a in affected]


def cascade_system(tx: StoreTx, now: datetime, invalid: Sequence[str]) -> list[Outcome]:
    """Invalidate every derived fact left without a live justification."""
    affected = close(tx, dict.fromkeys(invalid, now), Axis.SYSTEM, now)
    return [Outcome(a.fact, a.depth, a.path, Fate.CLOSED if a.ends_at else Fate.SURVIVES,
                    a.ends_at) for a in affected]


@dataclass(frozen=True)
class ExitReport:
    event_id: str
    invalidated: list[str]
    cascade: list[Outcome]  # system axis: derived facts closed (or held again, on an undo)
    # Knowledge axis: facts current again, or whose knowledge now ends elsewhere, because a
    # version that had corrected them left (or came back): ``vintage.graph.writes.reinstate``.
    knowledge: list[Outcome] = field(default_factory=list)


def invalidate(
    store: Store, scope: Scope, fact_ids: Sequence[str], *, actor: str, reason: str,
) -> ExitReport:
    """The engine stops holding these facts from now on (history kept, as-of before unchanged)."""
    required(reason, "the reason")

    def work(tx: StoreTx) -> ExitReport:
        facts = under_locks(tx, lambda: tx.get_facts(sorted(set(fact_ids))), _subjects)
        now = store.now()  # after the locks: later than any write the plan rests on
        missing = set(fact_ids) - set(facts)
        if missing:
            raise UnknownReference(f"unknown fact(s): {', '.join(sorted(missing)[:5])}")
        live = [f.id for f in facts.values() if f.invalidated_at is None]
        tx.invalidate_facts([Invalidation(fid, now) for fid in live])
        cascade = cascade_system(tx, now, live)
        return _exit_event(tx, now, actor, "invalidate", reason, live, cascade)

    return store.write(scope.tenant, work)


def unsupported(tx: StoreTx, now: datetime,
                orphans: Sequence[str]) -> tuple[list[Outcome], list[Outcome]]:
    """Facts left with no live support stop being held from ``now``; the system-axis cascade
    follows, and what the departed versions had corrected is current again
    (vintage.graph.writes.reinstate).
    (cascade, knowledge), as ``ExitReport`` names them."""
    tx.invalidate_facts([Invalidation(fid, now) for fid in orphans])
    cascade = cascade_system(tx, now, orphans)
    gone = [*orphans, *(o.fact.id for o in cascade if o.fate is Fate.CLOSED)]
    return cascade, settle_knowledge(tx, now, gone=gone)


def retract_source(
    store: Store, scope: Scope, source_id: str, *, actor: str, reason: str,
) -> ExitReport:
    """The source's facts lose its support; those left with none are invalidated, and the
    cascade follows."""
    required(reason, "the reason")

    def work(tx: StoreTx) -> ExitReport:
        if not tx.get_sources([source_id]):
            raise UnknownReference(f"unknown source: {source_id}")
        _lock_supported(tx, source_id)
        now = store.now()
        # Every fact it supported, not only the orphans: the audit finds it by their subjects.
        touched = tx.walk([source_id], Direction.DOWNSTREAM, now, 1, (SUPPORTED_BY,)).ids(FACT)
        if not touched:  # no live support edge: a retraction would change nothing but the log
            before = tx.retracted_at(source_id)
            raise StoreError(f"source {source_id!r} supports no fact now"
                             + (f": retracted already at {before.isoformat()}" if before else "")
                             + "; nothing to retract")
        orphans = tx.retract_support(source_id, now)
        cascade, knowledge = unsupported(tx, now, orphans)
        return _exit_event(tx, now, actor, "retract", reason, orphans, cascade,
                           source=source_id, touched=sorted(touched), knowledge=knowledge)

    return store.write(scope.tenant, work)


def restore_source(
    store: Store, scope: Scope, source_id: str, *, actor: str, reason: str,
) -> ExitReport:
    """Undo the source's latest retraction: its support edges hold again, and every fact that
    retraction closed (directly or by cascade) and that is justified again is held again. Both
    get a system-time gap for the retracted stretch, so as-of reads inside it still see the
    retraction, and nothing of either history is lost."""
    required(reason, "the reason")

    def work(tx: StoreTx) -> ExitReport:
        if not tx.get_sources([source_id]):
            raise UnknownReference(f"unknown source: {source_id}")
        _lock_supported(tx, source_id)
        now = store.now()
        retracted = tx.retracted_at(source_id)
        if retracted is None:
            raise StoreError(f"source {source_id!r} has no retraction to undo")
        regained = tx.restore_support(source_id, retracted, now)
        facts = tx.get_facts(regained)
        reopened = _unreplaced(tx, [facts[fid] for fid in regained
                                    if facts[fid].invalidated_at == retracted], retracted)
        tx.reopen_facts([Reopening(fid, now) for fid in reopened])
        cascade = _reopen_downstream(tx, now, reopened, retracted)
        # What the returning versions correct is closed again, where it was.
        knowledge = settle_knowledge(tx, now, back=[*reopened, *(o.fact.id for o in cascade)])
        return _exit_event(tx, now, actor, "restore", reason, reopened, cascade,
                           source=source_id, touched=regained, knowledge=knowledge)

    return store.write(scope.tenant, work)


def _reopen_downstream(
    tx: StoreTx, now: datetime, reopened: Sequence[str], retracted: datetime,
) -> list[Outcome]:
    p = downstream(tx, reopened, now)
    live = {fid: f.invalidated_at is None for fid, f in p.facts.items()} | dict.fromkeys(
        reopened, True)
    outcomes = []
    replaced = {f.id for f in p.facts.values()} - set(
        _unreplaced(tx, list(p.facts.values()), retracted))
    for fid in p.order:
        fact = p.facts[fid]
        if fact.invalidated_at != retracted or fid in replaced:
            continue  # closed by something else (or never), or its assertion was written again
        if any(all(live.get(i, False) for i in ids) for ids in p.justifications.get(fid, [])):
            live[fid] = True
            path = p.paths.get(fid, (fid,))
            outcomes.append(Outcome(FactRef.of(fact), (len(path) - 1) or 1, path,
                                    Fate.REOPENED, None))
    tx.reopen_facts([Reopening(o.fact.id, now) for o in outcomes])
    return outcomes


def _unreplaced(tx: StoreTx, facts: Sequence[Fact], retracted: datetime) -> list[str]:
    """The facts whose assertion was not written again while they were out (no live version
    with a higher revision recorded since the retraction). One that was stays out: reopening
    it would make two current versions of one assertion, and the later write is the engine's
    answer since. A version that had superseded the fact before it went out does not keep it
    out: the fact comes back closed where it was (vintage.graph.writes.reinstate re-ends both)."""
    live = tx.versions(sorted({f.key for f in facts}))
    return [f.id for f in facts
            if not any(v.revision > f.revision and v.recorded_at >= retracted
                       for v in live.get(f.key, []))]


def _exit_event(
    tx: StoreTx, now: datetime, actor: str, action: str, reason: str, invalidated: list[str],
    cascade: list[Outcome], source: str | None = None, touched: Sequence[str] = (),
    knowledge: Sequence[Outcome] = (),
) -> ExitReport:
    event_id = new_event_id()
    # The subjects it reached (ids, never content), so that an audit by subject finds it.
    reached = {f.subject for f in tx.get_facts(sorted({*invalidated, *touched})).values()}
    details: dict[str, Value] = {
        "invalidated": len(invalidated),
        "cascade_closed": sum(o.fate is Fate.CLOSED for o in cascade),
        "cascade_survived": sum(o.fate is Fate.SURVIVES for o in cascade),
        "subjects": json.dumps(sorted(reached | {o.fact.subject for o in cascade})),
    }
    if source is not None:
        details["source"] = source
    if knowledge:
        details["knowledge_reinstated"] = sum(o.fate is Fate.REINSTATED for o in knowledge)
        details["knowledge_closed"] = sum(o.fate is Fate.CLOSED for o in knowledge)
    tx.append_events(Event(id=event_id, tenant=tx.tenant, at=now, actor=actor, action=action,
                          reason=reason, details=details))
    return ExitReport(event_id, invalidated, cascade, list(knowledge))


def _subjects(facts: Mapping[str, Fact]) -> list[str]:
    return sorted({f.subject for f in facts.values()})


def _lock_supported(tx: StoreTx, source_id: str) -> None:
    """The write locks of the subjects of every fact the source ever supported, as every write
    takes its subjects' first (``vintage.graph.writes.locking``): a batch recording one of them
    again (a new
    support) is decided before or after the retraction, never across it."""
    under_locks(tx, lambda: tx.get_facts(tx.ever_supported_by(source_id)), _subjects)
