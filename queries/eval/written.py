"""What a replay keeps: the clock it moves, each step's record (:class:`Written`), and the
replay's state (:class:`Replay`), shared by the loop (``replay``) and the steps (``steps``)."""


from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from vintage.graph.core.model import Scope
from vintage.graph.memory.gate import Decision, memory_scope
from vintage.graph.store.protocol import Store
from vintage.queries.eval import scenario as sc
from vintage.queries.search.pack import Pack

RETENTION = "kept for the evaluation scenario"
# The columns an ingested row needs (vintage.ingest.facts_table.REQUIRED: queries may not import
# ingest, so the harness is handed the ingest call, below).
REQUIRED = ("subject", "predicate", "value", "unit", "period_end", "source_id", "available_at")
# ``vintage ingest facts`` for one file: (store, scope, path, actor, recompute). Injected by the
# interface that runs the harness (the CLI passes vintage.ingest.facts_table.ingest_table).
IngestFile = Callable[[Store, Scope, Path, str, bool], object]


class Settable(Protocol):
    """A store's clock the harness moves: ``now`` is the instant of the step being replayed
    (``Clock`` here; the tests' pinned clock is one too)."""

    now: datetime

    def __call__(self) -> datetime: ...


class Clock:
    """The store's clock during a replay: it reads the instant of the step being replayed."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Written:
    """What one named step put into the engine (or tried to)."""

    name: str
    op: str
    subject: str = ""
    key: str = ""
    value: Any = None
    scope: Scope | None = None
    text: str = ""  # what a plain text store would have kept of it (the naive peer)
    ids: list[str] = field(default_factory=list)  # fact versions it created
    same_as: list[str] = field(default_factory=list)  # versions it repeated (a duplicate)
    stored: dict[str, Any] = field(default_factory=dict)  # id -> its Fact, read right after
    decisions: list[Decision] = field(default_factory=list)  # one per delivery
    reasons: list[str] = field(default_factory=list)  # the gate's, one per delivery
    assertion: str | None = None  # a memory's assertion key
    error: str | None = None
    at: datetime | None = None
    observed: datetime | None = None


@dataclass
class Replay:
    tenant: str
    written: list[Written] = field(default_factory=list)
    by_name: dict[str, Written] = field(default_factory=dict)
    packs: dict[str, Pack] = field(default_factory=dict)
    ingest: IngestFile | None = None
    forgotten: list[Written] = field(default_factory=list)  # erased (the naive peer drops them)
    scenario: sc.Scenario | None = None  # what was replayed (a peer that maps steps reads it)

    def keep(self, w: Written) -> Written:
        self.written.append(w)
        self.by_name[w.name] = w
        return w


def scope_of(tenant: str, p: sc.Principal) -> Scope:
    return memory_scope(tenant, p.user, p.project, p.thread)

