"""The service's access glue: the scope a request of a principal runs in, and whether a record a
request names by id lies within the principal's reach.

The rules are ``vintage.graph.access``'s (``check_read``, ``check_write``, ``within``,
``Principal.reaches``); this module only applies them to what a request names. The tenant is
always the key's. An id outside the key's reach (another tenant's, another user's) raises
``UnknownReference`` with the same message as an id that does not exist, so the answer (404)
says nothing of what others hold.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from vintage.graph.access import Forbidden, Principal, check_read, within
from vintage.graph.core.model import Event, Fact, Scope
from vintage.graph.memory.amend import stored
from vintage.graph.memory.gate import memory_scope
from vintage.graph.store.protocol import Store, StoreTx, UnknownReference

# What the audit never shows, even to an admin: a key's verifier
# (``vintage.graph.access.keystring``).
UNSHOWN_DETAILS = frozenset({"hash", "salt"})
_NO_SCOPE = ("", "-")


def read_scope(p: Principal, *, user: str | None = None, project: str | None = None,
               thread: str | None = None, all_scopes: bool = False) -> Scope:
    """The scope a read runs in: what the request names, with the key's binding."""
    return check_read(p, memory_scope(p.tenant, user, project, thread), all_scopes)


def write_scope(p: Principal, *, user: str | None = None, project: str | None = None,
                thread: str | None = None) -> Scope:
    """The scope a write runs in: the key's binding, narrowed by what the request names; a
    reader key writes nothing (``Forbidden``)."""
    if not p.can_write:
        raise Forbidden("a reader key writes nothing")
    user, project = within(p, user, project)
    return memory_scope(p.tenant, user, project, thread)


def reaches(p: Principal, fact: Fact) -> bool:
    return p.reaches(Scope.from_terms(p.tenant, list(fact.scope)))


def fact_in_reach(store: Store, p: Principal, fact_id: str) -> Fact:
    fact = store.reading(p.tenant, lambda tx: tx.get_facts([fact_id])).get(fact_id)
    if fact is None or not reaches(p, fact):
        raise UnknownReference(f"unknown fact: {fact_id}")
    return fact


def memory_in_reach(store: Store, p: Principal, memory_id: str) -> Fact:
    """A memory version by id; another user's reads exactly as one that does not exist."""
    try:
        fact = stored(store, p.tenant, memory_id)
    except UnknownReference:
        fact = None
    if fact is None or not reaches(p, fact):
        raise UnknownReference(f"no memory {memory_id}")
    return fact


def source_in_reach(store: Store, p: Principal, source_id: str) -> None:
    """A source is within reach when it exists in the key's tenant and every fact it ever
    supported is (a source id is one per tenant: what it said may lie in several scopes, and
    retracting, erasing or weighing it reaches all of them)."""
    def facts(tx: StoreTx) -> list[Fact] | None:
        if not tx.get_sources([source_id]):
            return None
        return list(tx.get_facts(tx.ever_supported_by(source_id)).values())

    found = store.reading(p.tenant, facts)
    if found is None or not all(reaches(p, f) for f in found):
        raise UnknownReference(f"unknown source: {source_id}")


def event_scope(p: Principal, event: Event) -> Scope | None:
    """The scope an event is about (None: the tenant's, such as a key's creation)."""
    terms = str(event.details.get("scope", "-"))
    if terms in _NO_SCOPE:
        return None
    try:
        return Scope.from_terms(p.tenant, terms.split(","))
    except ValueError:  # not written by the memory verbs: the tenant's
        return None


def shown_event(p: Principal, event: Event) -> Event | None:
    """The event as ``p`` may see it, or None: an admin key sees every event; any other key
    sees the events about a scope within its reach (a key bound to user 42: user 42's), never
    the tenant's own (keys, wide reads). No key sees a verifier."""
    if not p.can_read_tenant_wide:
        scope = event_scope(p, event)
        if scope is None or not p.reaches(scope):
            return None
    if UNSHOWN_DETAILS & event.details.keys():
        kept = {k: v for k, v in event.details.items() if k not in UNSHOWN_DETAILS}
        return event.model_copy(update={"details": kept})
    return event


def shown_events(p: Principal, events: Sequence[Event], *, upto: datetime) -> list[Event]:
    """The events ``p`` may see (``shown_event``) up to the instant ``upto``."""
    shown = (shown_event(p, e) for e in events if e.at <= upto)
    return [e for e in shown if e is not None]
