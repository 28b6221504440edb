"""``forget``: erasure of a memory, of what one source said, or of everything of one user.

Erasure removes content (``MemoryTx.erase_facts``): the value and retention reason of every
version of the memories concerned, and of every fact derived from them (summaries included),
from the Neo4j store and from the embedded store's log. Content-free shells stay, invisible to
every read, so that lineage walks and the tombstone ``Event`` still have something to point at.
The tombstone holds counts and the subjects concerned (``subjects``, so that ``audit --subject``
finds it), never a key or a value.

By memory, the scope names a user, project or thread (it is part of the memory's identity). By
source: the facts that rest on that source alone are erased, in whatever scope they are (a source
id is one per tenant); a fact another source also supports stays, and the erased source no longer
supports it (left with no live support, the others retracted, it stops being held, as a retraction
of the source would decide). Every support edge counts, live or retracted
(``vintage.graph.writes.support.said_by``): a retraction does not unsay what a source said, so it
does not shield it from erasure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from vintage.graph.core.labels import FACT, GENERATED, USED
from vintage.graph.core.limits import required
from vintage.graph.core.model import Event, Fact, Scope, new_event_id
from vintage.graph.memory.gate import FACT_KIND
from vintage.graph.memory.primitives import memory_tx
from vintage.graph.memory.scoping import USER_SUBJECT, require_scope
from vintage.graph.store.protocol import (
    Direction,
    Erasure,
    Store,
    StoreError,
    StoreTx,
    UnknownReference,
)
from vintage.graph.writes.corrections import unsupported
from vintage.graph.writes.locking import under_locks
from vintage.graph.writes.support import said_by

_DEPTH = 64
_MEMORY_KINDS = tuple(FACT_KIND.values())
By = Literal["memory", "source", "user"]


@dataclass(frozen=True)
class Forgotten:
    event_id: str
    by: By
    facts: int  # versions whose content was erased
    derived: int  # derived facts (summaries, ...) erased with them
    # By source only: facts another source also said, kept without the erased one's support,
    # and how many of them that left with no live support (no longer held).
    kept: int = 0
    released: int = 0


def forget(
    store: Store, scope: Scope, *, subject: str | None = None, key: str | None = None,
    source_id: str | None = None, user: str | None = None, actor: str, reason: str,
) -> Forgotten:
    """Erase exactly one of: a memory (``subject`` and ``key``), a source, or a user."""
    required(reason, "the reason")
    chosen = [subject is not None and key is not None, source_id is not None, user is not None]
    if sum(chosen) != 1:
        raise StoreError("forget one thing: a memory (subject and key), a source, or a user")
    by: By = "memory" if chosen[0] else "source" if chosen[1] else "user"
    if by == "memory":
        require_scope(scope, "forgetting a memory")  # the scope is part of its identity

    def versions(tx: StoreTx) -> list[Fact]:
        # Every version, whatever its status: an invalidated memory's content is still there.
        if by == "memory":
            # The key's own versions and, if it was ever in a conflict set, the variants held
            # beside it (their own keys): all of it is this memory's content.
            assert subject is not None and key is not None
            terms = tuple(scope.terms())
            return [f for f in memory_tx(tx).facts_in(scope, _MEMORY_KINDS)
                    if (f.subject, f.predicate, tuple(f.scope)) == (subject, key, terms)]
        assert user is not None
        mine = Scope(tenant=scope.tenant, keys={**scope.keys, "user": user})
        return memory_tx(tx).facts_in(mine, _MEMORY_KINDS)

    def work(tx: StoreTx) -> Forgotten:
        kept: list[Fact] = []
        released: list[str] = []
        if by == "source":
            assert source_id is not None

            def said() -> tuple[list[Fact], list[Fact]]:
                # What the source alone ever said (retracted support included: the source
                # still said it) and what others said too, planned under all their subjects'
                # locks.
                alone, shared = said_by(tx, source_id)
                facts = tx.get_facts([*alone, *shared])
                return ([facts[i] for i in alone if i in facts],
                        [facts[i] for i in shared if i in facts])

            found, kept = under_locks(tx, said,
                                      lambda fs: (f.subject for f in fs[0] + fs[1]))
            now = store.now()
            found = [f for f in found if f.erased_at is None]
            targets = {f.id for f in found}
            # What stays no longer rests on it; what rested on it alone among its live supports
            # (the others retracted) is no longer held, as a retraction of it would decide.
            released = [i for i in tx.retract_support(source_id, now) if i not in targets]
            unsupported(tx, now, released)
        else:
            found = under_locks(tx, lambda: versions(tx), lambda fs: (f.subject for f in fs))
            now = store.now()  # after the locks: later than any write the plan rests on
            # What an earlier erasure took is not erased again (a second forget reported the
            # versions it had erased, and wrote another tombstone).
            found = [f for f in found if f.erased_at is None]
            targets = {f.id for f in found}
            if not targets:
                raise UnknownReference(f"nothing to forget by {by}: nothing of it is held, or "
                                       "it was erased already")
        derived: set[str] = set()
        if targets:
            down = tx.walk(sorted(targets), Direction.DOWNSTREAM, now, _DEPTH,
                           (USED, GENERATED))
            derived = down.ids(FACT) - targets
        # Whom it concerned, read before the content goes: subjects only, never a key or value.
        about = {f.subject for f in found} | {
            f.subject for f in tx.get_facts(sorted(derived)).values()} | (
            {USER_SUBJECT + user} if user is not None else set())
        memory_tx(tx).erase_facts([Erasure(i, now) for i in sorted(targets | derived)])
        event = Event(id=new_event_id(), tenant=scope.tenant, at=now, actor=actor,
                      action="erase", reason=reason,
                      details={"by": by, "facts": len(targets), "derived": len(derived),
                               "kept": len(kept), "released": len(released),
                               "scope": ",".join(scope.terms()) or "-",
                               "subjects": json.dumps(sorted(about))})
        tx.append_events(event)
        return Forgotten(event.id, by, len(targets), len(derived), len(kept), len(released))

    return store.write(scope.tenant, work)
