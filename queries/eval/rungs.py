"""The rungs of the ablation ladder, and the protocol a peer implements to stand beside them.

A rung is asked one question at a time and hands back what an agent would be handed
(:class:`Handed`): the items in the order shown, the legal candidates it considered, the text
and its tokens, and whether it said that nothing relevant is known. Rungs (docs/eval.md):

* ``none``: no memory at all (the agent answers from nothing: it refuses).
* ``exact``, ``keyword``, ``semantic``, ``hybrid``: the engine's search modes in the asker's
  scope, asked *now* (the ask's instant), ignoring the question's cutoff, valid and system
  instants: retrieval alone, without the time machine.
* ``engine``: hybrid with the question's instants (as-of), lineage and staleness: the whole engine.

A peer (``naive-rag`` here; Graphiti in ``vintage.queries.eval.graphiti``) is any object with a
``name`` and ``ask``; it may keep a store of its own, fed by :meth:`Rung.load` with what the
replay wrote, and may name the checks of an ask it has no way to express
(``not_expressible(scenario, ask)``: check name -> why), which are then reported, not scored.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from vintage.graph.core.kinds import required_authority
from vintage.graph.core.model import Scope
from vintage.graph.retrieval.counting import token_counter
from vintage.graph.retrieval.embedder import Embedder
from vintage.graph.store.protocol import Store
from vintage.queries.eval import scenario as sc
from vintage.queries.eval.written import Replay, Settable, scope_of
from vintage.queries.metrics.definitions import resolve_metric
from vintage.queries.metrics.periods import parse_period
from vintage.queries.metrics.question import ask as metric_question
from vintage.queries.search.fusion import Mode
from vintage.queries.search.pack import build_pack
from vintage.queries.search.request import SearchRequest


@dataclass(frozen=True)
class Shown:
    """One item as handed over."""

    id: str
    subject: str
    key: str
    value: Any
    status: str
    sources: int  # how many source pointers it carries
    conflicts_with: tuple[str, ...] = ()
    stale: tuple[str, ...] = ()  # the superseded premises it is flagged with (ids)
    valid: tuple[Any, Any] | None = None


@dataclass(frozen=True)
class Handed:
    items: tuple[Shown, ...]
    considered: tuple[str, ...]  # ids of the legal candidates ranked
    text: str
    tokens: int
    budget: int
    nothing_relevant: bool  # the pack says so (and the answer must be a refusal)
    seconds: float
    header_tokens: int | None = None  # None: the pack does not say
    item_tokens: dict[str, int] | None = None
    # What the read says the cascade closed: (closed item id, the premise ids it names).
    closed: tuple[tuple[str, tuple[str, ...]], ...] = ()


class Rung(Protocol):
    name: str

    def load(self, replay: Replay) -> None:
        """Take what a scenario's replay wrote (a peer with its own store copies it)."""

    def ask(self, store: Store, clock: Settable, replay: Replay, a: sc.Ask) -> Handed: ...


@dataclass
class NoMemory:
    name: str = "none"

    def load(self, replay: Replay) -> None:
        pass

    def ask(self, store: Store, clock: Settable, replay: Replay, a: sc.Ask) -> Handed:
        return Handed((), (), "", 0, a.budget, nothing_relevant=True, seconds=0.0,
                      header_tokens=0, item_tokens={})


@dataclass
class EngineRung:
    """A search mode of the engine; ``as_of`` adds the question's instants (the whole engine)."""

    name: str
    mode: Mode
    embedder: Embedder
    as_of: bool = False
    actor: str = "eval"
    packs: list[Any] = field(default_factory=list)

    def load(self, replay: Replay) -> None:
        pass

    def ask(self, store: Store, clock: Settable, replay: Replay, a: sc.Ask) -> Handed:
        if a.metric is not None and self.as_of:
            return _metric(store, replay, a)
        timed = self.as_of
        request = SearchRequest(
            query=a.query, scope=scope_of(replay.tenant, a.principal),
            mode=a.mode if timed and a.mode is not None else self.mode,
            cutoff=sc._utc(a.cutoff) if timed and a.cutoff else None,
            valid_at=sc._utc(a.valid_at) if timed and a.valid_at else None,
            system_at=sc._utc(a.system_at) if timed and a.system_at else None,
            actor=a.principal.actor, min_authority=required_authority(a.min_authority, a.risk))
        started = time.perf_counter()
        pack = build_pack(store, self.embedder, request, budget=a.budget,
                          for_thread=a.principal.thread or "eval", actor=a.principal.actor)
        seconds = time.perf_counter() - started
        items = tuple(Shown(id=i.id, subject=i.subject, key=i.predicate, value=i.value,
                            status=i.status, sources=len(i.sources),
                            conflicts_with=tuple(i.conflicts_with), valid=i.valid,
                            stale=(i.stale.premise,) if i.stale is not None else ())
                      for i in pack.items)
        # The pack's relevance verdict (vintage.queries.search.abstain) and an authority refusal
        # both say nothing was handed over; what the cascade closed is said by name.
        return Handed(items, pack.considered, pack.text, pack.tokens, pack.budget,
                      nothing_relevant=pack.nothing_relevant or pack.refusal is not None,
                      seconds=seconds,
                      header_tokens=pack.header_tokens, item_tokens=dict(pack.item_tokens),
                      closed=tuple((c.item, (c.premise,)) for c in pack.closed))


def _metric(store: Store, replay: Replay, a: sc.Ask) -> Handed:
    """A financial question asked as ``vintage asof`` asks it: the figure as known at the
    cutoff, one item (or a refusal), its inputs as the candidates."""
    assert a.metric is not None
    started = time.perf_counter()
    cutoff = sc._utc(a.cutoff) if a.cutoff else store.now()
    subject = a.subject or ""
    got = metric_question(store, Scope(tenant=replay.tenant), resolve_metric(a.metric),
                          [subject], cutoff, parse_period(a.metric_period),
                          actor=a.principal.actor).answers[0]
    seconds = time.perf_counter() - started
    if got.value is None:  # the engine's refusal, said as such
        return Handed((), (), got.refused or "", 0, a.budget, nothing_relevant=True,
                      seconds=seconds, header_tokens=0, item_tokens={})
    shown = Shown(id=got.fact_id or "", subject=subject, key=a.key or a.metric,
                  value=got.value, status="active", sources=len(got.inputs) or 1)
    text = f"{subject} {a.metric} {got.period}: {got.value} {got.unit or ''}".strip()
    tokens = token_counter().count(text)  # one line, the item: no header
    return Handed((shown,), tuple(i.id for i in got.inputs), text, tokens, a.budget,
                  nothing_relevant=False, seconds=seconds, header_tokens=0,
                  item_tokens={shown.id: tokens})


def ladder(embedder: Embedder) -> list[Rung]:
    return [NoMemory(), EngineRung("exact", Mode.EXACT, embedder),
            EngineRung("keyword", Mode.KEYWORD, embedder),
            EngineRung("semantic", Mode.SEMANTIC, embedder),
            EngineRung("hybrid", Mode.HYBRID, embedder),
            EngineRung("engine", Mode.HYBRID, embedder, as_of=True)]


RUNGS = ("none", "exact", "keyword", "semantic", "hybrid", "engine")


def names(rungs: Sequence[Rung]) -> list[str]:
    return [r.name for r in rungs]
