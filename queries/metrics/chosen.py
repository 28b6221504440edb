"""A metric question's plan, chosen for a window, on its way to an answer: found persisted (every
plan of a question in one round trip, with the sources they cite in one more) or saved in the
question's write transaction, then answered with what became of its inputs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from vintage.graph.core.model import Fact, Scope, Source
from vintage.graph.store.protocol import Store, StoreTx
from vintage.queries.metrics import plans
from vintage.queries.metrics.answers import InputFact, SubjectAnswer
from vintage.queries.metrics.hindsight import revisions, versions_since
from vintage.queries.metrics.known import Known
from vintage.queries.metrics.persist import Persisted, Plan, persist, persisted_all
from vintage.queries.metrics.plans import Observed, PlanNode, method_of
from vintage.queries.metrics.windows import Window


@dataclass
class Saved:
    fact: Fact  # the plan's root
    derivations: list[str]  # post-order, the root's last
    versions: dict[str, list[Fact]]  # what became of the inputs (``versions_since``)
    sources: dict[str, Source]  # the cited ones


@dataclass
class Chosen:
    """A plan chosen for a window, and once its derivations exist, what the answer cites."""

    scope: Scope
    subject: str
    cutoff: datetime
    asked: datetime
    hindsight: bool
    window: Window
    node: PlanNode
    known: Known
    warnings: list[str]
    saved: Saved | None = None

    @property
    def used(self) -> list[Fact]:
        return sorted({f.id: f for f in plans.leaves(self.node)}.values(),
                      key=lambda f: (f.valid_from, f.predicate))

    @property
    def cites(self) -> set[str]:
        """The sources of the inputs (each one's first filing)."""
        first = self.known.first_source
        return {first[f.id] for f in self.used if f.id in first}

    @property
    def ready(self) -> Saved:
        assert self.saved is not None, "found or saved before it is answered"
        return self.saved

    def save(self, tx: StoreTx, now: datetime, actor: str) -> Saved:
        derivations: list[str] = []
        fact = persist(tx, now, self.scope, self.subject, self.node, actor, derivations)
        return self.cited(tx, now, Persisted(fact, derivations),
                           tx.get_sources(sorted(self.cites)))

    def cited(self, tx: StoreTx, now: datetime, made: Persisted,
               sources: dict[str, Source]) -> Saved:
        since = versions_since(tx, now, self.scope, self.used, self.cutoff, self.asked,
                               self.hindsight)
        return Saved(made.fact, made.derivations, since,
                     {s: sources[s] for s in self.cites if s in sources})

    def answer(self, store: Store, saved: Saved) -> SubjectAnswer:
        used, node, first = self.used, self.node, self.known.first_source
        revised, later = revisions(store, self.scope.tenant, used, saved.versions, self.asked,
                                   self.hindsight)
        return SubjectAnswer(
            subject=self.subject, value=node.value, unit=saved.fact.unit,
            period=self.window.label, span=str(node.span), method=method_of(node),
            fact_id=saved.fact.id, derivations=saved.derivations,
            derivation_id=saved.derivations[-1] if saved.derivations else None,
            periods_used=sorted({str(Observed(f).span) for f in used}),
            inputs=[InputFact.of(f, saved.sources.get(first.get(f.id, ""))) for f in used],
            warnings=[*self.warnings, *revised], hindsight=later,
        )


def find_all(tx: StoreTx, now: datetime, chosen: Sequence[Chosen]) -> None:
    """Sets ``saved`` on each plan persisted already (the others are left for ``save``): every
    plan's derivations in one round trip, the sources they all cite in one more."""
    if not chosen:  # every company refused: nothing to look up
        return
    found = persisted_all(tx, [Plan(c.scope, c.subject, c.node) for c in chosen])
    ready = [(c, made) for c, made in zip(chosen, found, strict=True) if made is not None]
    sources = tx.get_sources(sorted(set().union(*(c.cites for c, _ in ready)))) if ready else {}
    for c, made in ready:
        c.saved = c.cited(tx, now, made, sources)
