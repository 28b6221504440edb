"""Rollback: restore a scope's memories to what the store held at a system time T.

Nothing is deleted and nothing is rewritten: the rollback is new versions and invalidations,
written as one event. A memory whose current value differs from its value at T gets a new
version with that value (from a rollback source of the old version's kind and authority); a
memory that did not exist at T is invalidated (system time; history kept). A rollback is itself
rolled back by rolling back to the instant before it. Both states it compares are read in the
transaction that writes, after the subjects' locks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import Authority, SourceKind, Status
from vintage.graph.core.limits import required
from vintage.graph.core.model import Event, Fact, FactIn, Scope, SourceIn, digest, new_event_id
from vintage.graph.core.temporal import all_time
from vintage.graph.memory.gate import FACT_KIND
from vintage.graph.memory.scoping import require_scope
from vintage.graph.store.protocol import Invalidation, Reopening, Store, StoreError, StoreTx
from vintage.graph.writes.locking import under_locks
from vintage.graph.writes.semantics import Batch, WriteReport, record_in

_KIND_OF_AUTHORITY = {
    Authority.USER_STATEMENT: SourceKind.USER_MESSAGE,
    Authority.AUTHORITATIVE: SourceKind.TOOL_RESULT,
    Authority.APPROVED_SUMMARY: SourceKind.APPROVED_SUMMARY,
    Authority.MULTI_TURN_INFERENCE: SourceKind.MODEL_INFERENCE,
    Authority.MODEL_GUESS: SourceKind.MODEL_INFERENCE,
    Authority.UNKNOWN_TEXT: SourceKind.UNKNOWN,
}


@dataclass(frozen=True)
class RolledBack:
    event_id: str | None  # None: the scope already was as it was at T
    restored: int  # memories given back their value at T
    retired: int  # memories that did not exist at T, invalidated


Snapshot = dict[str, Fact]  # a scope's memories at one instant, by assertion key


def _state(tx: StoreTx, scope: Scope, at: datetime) -> Snapshot:
    spec = AsOf(scope, known_at=at, system_at=at, valid=all_time(),
                statuses=frozenset(Status), kinds=tuple(FACT_KIND.values()))
    return {f.key: f for f in tx.read(spec)}


def _subjects(states: tuple[datetime, Snapshot, Snapshot]) -> set[str]:
    _, then, current = states
    return {f.subject for f in (*then.values(), *current.values())}


def rollback(store: Store, scope: Scope, to: datetime, *, actor: str,
             reason: str) -> RolledBack:
    require_scope(scope, "a rollback")  # never a whole tenant's memories by omission
    required(reason, "the reason")
    if to >= store.now():
        raise StoreError("roll back to an instant in the past")

    def states(tx: StoreTx) -> tuple[datetime, Snapshot, Snapshot]:
        now = store.now()
        return now, _state(tx, scope, to), _state(tx, scope, now)

    def work(tx: StoreTx) -> RolledBack:
        # Planned on what the store holds once the subjects are locked, in the transaction
        # that writes: no writer of those subjects can slip in between.
        now, then, current = under_locks(tx, lambda: states(tx), _subjects)
        return _restore(tx, now, scope, to, then, current, actor=actor, reason=reason)

    return store.write(scope.tenant, work)


def _restore(tx: StoreTx, now: datetime, scope: Scope, to: datetime, then: Snapshot,
             current: Snapshot, *, actor: str, reason: str) -> RolledBack:
    changed = [then[k] for k in sorted(then)
               if k in current and current[k].content_hash != then[k].content_hash]
    # Held at T, held by nothing now: the same fact comes back (a rollback being undone).
    reopened = [then[k] for k in sorted(then) if k not in current]
    retired = [current[k] for k in sorted(current) if k not in then]
    if not (changed or reopened or retired):
        return RolledBack(None, 0, 0)
    details: dict[str, str | int | float | bool] = {
        "decision": "rollback", "to": to.isoformat(), "restored": len(changed) + len(reopened),
        "retired": len(retired),
        # The subjects it changed (ids, never content), so that ``audit --subject`` finds it.
        "subjects": json.dumps(sorted({f.subject for f in (*changed, *reopened, *retired)}))}

    def restore(tx: StoreTx, report: WriteReport | None = None) -> None:
        tx.invalidate_facts([Invalidation(f.id, now) for f in retired])
        tx.reopen_facts([Reopening(f.id, now) for f in reopened])

    why = f"rollback to {to.isoformat()}: {reason}"
    if not changed:
        event = Event(id=new_event_id(), tenant=scope.tenant, at=now, actor=actor,
                      action="rollback", reason=why, details=details)
        restore(tx)
        tx.append_events(event)
        return RolledBack(event.id, len(reopened), len(retired))
    # Named by what it does (scope, target, instant): the same rollback is the same source.
    tag = digest(scope.terms(), to.isoformat(), now.isoformat())[:12]
    sources = {a: SourceIn(id=f"rollback:{tag}:{a.name.lower()}", kind=_KIND_OF_AUTHORITY[a],
                           available_at=now, authority=a)
               for a in {Authority(f.authority) for f in changed}}
    drafts = [FactIn(subject=f.subject, predicate=f.predicate, value=f.value, unit=f.unit,
                     valid_from=f.valid_from, valid_to=f.valid_to, kind=f.kind,
                     status=f.status, source=sources[Authority(f.authority)].id,
                     owner=f.owner, retention_reason=f.retention_reason,
                     expires_at=f.expires_at, key=f.key) for f in changed]
    report = record_in(
        tx, now, scope, Batch(sources=list(sources.values()), facts=drafts), actor=actor,
        reason=why, expected={f.key: current[f.key].revision for f in changed},
        details=details, then=restore,
    )
    return RolledBack(report.event_id, len(changed) + len(reopened), len(retired))
