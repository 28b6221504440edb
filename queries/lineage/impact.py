"""``impact``: what a change to a source or a fact would reach, read-only, before anything
changes. The same traversal and truth maintenance as the cascade
(``vintage.graph.writes.cascade.plan``), without the writes.

Read as: "if this stopped holding". For a fact, the fact itself changes. For a source, the facts
that rest on it alone change; facts it supports that another live source also supports are
listed apart (``also_supported``), since a retraction would leave them standing. Every derived
fact downstream of a changed fact is listed with its path and whether another justification
would keep it. For a source, ``revised`` adds what it already changed
(``vintage.queries.lineage.revised``): the versions it superseded and the derived facts recomputed
or closed because of it.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.model import Scope
from vintage.graph.store.protocol import Store, StoreTx, UnknownReference
from vintage.graph.writes.cascade import Axis, plan
from vintage.graph.writes.support import supported_by
from vintage.queries.lineage.revised import RevisedFact, revised_by
from vintage.queries.lineage.views import FactView


class ImpactedFact(BaseModel):
    model_config = ConfigDict(frozen=True)

    fact: FactView
    depth: int
    path: tuple[str, ...]
    survives: bool


class Impact(BaseModel):
    model_config = ConfigDict(frozen=True)

    start: Literal["source", "fact"]
    start_id: str
    system_at: datetime
    changed: tuple[FactView, ...]
    also_supported: tuple[FactView, ...]
    affected: tuple[ImpactedFact, ...]
    by_kind: dict[str, int]
    by_depth: dict[int, int]
    # For a source: what it already changed (versions it superseded, derived facts recomputed
    # or closed because of it), with old and new values.
    revised: tuple[RevisedFact, ...] = ()


def impact(
    store: Store, scope: Scope, *, source_id: str | None = None, fact_id: str | None = None,
    system_at: datetime | None = None,
) -> Impact:
    if (source_id is None) == (fact_id is None):
        raise InvalidArgument("impact needs exactly one of a source id or a fact id")
    at = system_at or store.now()
    return store.reading(scope.tenant, lambda tx: _impact(tx, source_id, fact_id, at))


def _impact(tx: StoreTx, source_id: str | None, fact_id: str | None, at: datetime) -> Impact:
    if source_id is not None:
        changed_ids, kept = supported_by(tx, source_id, at)
    else:
        assert fact_id is not None
        if not tx.get_facts([fact_id]):
            raise UnknownReference(f"unknown fact: {fact_id}")
        changed_ids, kept = [fact_id], []
    changed = tx.get_facts(changed_ids + kept)
    p = plan(tx, dict.fromkeys(changed_ids, at), Axis.SYSTEM, at)
    reached = tx.get_facts([a.fact.id for a in p.affected])
    affected = tuple(
        ImpactedFact(fact=FactView.of(reached[a.fact.id]), depth=a.depth, path=a.path,
                     survives=a.ends_at is None)
        for a in sorted(p.affected, key=lambda a: (a.depth, a.fact.id))
    )
    kinds = Counter(changed[i].kind.value for i in changed_ids)
    kinds.update(r.fact.kind for r in affected)
    return Impact(
        start="source" if source_id is not None else "fact",
        start_id=source_id or fact_id or "",
        system_at=at,
        changed=tuple(FactView.of(changed[i]) for i in changed_ids),
        also_supported=tuple(FactView.of(changed[i]) for i in kept),
        affected=affected,
        by_kind=dict(sorted(kinds.items())),
        by_depth=dict(sorted(Counter(r.depth for r in affected).items())),
        revised=revised_by(tx, source_id, at) if source_id is not None else (),
    )
