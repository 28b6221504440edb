"""What a re-run does with the statuses an import already gave, and trusting a group later.

An import never changes the status of an assertion it already holds by re-planning it: each
version is planned with the status the assertion was first imported with (its revision 1), so
a run with or without ``--trust-group`` repeats what is held and changes nothing. Trusting a
group whose facts were imported as candidates is a promotion, and a promotion is news from now
on: a new active version from a source ``graphiti:trust:<group>:<instant>``, available at the
run's instant (what could be known before stays a candidate, as it was). Content the
instruction gate holds is never promoted here (``vintage promote`` by a user only).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from vintage.graph.core.kinds import Authority, SourceKind, Status
from vintage.graph.core.model import Fact, FactIn, SourceIn
from vintage.ingest.graphiti.plan import Plan

Held = dict[str, list[Fact]]  # assertion key -> its versions the store holds, oldest first


def planned_keys(plan: Plan) -> list[str]:
    return sorted({f.key for u in plan.units for f in u.facts if f.key is not None})


def align(plan: Plan, held: Held, trusted: frozenset[str], now: datetime) -> int:
    """Rewrite ``plan``'s units against what the store holds; return how many assertions a
    trusted group promotes now."""
    promoted = 0
    for i, unit in enumerate(plan.units):
        facts = [_as_first(f, held) for f in unit.facts]
        stale = [] if unit.group not in trusted or unit.held else sorted(
            {f.key for f in facts if f.key in held and _candidate_now(held[f.key])})
        sources = unit.sources
        if stale:
            trust = SourceIn(id=f"graphiti:trust:{unit.group}:{now.isoformat()}",
                             kind=SourceKind.DOCUMENT, available_at=now,
                             authority=Authority.MODEL_GUESS,
                             title="the importer trusted the group (--trust-group)")
            last = {f.key: f for f in facts}
            facts += [last[k].model_copy(update={"status": Status.ACTIVE, "source": trust.id})
                      for k in stale]
            sources = (*sources, trust)
            promoted += len(stale)
        plan.units[i] = replace(unit, sources=sources, facts=tuple(facts))
    return promoted


def _as_first(draft: FactIn, held: Held) -> FactIn:
    versions = held.get(draft.key or "")
    if not versions or versions[0].status is draft.status:
        return draft
    return draft.model_copy(update={"status": versions[0].status})


def _candidate_now(versions: list[Fact]) -> bool:
    current = versions[-1]
    return current.superseded_at is None and current.status is Status.CANDIDATE

