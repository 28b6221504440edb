"""The embedded backend: networkx in process, persisted as an append-only JSON-lines log.

Each committed transaction is one log line, fsynced before it is applied in memory, so a crash
leaves either the whole batch or none of it. Opening replays the log. This backend is also the
reference model the Neo4j backend is checked against, so it favours plainness over speed.
"""

from __future__ import annotations

import json
import os
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import networkx as nx

from graph import codec
from graph.asof import AsOf, to_predicate
from graph.model import Event, Fact, Source, Subject
from graph.schema import (
    ABOUT,
    DERIVATION,
    EVENT,
    FACT,
    GENERATED,
    LINEAGE_TYPES,
    SOURCE,
    SUBJECT,
    SUPERSEDES,
    SUPPORTED_BY,
    USED,
)
from graph.store import (
    Clock,
    Closure,
    DerivationWrite,
    Direction,
    Edge,
    Reached,
    Supersession,
    Support,
    Walk,
)

T = TypeVar("T")
LOG_NAME = "vintage.log.jsonl"
Node = tuple[str, str, str]  # (label, tenant, id)


class EmbeddedStore:
    def __init__(self, path: Path | None, clock: Clock) -> None:
        self.path = path
        self._clock = clock
        self._lock = threading.RLock()
        self.graph: Any = nx.MultiDiGraph()
        self._by_key: dict[tuple[str, str], list[str]] = defaultdict(list)
        self._by_subject: dict[tuple[str, str], list[str]] = defaultdict(list)
        self._facts: dict[str, dict[str, Fact]] = defaultdict(dict)
        self._events: dict[str, list[Event]] = defaultdict(list)

    @classmethod
    def open(cls, path: Path | None, clock: Clock) -> EmbeddedStore:
        """Open (and replay) the store at ``path``; ``None`` keeps it in memory only."""
        store = cls(path, clock)
        if path is not None:
            path.mkdir(parents=True, exist_ok=True)
            log = path / LOG_NAME
            if log.exists():
                with log.open(encoding="utf-8") as lines:
                    for line in lines:
                        entry = json.loads(line)
                        store._apply(entry["tenant"], [codec.decode(i) for i in entry["ops"]])
        return store

    def now(self) -> datetime:
        return self._clock()

    def ensure_schema(self) -> None:
        """Nothing to create: uniqueness of (tenant, id) is the node key itself."""

    def close(self) -> None:
        """Every committed batch is already on disk."""

    # -- writes -------------------------------------------------------------------------------

    def write(self, tenant: str, work: Callable[[Any], T]) -> T:
        with self._lock:
            tx = _Tx(self, tenant)
            result = work(tx)
            if tx.ops:
                self._persist(tenant, tx.ops)
                self._apply(tenant, tx.ops)
            return result

    def _persist(self, tenant: str, ops: list[tuple[str, Any]]) -> None:
        if self.path is None:
            return
        line = json.dumps({"tenant": tenant, "ops": [codec.encode(op, r) for op, r in ops]})
        with (self.path / LOG_NAME).open("a", encoding="utf-8") as log:
            log.write(line + "\n")
            log.flush()
            os.fsync(log.fileno())

    def _apply(self, tenant: str, ops: list[tuple[str, Any]]) -> None:
        g = self.graph
        for op, rec in ops:
            if op in ("subject", "source", "event"):
                label = {"subject": SUBJECT, "source": SOURCE, "event": EVENT}[op]
                g.add_node((label, tenant, rec.id), label=label, record=rec)
                if op == "event":
                    self._events[tenant].append(rec)
            elif op == "fact":
                self._put_fact(rec)
                g.add_edge((FACT, tenant, rec.id), (SUBJECT, tenant, rec.subject), key=ABOUT,
                           role="subject", recorded_at=rec.recorded_at, invalidated_at=None)
                self._by_key[(tenant, rec.key)].append(rec.id)
                self._by_subject[(tenant, rec.subject)].append(rec.id)
            elif op == "support":
                g.add_edge((FACT, tenant, rec.fact_id), (SOURCE, tenant, rec.source_id),
                           key=SUPPORTED_BY, available_at=rec.available_at,
                           recorded_at=rec.recorded_at, invalidated_at=None)
            elif op == "close":
                fact = self._facts[tenant][rec.fact_id]
                self._put_fact(fact.model_copy(update={
                    "superseded_at": rec.superseded_at,
                    "superseded_recorded_at": rec.recorded_at,
                }))
            elif op == "supersedes":
                g.add_edge((FACT, tenant, rec.new_id), (FACT, tenant, rec.old_id),
                           key=SUPERSEDES, source_id=rec.source_id, at=rec.at,
                           recorded_at=rec.recorded_at, invalidated_at=None)
            elif op == "derivation":
                self._apply_derivation(tenant, rec)

    def _put_fact(self, fact: Fact) -> None:
        self._facts[fact.tenant][fact.id] = fact
        self.graph.add_node((FACT, fact.tenant, fact.id), label=FACT, record=fact)

    def _apply_derivation(self, tenant: str, w: DerivationWrite) -> None:
        node = (DERIVATION, tenant, w.derivation.id)
        self.graph.add_node(node, label=DERIVATION, record=w.derivation,
                            recorded_at=w.recorded_at)
        stamps = {"recorded_at": w.recorded_at, "invalidated_at": None}
        for fact_id, role in w.used:
            self.graph.add_edge(node, (FACT, tenant, fact_id), key=USED, role=role, **stamps)
        for fact_id in w.generated:
            self.graph.add_edge(node, (FACT, tenant, fact_id), key=GENERATED, **stamps)

    # -- reads --------------------------------------------------------------------------------

    def read(self, spec: AsOf, limit: int | None = None) -> list[Fact]:
        visible = to_predicate(spec.resolved(self.now()))
        tenant = spec.scope.tenant
        with self._lock:
            every = self._facts.get(tenant, {})
            # A subject filter narrows the scan first, as the (tenant, subject, ...) index does.
            candidates = (
                every.values() if spec.subjects is None
                else (every[i] for s in set(spec.subjects)
                      for i in self._by_subject.get((tenant, s), []))
            )
            facts = [f for f in candidates if visible(f)]
        facts.sort(key=lambda f: (f.subject, f.predicate, f.valid_from, f.revision, f.id))
        return facts if limit is None else facts[:limit]

    def history(self, tenant: str, key: str) -> list[Fact]:
        with self._lock:
            ids = self._by_key.get((tenant, key), [])
            return sorted((self._facts[tenant][i] for i in ids), key=lambda f: f.revision)

    def supports(self, tenant: str, fact_ids: Sequence[str]) -> list[Support]:
        found = []
        with self._lock:
            for fid in fact_ids:
                node = (FACT, tenant, fid)
                if node not in self.graph:
                    continue
                for _, dst, key, data in self.graph.out_edges(node, keys=True, data=True):
                    if key == SUPPORTED_BY:
                        found.append(Support(fid, dst[2], data["available_at"],
                                             data["recorded_at"]))
        return sorted(found, key=lambda s: (s.fact_id, s.available_at, s.source_id))

    def sources(self, tenant: str, ids: Sequence[str]) -> list[Source]:
        return [r for r in self._records(SOURCE, tenant, ids) if isinstance(r, Source)]

    def events(self, tenant: str) -> list[Event]:
        with self._lock:
            return sorted(self._events.get(tenant, []), key=lambda e: (e.at, e.id))

    def _records(self, label: str, tenant: str, ids: Sequence[str]) -> Iterator[Any]:
        with self._lock:
            for i in ids:
                node = self.graph.nodes.get((label, tenant, i))
                if node is not None:
                    yield node["record"]

    def walk(
        self, tenant: str, start_ids: Sequence[str], direction: Direction,
        system_at: datetime, max_depth: int = 32,
    ) -> Walk:
        with self._lock:
            starts = [(label, tenant, i) for i in dict.fromkeys(start_ids)
                      for label in (FACT, SOURCE, DERIVATION)
                      if (label, tenant, i) in self.graph]
            depth: dict[Node, int] = dict.fromkeys(starts, 0)
            edges: list[Edge] = []
            frontier = list(starts)
            for level in range(1, max_depth + 1):
                nxt: list[Node] = []
                for node in frontier:
                    for nb, edge in self._steps(node, direction, system_at):
                        edges.append(edge)
                        if nb not in depth:
                            depth[nb] = level
                            nxt.append(nb)
                frontier = nxt
            reached = tuple(sorted(
                (Reached(n[2], n[0], d) for n, d in depth.items() if d > 0),
                key=lambda r: (r.depth, r.label, r.id),
            ))
            return Walk(reached, tuple(sorted(set(edges), key=_edge_order)))

    def _steps(
        self, node: Node, direction: Direction, at: datetime,
    ) -> Iterator[tuple[Node, Edge]]:
        forward = direction is Direction.UPSTREAM
        for src, dst, key, data in self.graph.out_edges(node, keys=True, data=True):
            if key in LINEAGE_TYPES and (key == GENERATED) != forward and _live(data, at):
                yield dst, Edge(src[2], key, dst[2], _props(data))
        for src, dst, key, data in self.graph.in_edges(node, keys=True, data=True):
            if key in LINEAGE_TYPES and (key == GENERATED) == forward and _live(data, at):
                yield src, Edge(src[2], key, dst[2], _props(data))


