"""What the injection gate holds, shown to review: candidates that read as instructions.

A write that reads as instructions to the model (``vintage.graph.memory.injection``) is kept as
a candidate, so it never answers nor reaches a context; a person has to see it to decide
(confirm it as the user, correct it, or forget it). ``held_for_review`` lists the current
candidates of a scope (and of the narrower scopes it contains) whose fields read so, each with
the reason, and never the text: a review names what to look at (``memories --candidates``
shows the value to whoever may read that scope), it does not hand the text to whoever asks
for a review. The reason is found again by the detector at review time, so one rule decides
both the hold and the listing.
"""

from __future__ import annotations

from dataclasses import dataclass

from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import Status
from vintage.graph.core.model import Scope
from vintage.graph.memory.gate import FACT_KIND
from vintage.graph.memory.injection import scan_write
from vintage.graph.memory.scoping import require_read_scope
from vintage.graph.store.protocol import Store


@dataclass(frozen=True)
class Held:
    memory_id: str
    subject: str
    key: str
    scope: tuple[str, ...]
    why: str  # the family and the field, never the text


def held_for_review(store: Store, scope: Scope, *, all_scopes: bool = False) -> list[Held]:
    """The candidates in ``scope`` held because they read as instructions to the model, by
    subject and key. ``all_scopes`` is the caller's audited wide read (``review``)."""
    require_read_scope(scope, "a review", all_scopes=all_scopes)
    spec = AsOf(scope, statuses=frozenset({Status.CANDIDATE}), kinds=tuple(FACT_KIND.values()))
    found = []
    for fact in store.read(spec):
        why = scan_write(key=fact.predicate, value=fact.value, subject=fact.subject,
                         owner=fact.owner, retention_reason=fact.retention_reason)
        if why is not None:
            found.append(Held(fact.id, fact.subject, fact.predicate, tuple(fact.scope), why))
    return sorted(found, key=lambda h: (h.subject, h.key, h.scope, h.memory_id))
