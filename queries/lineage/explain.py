"""``explain``: the full upstream tree of a fact, down to its sources, as data."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from vintage.graph.core.labels import FACT, SUPERSEDES
from vintage.graph.core.model import Fact, Scope
from vintage.graph.store.protocol import (
    Direction,
    Justification,
    Store,
    StoreTx,
    UnknownReference,
    Walk,
)
from vintage.queries.lineage.asof import as_known
from vintage.queries.lineage.staleness import ReadInstants, Stale, decide
from vintage.queries.lineage.views import DerivationView, FactView, SourceView

MAX_DEPTH = 256


class Input(BaseModel):
    model_config = ConfigDict(frozen=True)

    role: str
    step: Step


class Justified(BaseModel):
    model_config = ConfigDict(frozen=True)

    derivation: DerivationView
    inputs: tuple[Input, ...]


class Step(BaseModel):
    """One fact in the tree: how it was derived (if it was), what supports it, what corrected
    it, and the inputs below it."""

    model_config = ConfigDict(frozen=True)

    fact: FactView
    derived_by: tuple[Justified, ...]
    sources: tuple[SourceView, ...]
    supersedes: tuple[str, ...]  # older versions of the same assertion this one corrects
    superseded_by: tuple[str, ...]  # newer versions that correct this one


class Explanation(BaseModel):
    model_config = ConfigDict(frozen=True)

    system_at: datetime
    root: Step
    # A premise of the fact (at any depth) that stopped holding by ``system_at`` (docs/semantics.md,
    # "Staleness"); ``closed``: the fact itself no longer holds (the cascade closed it).
    stale: Stale | None = None


def explain(store: Store, scope: Scope, fact_id: str, system_at: datetime | None = None,
            ) -> Explanation:
    at = system_at or store.now()
    return store.reading(scope.tenant, lambda tx: _explain(tx, fact_id, at))


def _explain(tx: StoreTx, fact_id: str, at: datetime) -> Explanation:
    root = tx.get_facts([fact_id]).get(fact_id)
    if root is None:
        raise UnknownReference(f"unknown fact: {fact_id}")
    walk = tx.walk([fact_id], Direction.UPSTREAM, at, MAX_DEPTH)
    fact_ids = sorted(walk.ids(FACT) | {fact_id})
    facts = tx.get_facts(fact_ids)
    justs: dict[str, list[Justification]] = {}
    for j in tx.justifications(fact_ids, at):
        justs.setdefault(j.output_id, []).append(j)
    # As the engine held it at ``at``: no support edge or knowledge end recorded later.
    supports = [s for s in tx.supports_of(fact_ids) if s.recorded_at <= at]
    sources = tx.get_sources(sorted({s.source_id for s in supports}))
    cited: dict[str, list[SourceView]] = {}
    for s in supports:
        cited.setdefault(s.fact_id, []).append(SourceView.of(sources[s.source_id]))
    newer = tx.walk([fact_id], Direction.DOWNSTREAM, at, 1, (SUPERSEDES,))
    tree = _Tree(facts, justs, cited, walk)

    def build(f: Fact, seen: frozenset[str]) -> Step:
        below = seen | {f.id}
        return Step(
            fact=FactView.of(as_known(f, None, at)),
            derived_by=tuple(
                Justified(derivation=DerivationView.of(j.derivation), inputs=tuple(
                    Input(role=role, step=build(facts[i], below))
                    for i, role in sorted(j.inputs, key=lambda r: r[1])
                    if i in facts and i not in below))
                for j in tree.justs.get(f.id, [])),
            sources=tuple(sorted(tree.cited.get(f.id, []), key=lambda s: s.available_at)),
            supersedes=tree.older(f.id),
            superseded_by=tuple(sorted(newer.ids(FACT))) if f.id == fact_id else (),
        )

    ended = root.superseded_at is not None and root.superseded_at <= at
    stale = decide(tx, [fact_id], ReadInstants(at, at), closed=ended).get(fact_id)
    return Explanation(system_at=at, root=build(root, frozenset()), stale=stale)


class _Tree:
    def __init__(self, facts: dict[str, Fact], justs: dict[str, list[Justification]],
                 cited: dict[str, list[SourceView]], walk: Walk) -> None:
        self.facts = facts
        self.justs = justs
        self.cited = cited
        self._older: dict[str, list[str]] = {}
        for e in walk.edges:
            if e.type == SUPERSEDES:
                self._older.setdefault(e.start, []).append(e.end)

    def older(self, fid: str) -> tuple[str, ...]:
        return tuple(sorted(self._older.get(fid, [])))
