"""Reading memories back: recall by exact subject and key, a user's list, and the audit trail.

Recall applies the hard filters inside the store, before anything else: tenant and scope (read
literally: a user's read never sees another user's memories, nor tenant-wide ones), the as-of
instant on the knowledge and valid axes (a TTL'd memory is gone for "now" and still there for an
earlier instant), and status (candidates only when asked for; a candidate never answers as a
fact). A key nobody stated returns nothing, never a neighbour.

Demotion (``vintage.graph.memory.ranking``) only orders what recall returns: highest weight first,
then by key.
The set of memories returned never depends on it.
"""

from __future__ import annotations

import json
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import Authority, Status
from vintage.graph.core.model import Event, Scope, Value
from vintage.graph.core.temporal import as_of
from vintage.graph.memory.gate import FACT_KIND, MEMORY_KIND, event_time_of
from vintage.graph.memory.ranking import FULL, weights
from vintage.graph.memory.scoping import record_wide_read, require_read_scope
from vintage.graph.store.protocol import Store
from vintage.queries.lineage.asof import Answer, as_known
from vintage.queries.lineage.views import SourceView


class MemoryView(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    subject: str
    key: str
    kind: str
    value: Value
    status: str
    revision: int
    owner: str | None
    retention_reason: str | None
    scope: tuple[str, ...]
    # Event time: when it holds in the world (None, None: stored before memories had one).
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    known_from: datetime
    known_until: datetime | None
    expires_at: datetime | None
    sources: tuple[SourceView, ...]
    weight: float = FULL  # ranking only (``vintage.graph.memory.ranking``)


def recall(
    store: Store, scope: Scope, subject: str, key: str | None = None, *,
    at: datetime | None = None, system_at: datetime | None = None,
    valid_at: datetime | None = None, candidates: bool = False, hindsight: bool = False,
    all_scopes: bool = False,
    actor: str | None = None, read: str = "memories", min_authority: Authority | None = None,
) -> list[MemoryView]:
    """The memories of ``subject`` (under ``key``, if given) as observed by ``at`` and
    holding then (a TTL not yet reached) or, given ``valid_at``, holding at that instant of
    event time (as known at ``at``: a TTL counts at ``at``, it ends what the engine holds),
    as the engine holds them at ``system_at`` (default
    now: the contract's default, docs/contract.md, "The as-of predicate"; give ``system_at``
    to see past an invalidation, retraction or rollback made since). Each as known then: a
    correction observed after ``at`` leaves ``known_until`` open unless ``hindsight``.

    ``scope`` names a user, project or thread (``ScopeRequired`` otherwise); a read of the
    whole tenant says ``all_scopes=True`` with a tenant-only scope and an ``actor``, and is
    recorded as an event naming the actor and the ``read`` (``vintage.graph.memory.scoping``).
    ``min_authority`` leaves out, in the store's read, what holds less authority (a risk's)."""
    require_read_scope(scope, "a memory read", all_scopes=all_scopes)
    if all_scopes:
        record_wide_read(store, scope.tenant, actor=actor, read=read, subject=subject, key=key)
    now = store.now()
    t, held = at or now, system_at or now
    statuses = {Status.ACTIVE, Status.CONFLICTED} | ({Status.CANDIDATE} if candidates else set())
    spec = AsOf(scope, known_at=t, system_at=held, valid=as_of(valid_at or t),
                subjects=(subject,), predicates=None if key is None else (key,),
                statuses=frozenset(statuses), kinds=tuple(FACT_KIND.values()), unexpired_at=t,
                min_authority=min_authority)
    answers = [Answer(f if hindsight else as_known(f, t, held), cited)
               for f, cited in store.read_cited(spec)]
    ranked = weights(store, scope.tenant, [a.fact.id for a in answers], t)
    found = [
        MemoryView(
            id=a.fact.id, subject=a.fact.subject, key=a.fact.predicate,
            kind=MEMORY_KIND[a.fact.kind].value, value=a.fact.value, status=a.fact.status.value,
            revision=a.fact.revision, owner=a.fact.owner,
            retention_reason=a.fact.retention_reason, scope=a.fact.scope,
            valid_from=(event_time_of(a.fact) or (None, None))[0],
            valid_to=(event_time_of(a.fact) or (None, None))[1],
            known_from=a.fact.available_at, known_until=a.fact.superseded_at,
            expires_at=a.fact.expires_at, sources=tuple(SourceView.of(s) for s in a.sources),
            weight=ranked[a.fact.id],
        )
        for a in answers
    ]
    return sorted(found, key=lambda m: -m.weight)  # stable: the store's order within a weight


def audit(
    store: Store, tenant: str, *, subject: str | None = None, key: str | None = None,
    since: datetime | None = None, until: datetime | None = None,
) -> list[Event]:
    """The events of a tenant (who, what, when, why, gate decisions), narrowed to a subject,
    a key or a time range ``[since, until)``. An event names its subject (``subject``) or, for
    an exit reaching several (an erasure, a retraction), lists them (``subjects``, JSON)."""
    def wanted(e: Event) -> bool:
        return ((subject is None or e.details.get("subject") == subject
                 or subject in _listed(e.details.get("subjects")))
                and (key is None or e.details.get("key") == key)
                and (since is None or since <= e.at) and (until is None or e.at < until))
    return [e for e in store.events(tenant) if wanted(e)]


def _listed(subjects: object) -> list[str]:
    try:
        found = json.loads(subjects) if isinstance(subjects, str) else []
    except json.JSONDecodeError:
        return []
    return [str(s) for s in found] if isinstance(found, list) else []
