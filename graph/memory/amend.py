"""Operations on a memory someone names (by id, or by subject and key in a scope): a user's
correction, and the drafts that ``outcome`` and ``promote`` need from the stored version.

A correction is a ``remember`` of the same memory (kind, subject, key, scope, owner, retention
reason and expiry carried over) from the user's own message, so it passes the same gates and is
audited the same way. It is a compare-and-set on the version the user saw: if that version is no
longer current, the correction is refused with ``ConflictError`` rather than applied to a value
the user never saw. Correcting a side of an open conflict settles the conflict.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from vintage.graph.core.kinds import SourceKind
from vintage.graph.core.model import Fact, Scope, Value
from vintage.graph.memory.gate import MEMORY_KIND, MemoryIn, event_time_of, memory_key
from vintage.graph.memory.remember import Remembered, current_version, remember
from vintage.graph.memory.scoping import require_scope
from vintage.graph.store.protocol import ConflictError, Store, StoreError, UnknownReference

_MEMORY_SCOPE = {"user", "project", "thread"}


def stored(store: Store, tenant: str, memory_id: str) -> Fact:
    """A memory version by id (any version; erased ones are gone)."""
    fact = store.reading(tenant, lambda tx: tx.get_facts([memory_id])).get(memory_id)
    if fact is None or fact.kind not in MEMORY_KIND or fact.erased_at is not None:
        raise UnknownReference(f"no memory {memory_id} in tenant {tenant}")
    return fact


def current(store: Store, scope: Scope, subject: str, key: str) -> Fact:
    """The current version of one memory in exactly ``scope``."""
    require_scope(scope, "a memory named by subject and key")
    ident = memory_key(scope, subject, key)
    fact, _ = current_version(store, scope.tenant, ident)
    if fact is None:
        raise UnknownReference(f"no memory {subject} {key} in this scope")
    return fact


def draft_of(fact: Fact, tenant: str, *, value: Value | None = None,
             observed_at: datetime | None = None, valid_from: datetime | None = None,
             valid_to: datetime | None = None, **source: Any) -> MemoryIn:
    """A write of the same memory (kind, subject, key, scope, owner, retention reason, event
    time, and the expiry instant when ``observed_at`` is given) with ``value`` (default: the
    stored one). ``valid_from``/``valid_to`` restate the event time (given alone, the other
    end is kept, or open; a memory stored without one starts when it is observed)."""
    held = event_time_of(fact)
    if valid_from is None and valid_to is None and held is not None:
        valid_from, valid_to = held
    elif valid_from is None and held is not None:
        valid_from = held[0]
    elif valid_to is None and held is not None and held[1] is not None \
            and valid_from is not None and held[1] > valid_from:
        valid_to = held[1]  # a new start inside the old period keeps its end
    scope = Scope.from_terms(tenant, list(fact.scope))
    if set(scope.keys) - _MEMORY_SCOPE:
        raise UnknownReference(f"{fact.id} was not written as a memory (scope "
                               f"{', '.join(fact.scope)})")
    ttl = None
    if fact.expires_at is not None and observed_at is not None:
        left = (fact.expires_at - observed_at).total_seconds()
        if left <= 0:
            raise StoreError(f"{fact.id} had expired by {observed_at.isoformat()}: "
                             "remember it anew")
        ttl = math.ceil(left)
    return MemoryIn(
        kind=MEMORY_KIND[fact.kind], tenant=tenant, subject=fact.subject, key=fact.predicate,
        value=fact.value if value is None else value, observed_at=observed_at,
        owner=fact.owner, retention_reason=fact.retention_reason,
        user=scope.keys.get("user"), project=scope.keys.get("project"),
        thread=scope.keys.get("thread"), ttl_seconds=ttl, valid_from=valid_from,
        valid_to=valid_to, **source,
    )


def correct(store: Store, tenant: str, memory_id: str, value: Value, *, source_id: str,
            observed_at: datetime, actor: str, consent: bool = False,
            valid_from: datetime | None = None,
            valid_to: datetime | None = None) -> Remembered:
    """The user restates one memory version: ``value`` over the version's event time, or over
    ``valid_from``/``valid_to`` when given (a correction fixes what was said; it does not move
    when it held unless told)."""
    fact = stored(store, tenant, memory_id)
    m = draft_of(fact, tenant, value=value, observed_at=observed_at, valid_from=valid_from,
                 valid_to=valid_to, source_kind=SourceKind.USER_MESSAGE, source_id=source_id,
                 consent=consent)
    now, _ = current_version(store, tenant, m.assertion_key())
    if now is None:
        raise ConflictError(f"{memory_id} is no longer held: nothing current to correct")
    if fact.unit is None and now.id != fact.id:
        raise ConflictError(f"{memory_id} is no longer current (revision {fact.revision}; the "
                            f"store holds {now.id}, revision {now.revision})")
    return remember(store, m, actor=actor, expected=now.revision)
