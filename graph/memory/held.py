"""What the write gates hold, shown to review: candidates that read as instructions, and tool
results or documents whose source carries no authority here.

A write that reads as instructions to the model (``vintage.graph.memory.injection``) is kept as
a candidate, so it never answers nor reaches a context; so is a tool result from a tool the
tenant did not register, or reported by a principal its registration does not name
(``vintage.graph.memory.tools``), and a document from a source nobody trusted
(``vintage.graph.memory.trust``). A person has to see them to decide (confirm, correct, register
the tool, or forget). ``held_for_review`` lists the current candidates of a scope (and of the
narrower scopes it contains) held so, each with the reason, and never the text: a review names
what to look at (``memories --candidates`` shows the value to whoever may read that scope), it
does not hand the text to whoever asks for a review.

An instruction-like write's reason is found again by the detector at review time, so one rule
decides both the hold and the listing. A source's reason is the one the write was held for,
kept on its event (``remember.HELD``): registering the tool later does not make the candidate
active, so it is still listed, with the reason it was held then.
"""

from __future__ import annotations

from dataclasses import dataclass

from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import Status
from vintage.graph.core.model import Fact, Scope
from vintage.graph.memory.gate import FACT_KIND
from vintage.graph.memory.injection import scan_write
from vintage.graph.memory.remember import HELD
from vintage.graph.memory.scoping import require_read_scope
from vintage.graph.store.protocol import Store

RECORD = "record"  # the action of the event that wrote a memory version


@dataclass(frozen=True)
class Held:
    memory_id: str
    subject: str
    key: str
    scope: tuple[str, ...]
    why: str  # the family and the field, or the source's lack of authority; never the text


def held_for_review(store: Store, scope: Scope, *, all_scopes: bool = False) -> list[Held]:
    """The candidates in ``scope`` held because they read as instructions to the model or
    because their source carries no authority here, by subject and key. ``all_scopes`` is the
    caller's audited wide read (``review``)."""
    require_read_scope(scope, "a review", all_scopes=all_scopes)
    spec = AsOf(scope, statuses=frozenset({Status.CANDIDATE}), kinds=tuple(FACT_KIND.values()))
    found: list[Held] = []
    others: list[Fact] = []
    for fact in store.read(spec):
        why = scan_write(key=fact.predicate, value=fact.value, subject=fact.subject,
                         owner=fact.owner, retention_reason=fact.retention_reason)
        if why is not None:
            found.append(_held(fact, why))
        else:
            others.append(fact)
    # The others' writes, in one read: those a source held say why on their event.
    wanted = sorted({f.event_id for f in others})
    reasons = {e.id: str(e.details[HELD]) for e in (
        store.events(scope.tenant, actions=[RECORD], ids=wanted) if wanted else [])
        if HELD in e.details}
    found += [_held(f, reasons[f.event_id]) for f in others if f.event_id in reasons]
    return sorted(found, key=lambda h: (h.subject, h.key, h.scope, h.memory_id))


def _held(fact: Fact, why: str) -> Held:
    return Held(fact.id, fact.subject, fact.predicate, tuple(fact.scope), why)