def _live(data: dict[str, Any], at: datetime) -> bool:
    until = data.get("invalidated_at")
    return bool(data["recorded_at"] <= at and (until is None or at < until))


def _props(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


def _edge_order(e: Edge) -> tuple[str, str, str]:
    return (e.type, e.start, e.end)


class _Tx:
    """Buffers one unit of work; reads see the committed graph only."""

    def __init__(self, store: EmbeddedStore, tenant: str) -> None:
        self.store = store
        self.tenant = tenant
        self.ops: list[tuple[str, Any]] = []

    def versions(self, keys: Sequence[str]) -> dict[str, list[Fact]]:
        facts = self.store._facts[self.tenant]
        found: dict[str, list[Fact]] = {}
        for key in keys:
            live = [facts[i] for i in self.store._by_key.get((self.tenant, key), [])
                    if facts[i].invalidated_at is None]
            if live:
                found[key] = sorted(live, key=lambda f: f.revision)
        return found

    def existing(self, label: str, ids: Sequence[str]) -> set[str]:
        return {i for i in ids if (label, self.tenant, i) in self.store.graph}

    def get_sources(self, ids: Sequence[str]) -> dict[str, Source]:
        return {s.id: s for s in self.store.sources(self.tenant, ids)}

    def get_facts(self, ids: Sequence[str]) -> dict[str, Fact]:
        facts = self.store._facts[self.tenant]
        return {i: facts[i] for i in ids if i in facts}

    def supports_of(self, fact_ids: Sequence[str]) -> list[Support]:
        return self.store.supports(self.tenant, fact_ids)

    def put_subjects(self, subjects: Sequence[Subject]) -> None:
        self.ops += [("subject", s) for s in subjects]

    def put_sources(self, sources: Sequence[Source]) -> None:
        self.ops += [("source", s) for s in sources]

    def create_facts(self, facts: Sequence[Fact]) -> None:
        self.ops += [("fact", f) for f in facts]

    def add_support(self, rows: Sequence[Support]) -> None:
        self.ops += [("support", r) for r in rows]

    def close_knowledge(self, rows: Sequence[Closure]) -> None:
        self.ops += [("close", r) for r in rows]

    def link_supersedes(self, rows: Sequence[Supersession]) -> None:
        self.ops += [("supersedes", r) for r in rows]

    def put_derivation(self, write: DerivationWrite) -> None:
        self.ops.append(("derivation", write))

    def append_event(self, event: Event) -> None:
        self.ops.append(("event", event))
