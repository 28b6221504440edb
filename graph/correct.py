"""``correct``: a user corrects one of their memories, named by the id they were shown.

The correction is a ``remember`` of the same memory (kind, subject, key, scope, owner, retention
reason and expiry carried over) from the user's own message, so it passes the same gates and is
audited the same way. It is a compare-and-set on the version the user saw: if that version is no
longer current, the correction is refused with ``ConflictError`` rather than applied to a value
the user never saw. Correcting a side of an open conflict settles the conflict.
"""

from __future__ import annotations

import math
from datetime import datetime

from graph.memory import MEMORY_KIND, MemoryIn
from graph.model import Scope, SourceKind, Value
from graph.remember import Remembered, current_version, memory_key, remember
from graph.store import ConflictError, Store, StoreError, UnknownReference

_MEMORY_SCOPE = {"user", "project", "thread"}


def correct(store: Store, tenant: str, memory_id: str, value: Value, *, source_id: str,
            observed_at: datetime, actor: str, consent: bool = False) -> Remembered:
    fact = store.reading(tenant, lambda tx: tx.get_facts([memory_id])).get(memory_id)
    if fact is None or fact.kind not in MEMORY_KIND or fact.erased_at is not None:
        raise UnknownReference(f"no memory {memory_id} in tenant {tenant}")
    scope = Scope.from_terms(tenant, list(fact.scope))
    if set(scope.keys) - _MEMORY_SCOPE:
        raise UnknownReference(f"{memory_id} was not written as a memory (scope "
                               f"{', '.join(fact.scope)})")
    ttl = None
    if fact.expires_at is not None:  # the correction keeps the memory's expiry instant
        left = (fact.expires_at - observed_at).total_seconds()
        if left <= 0:
            raise StoreError(f"{memory_id} had expired by {observed_at.isoformat()}: "
                             "remember it anew")
        ttl = math.ceil(left)
    m = MemoryIn(
        kind=MEMORY_KIND[fact.kind], tenant=tenant, subject=fact.subject, key=fact.predicate,
        value=value, source_kind=SourceKind.USER_MESSAGE, source_id=source_id,
        observed_at=observed_at, owner=fact.owner, retention_reason=fact.retention_reason,
        user=scope.keys.get("user"), project=scope.keys.get("project"),
        thread=scope.keys.get("thread"), ttl_seconds=ttl, consent=consent,
    )
    current, _ = current_version(store, tenant, memory_key(m))
    if current is None:
        raise ConflictError(f"{memory_id} is no longer held: nothing current to correct")
    if fact.unit is None and current.id != fact.id:
        raise ConflictError(f"{memory_id} is no longer current (revision {fact.revision}; the "
                            f"store holds {current.id}, revision {current.revision})")
    return remember(store, m, actor=actor, expected=current.revision)
