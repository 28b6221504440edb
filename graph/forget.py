"""``forget``: erasure of a memory, of what one source said, or of everything of one user.

Erasure removes content (``StoreTx.erase_facts``): the value and retention reason of every
version of the memories concerned, and of every fact derived from them (summaries included),
from the Neo4j store and from the embedded store's log. Content-free shells stay, invisible to
every read, so that lineage walks and the tombstone ``Event`` (counts only) still have something
to point at.

By source: the facts that rest on that source alone are erased; a fact another source also
supports stays, and the erased source no longer supports it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Literal

from graph.asof import AsOf
from graph.memory import MEMORY_EPOCH
from graph.model import Event, Scope, Status, assertion_key
from graph.schema import FACT, GENERATED, USED
from graph.store import Direction, Erasure, Store, StoreError, StoreTx, UnknownReference
from graph.support import supported_by
from graph.temporal import all_time

_DEPTH = 64
By = Literal["memory", "source", "user"]


@dataclass(frozen=True)
class Forgotten:
    event_id: str
    by: By
    facts: int  # versions whose content was erased
    derived: int  # derived facts (summaries, ...) erased with them


def forget(
    store: Store, scope: Scope, *, subject: str | None = None, key: str | None = None,
    source_id: str | None = None, user: str | None = None, actor: str, reason: str,
) -> Forgotten:
    """Erase exactly one of: a memory (``subject`` and ``key``), a source, or a user."""
    chosen = [subject is not None and key is not None, source_id is not None, user is not None]
    if sum(chosen) != 1:
        raise StoreError("forget one thing: a memory (subject and key), a source, or a user")
    by: By = "memory" if chosen[0] else "source" if chosen[1] else "user"
    keys: list[str] = []
    if by == "memory":
        assert subject is not None and key is not None
        keys = [assertion_key(scope, subject, key, MEMORY_EPOCH, None, None)]
    elif by == "user":
        assert user is not None
        mine = Scope(tenant=scope.tenant, keys={**scope.keys, "user": user})
        keys = sorted({f.key for f in store.read(AsOf(
            mine, valid=all_time(), statuses=frozenset(Status)))})
    ids = {f.id for k in keys for f in store.history(scope.tenant, k)}

    def work(tx: StoreTx) -> Forgotten:
        now = store.now()
        targets = set(ids)
        if by == "source":
            assert source_id is not None
            targets = set(supported_by(tx, source_id, now)[0])
            tx.retract_support(source_id, now)  # what stays no longer rests on it
        if not targets and by != "source":
            raise UnknownReference(f"nothing to forget by {by}")
        derived: set[str] = set()
        if targets:
            down = tx.walk(sorted(targets), Direction.DOWNSTREAM, now, _DEPTH,
                           (USED, GENERATED))
            derived = down.ids(FACT) - targets
        tx.erase_facts([Erasure(i, now) for i in sorted(targets | derived)])
        event = Event(id="e" + uuid.uuid4().hex, tenant=scope.tenant, at=now, actor=actor,
                      action="erase", reason=reason,
                      details={"by": by, "facts": len(targets), "derived": len(derived),
                               "scope": ",".join(scope.terms()) or "-"})
        tx.append_event(event)
        return Forgotten(event.id, by, len(targets), len(derived))

    return store.write(scope.tenant, work)
