"""Trusted document sources, registered per tenant.

A ``document`` source has the authority of an authoritative document only when the tenant has
registered it (``trust_source``; ``vintage sources trust ID --kind document``): a write from an
unregistered document is held as a candidate, whatever version it names, so that a pasted
"document" cannot make a business fact active or override a memory that answers. Registration
and its withdrawal (``distrust_source``) are ``Event``s (``action = "trust"``); a source is
trusted while its latest such event says so, read at the time of the write.

Binding a source kind to an authenticated principal (so that a caller cannot claim to be a
user or a registered document) comes with principals and API keys, not here
(docs/contract.md, "Scope and permission").
"""

from __future__ import annotations

from datetime import datetime, timedelta

from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.kinds import SourceKind
from vintage.graph.core.limits import required, required_name
from vintage.graph.core.model import Event, new_event_id
from vintage.graph.store.protocol import Store

TRUST = "trust"
REGISTERED_KINDS = frozenset({SourceKind.DOCUMENT})
_MICROSECOND = timedelta(microseconds=1)


def decision_instant(store: Store, tenant: str) -> datetime:
    """When a new trust decision (a source's or a tool's) is recorded: now, or a microsecond
    after the tenant's latest one. Events of one instant come back in id order, which is
    random, so a withdrawal taken at the instant of its registration (a pinned clock, a coarse
    one, two requests at once) could read as the older of the two; placed after the latest,
    the decision read last is the one taken last."""
    last = [e.at for e in store.events(tenant, actions=[TRUST])][-1:]
    return max([store.now(), *(t + _MICROSECOND for t in last)])


def _registered(store: Store, tenant: str, source_id: str, kind: SourceKind, *, trusted: bool,
                actor: str, reason: str) -> str:
    if kind not in REGISTERED_KINDS:
        raise InvalidArgument(f"only {', '.join(sorted(k.value for k in REGISTERED_KINDS))} "
                              f"sources are registered as trusted, not {kind.value}"
                              + (" (tools: vintage tools register)"
                                 if kind is SourceKind.TOOL_RESULT else ""))
    # A new registration names an id a write could carry; a withdrawal names what is there
    # (one registered before ids were bounded too).
    if trusted:
        required_name(source_id, "the source to trust")
    else:
        required(source_id, "the source to distrust")
    required(reason, "a trust decision's reason (it is logged)")
    if not trusted and source_id not in trusted_sources(store, tenant, kind):
        # A withdrawal of nothing would log a decision that changed nothing.
        raise InvalidArgument(f"{kind.value} source {source_id} is not trusted in this tenant: "
                              "nothing to withdraw (vintage sources trusted)")
    event = Event(id=new_event_id(), tenant=tenant, at=decision_instant(store, tenant),
                  actor=actor, action=TRUST,
                  reason=reason,
                  details={"decision": "trusted" if trusted else "distrusted",
                           "source": source_id, "source_kind": kind.value})
    store.write(tenant, lambda tx: tx.append_events(event))
    return event.id


def trust_source(store: Store, tenant: str, source_id: str, *,
                 kind: SourceKind = SourceKind.DOCUMENT, actor: str, reason: str) -> str:
    """Register ``source_id`` as a trusted source of its kind in ``tenant``; the event's id."""
    return _registered(store, tenant, source_id, kind, trusted=True, actor=actor,
                       reason=reason)


def distrust_source(store: Store, tenant: str, source_id: str, *,
                    kind: SourceKind = SourceKind.DOCUMENT, actor: str, reason: str) -> str:
    """Withdraw the registration: later writes from the source are held as candidates again
    (what it already made active stays, as any memory does, until corrected or retracted)."""
    return _registered(store, tenant, source_id, kind, trusted=False, actor=actor,
                       reason=reason)


def trusted_sources(store: Store, tenant: str, kind: SourceKind = SourceKind.DOCUMENT,
                    at: datetime | None = None) -> set[str]:
    """The sources of ``kind`` registered as trusted at ``at`` (default: now, the latest
    decision included, even one placed a microsecond ahead of the clock)."""
    state: dict[str, bool] = {}
    for e in store.events(tenant, actions=[TRUST]):
        if at is not None and e.at > at:
            break  # events come in (at, id) order
        if e.details.get("source_kind") == kind.value:
            state[str(e.details.get("source"))] = e.details.get("decision") == "trusted"
    return {source for source, yes in state.items() if yes}


def untrusted(store: Store, tenant: str, kind: SourceKind | None, source_id: str | None) -> \
        str | None:
    """Why a write from this source is held as a candidate (None: nothing to hold)."""
    if kind not in REGISTERED_KINDS or source_id is None:
        return None
    assert kind is not None
    if source_id in trusted_sources(store, tenant, kind):
        return None
    return (f"{kind.value} source {source_id} is not registered as trusted in this tenant "
            f"(vintage sources trust {source_id} --kind {kind.value})")
