"""What a source already changed: the versions it superseded, and the derived facts that were
recomputed or closed because of it. The "after" half of a filing's impact
(``vintage.queries.lineage.impact`` answers "before": what would change if it stopped holding).

Every correction leaves ``SUPERSEDES`` edges: from a new observed version to the old one, with
the source as cause; from a recomputed derived fact to the one it replaces, with the corrected
input as cause. Following the causes from the source outwards finds the whole chain.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

from vintage.graph.core.kinds import FactKind
from vintage.graph.core.labels import FACT, GENERATED, SUPERSEDES, SUPPORTED_BY, USED
from vintage.graph.core.model import Fact
from vintage.graph.store.protocol import Direction, StoreTx
from vintage.queries.lineage.views import FactView

_MAX_DEPTH = 32


# How a fact was revised because of the source: a filed figure it superseded, a derived fact
# recomputed on the new figure, or a derived fact closed and not recomputed. Said apart, since
# a filed revision's class can be unknown (null ``change``) just as a derived fact's is.
Revision = Literal["filed", "recomputed", "closed"]


class RevisedFact(BaseModel):
    model_config = ConfigDict(frozen=True)

    old: FactView
    new: FactView | None  # None: a derived fact closed without a recomputed replacement
    change: str | None  # rounding, split_adjustment, ... for filed values; None for derived
    revision: Revision


def revised_by(tx: StoreTx, source_id: str, at: datetime) -> tuple[RevisedFact, ...]:
    supported = sorted(tx.walk([source_id], Direction.DOWNSTREAM, at, 1,
                               (SUPPORTED_BY,)).ids(FACT))
    pairs = [(e.start, e.end) for e in tx.walk(supported, Direction.UPSTREAM, at, 1,
                                                (SUPERSEDES,)).edges
             if e.type == SUPERSEDES and e.props.get("source_id") == source_id]
    causes = {new for new, _ in pairs}
    olds = {old for _, old in pairs}
    frontier = set(causes)
    while frontier:
        down = tx.walk(sorted(frontier), Direction.DOWNSTREAM, at, 2, (USED, GENERATED))
        derived = sorted(down.ids(FACT) - causes)
        step = [(e.start, e.end) for e in tx.walk(derived, Direction.UPSTREAM, at, 1,
                                                  (SUPERSEDES,)).edges
                if e.type == SUPERSEDES and e.props.get("source_id") in causes]
        pairs += [p for p in step if p[0] not in causes]
        frontier = {new for new, _ in step} - causes
        causes |= frontier
        olds |= {old for _, old in step}
    facts = tx.get_facts(sorted(causes | olds))
    found = [RevisedFact(old=FactView.of(facts[old]), new=FactView.of(facts[new]),
                         change=_change(facts[new]),
                         revision="recomputed" if facts[new].kind is FactKind.DERIVED
                         else "filed") for new, old in pairs]
    found += [RevisedFact(old=FactView.of(f), new=None, change=None, revision="closed")
              for f in _closed_without_replacement(tx, facts, olds, at)]
    return tuple(sorted(found, key=lambda r: (r.old.kind != "observation", r.old.predicate,
                                              r.old.valid[0], r.old.id)))


def _closed_without_replacement(
    tx: StoreTx, facts: dict[str, Fact], olds: set[str], at: datetime,
) -> list[Fact]:
    """Derived facts downstream of a superseded version, closed when it was, never replaced."""
    observed = sorted(o for o in olds if facts[o].kind is not FactKind.DERIVED)
    if not observed:
        return []
    when = {facts[o].superseded_at for o in observed}
    down = tx.walk(observed, Direction.DOWNSTREAM, at, _MAX_DEPTH, (USED, GENERATED))
    reached = tx.get_facts(sorted(down.ids(FACT) - olds))
    return [f for f in reached.values()
            if f.kind is FactKind.DERIVED and f.superseded_at in when and f.id not in facts]


def _change(fact: Fact) -> str | None:
    return fact.change.value if fact.change is not None else None
