"""Demotion and injection: how a memory ranks when a context is built, and what was injected.

Demotion is a ranking weight and nothing more. It never changes a memory's status, visibility,
value or any answer: ``recall`` returns exactly the same memories, ordered by weight; only a
context with a size limit (``vintage.queries.search.context``) leaves low-ranked ones out. A weight
belongs to one version (a correction starts again at 1), lies in [0, 1], and is read as of an
instant like everything else: each demotion is an ``Event`` (``action = "demote"``), so the weight
at T is the last demotion recorded at or before T. Weight 1 restores a memory.

An injection is the record that a context was built: which memory versions were handed to an
agent, for which thread. Agent output that repeats one of them is an echo of the engine's own
words, never evidence (``vintage.graph.memory.gate.NOT_EVIDENCE``); the injection lets the audit say
which.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.limits import required
from vintage.graph.core.model import Event, Scope, Value, new_event_id
from vintage.graph.memory.draft import memory_key
from vintage.graph.memory.scoping import require_scope
from vintage.graph.store.protocol import Store, UnknownReference

DEMOTE = "demote"
INJECT = "inject"
FULL = 1.0


@dataclass(frozen=True)
class Demoted:
    event_id: str
    memory_id: str
    weight: float
    previous: float


def demote(store: Store, scope: Scope, subject: str, key: str, *, weight: float, actor: str,
           reason: str) -> Demoted:
    """Set the ranking weight of a memory's current version (``weight=1`` restores it)."""
    if not 0.0 <= weight <= FULL:
        raise InvalidArgument(f"a weight lies between 0 and 1, not {weight}")
    required(reason, "a demotion's reason (it is logged)")
    require_scope(scope, "a demotion")
    ident = memory_key(scope, subject, key)
    live = [f for f in store.history(scope.tenant, ident)
            if f.superseded_at is None and f.invalidated_at is None and f.erased_at is None]
    if not live:
        raise UnknownReference(f"no memory {subject} {key} in this scope")
    memory_id, now = live[-1].id, store.now()
    previous = weights(store, scope.tenant, [memory_id], now)[memory_id]
    event = Event(id=new_event_id(), tenant=scope.tenant, at=now, actor=actor,
                  action=DEMOTE, reason=reason,
                  details={"decision": "restored" if weight == FULL else "demoted",
                           "subject": subject, "key": key, "memory": memory_id,
                           "weight": weight, "previous": previous,
                           "scope": ",".join(scope.terms()) or "-"})
    store.write(scope.tenant, lambda tx: tx.append_events(event))
    return Demoted(event.id, memory_id, weight, previous)


def weights(store: Store, tenant: str, memory_ids: Sequence[str],
            at: datetime) -> dict[str, float]:
    """Each version's weight as recorded at ``at`` (1 where it was never demoted)."""
    found = dict.fromkeys(memory_ids, FULL)
    for event in store.events(tenant, actions=[DEMOTE]):
        if event.at > at:
            break  # events come in (at, id) order
        memory = event.details.get("memory")
        weight = event.details.get("weight")
        if isinstance(memory, str) and memory in found and isinstance(weight, int | float):
            found[memory] = float(weight)
    return found


def record_injection(store: Store, tenant: str, *, thread: str, subject: str | None,
                     memory_ids: Sequence[str], left_out: Sequence[str] = (),
                     actor: str, event_id: str | None = None,
                     more: Mapping[str, Value] | None = None) -> str:
    """Record that these memory versions were put into a context for ``thread``, and which
    visible ones were considered but cut by the limit (ids only, never values). A context
    pack (``vintage.queries.search.pack``) names its own event id (its text quotes it) and adds its
    trace
    (``more``: ids and numbers, never values)."""
    if not thread.strip():
        raise InvalidArgument("an injection belongs to a thread")
    event = Event(id=event_id or new_event_id(), tenant=tenant, at=store.now(), actor=actor,
                  action=INJECT, reason=f"context for thread {thread}",
                  details={"decision": "injected", "thread": thread,
                           **({} if subject is None else {"subject": subject}),
                           "memories": ",".join(memory_ids), "count": len(memory_ids),
                           "considered": len(memory_ids) + len(left_out),
                           "left_out": ",".join(left_out), **(more or {})})
    store.write(tenant, lambda tx: tx.append_events(event))
    return event.id


def last_injection(store: Store, tenant: str, memory_id: str) -> Event | None:
    """The latest context that carried this memory version (None: never injected)."""
    hits = [e for e in store.events(tenant, actions=[INJECT])
            if memory_id in str(e.details.get("memories", "")).split(",")]
    return hits[-1] if hits else None
