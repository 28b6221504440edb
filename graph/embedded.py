"""The embedded backend: networkx in process, persisted as an append-only JSON-lines log.

Each committed transaction is one log line, fsynced before it is applied in memory, so a crash
leaves either the whole batch or none of it. Opening replays the log. This backend is also the
reference model the Neo4j backend is checked against, so it favours plainness over speed.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from graph import codec
from graph.asof import AsOf, in_gap, to_predicate
from graph.embedded_state import Journal, State
from graph.model import Event, Fact, Source, Subject
from graph.schema import (
    DERIVATION,
    FACT,
    GENERATED,
    LINEAGE_TYPES,
    SOURCE,
    SUPPORTED_BY,
    USED,
)
from graph.store import (
    Clock,
    Closure,
    ConflictError,
    DerivationWrite,
    Direction,
    Edge,
    Invalidation,
    Justification,
    Reached,
    Reopening,
    Restoration,
    Retraction,
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
        self.state = State()
        self.graph = self.state.graph
        self._by_key = self.state.by_key
        self._by_subject = self.state.by_subject
        self._facts = self.state.facts
        self._events = self.state.events

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
                        for item in entry["ops"]:
                            store.state.apply(entry["tenant"], *codec.decode(item))
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
            try:
                result = work(tx)
                if tx.ops:
                    self._persist(tenant, tx.ops)
            except BaseException:
                for undo in reversed(tx.journal):
                    undo()
                raise
            return result

    def _persist(self, tenant: str, ops: list[tuple[str, Any]]) -> None:
        if self.path is None:
            return
        line = json.dumps({"tenant": tenant, "ops": [codec.encode(op, r) for op, r in ops]})
        with (self.path / LOG_NAME).open("a", encoding="utf-8") as log:
            log.write(line + "\n")
            log.flush()
            os.fsync(log.fileno())

    # -- reads --------------------------------------------------------------------------------

    def reading(self, tenant: str, work: Callable[[Any], T]) -> T:
        with self._lock:
            tx = _Tx(self, tenant)
            result = work(tx)
            if tx.ops:
                raise RuntimeError("a read-only unit of work tried to write")
            return result

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
        system_at: datetime, max_depth: int = 32, types: Sequence[str] = LINEAGE_TYPES,
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
                    for nb, edge in self._steps(node, direction, system_at, set(types)):
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
        self, node: Node, direction: Direction, at: datetime, types: set[str],
    ) -> Iterator[tuple[Node, Edge]]:
        forward = direction is Direction.UPSTREAM
        for src, dst, key, data in self.graph.out_edges(node, keys=True, data=True):
            if key in types and (key == GENERATED) != forward and _live(data, at):
                yield dst, Edge(src[2], key, dst[2], _props(data))
        for src, dst, key, data in self.graph.in_edges(node, keys=True, data=True):
            if key in types and (key == GENERATED) == forward and _live(data, at):
                yield src, Edge(src[2], key, dst[2], _props(data))


def _live(data: dict[str, Any], at: datetime) -> bool:
    until = data.get("invalidated_at")
    return bool(data["recorded_at"] <= at and (until is None or at < until)
                and not in_gap(data.get("gaps_from", ()), data.get("gaps_to", ()), at))


def _props(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


def _edge_order(e: Edge) -> tuple[str, str, str]:
    return (e.type, e.start, e.end)


class _Tx:
    """One unit of work: each write applies at once (so later reads see it), is logged for
    the commit, and journalled for the rollback."""

    def __init__(self, store: EmbeddedStore, tenant: str) -> None:
        self.store = store
        self.tenant = tenant
        self.ops: list[tuple[str, Any]] = []
        self.journal: Journal = []

    def _do(self, op: str, records: Sequence[Any]) -> None:
        for rec in records:
            self.store.state.apply(self.tenant, op, rec, self.journal)
            self.ops.append((op, rec))

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
        self._do("subject", subjects)

    def put_sources(self, sources: Sequence[Source]) -> None:
        self._do("source", sources)

    def create_facts(self, facts: Sequence[Fact]) -> None:
        self._do("fact", facts)

    def add_support(self, rows: Sequence[Support]) -> None:
        self._do("support", rows)

    def close_knowledge(self, rows: Sequence[Closure]) -> None:
        facts = self.store._facts[self.tenant]
        if any(facts[r.fact_id].superseded_at is not None for r in rows):
            raise ConflictError("another writer closed one of these facts first")
        self._do("close", rows)

    def link_supersedes(self, rows: Sequence[Supersession]) -> None:
        self._do("supersedes", rows)

    def put_derivation(self, write: DerivationWrite) -> None:
        self._do("derivation", [write])

    def append_event(self, event: Event) -> None:
        self._do("event", [event])

    def invalidate_facts(self, rows: Sequence[Invalidation]) -> None:
        self._do("invalidate", rows)

    def retract_support(self, source_id: str, at: datetime) -> list[str]:
        g = self.store.graph
        node = (SOURCE, self.tenant, source_id)
        if node not in g:
            return []
        facts = sorted(src[2] for src, _, key, data in g.in_edges(node, keys=True, data=True)
                       if key == SUPPORTED_BY and data["invalidated_at"] is None)
        self._do("retract", [Retraction(fid, source_id, at) for fid in facts])
        return [fid for fid in facts if not any(
            key == SUPPORTED_BY and data["invalidated_at"] is None
            for _, _, key, data in g.out_edges((FACT, self.tenant, fid), keys=True, data=True))]

    def retracted_at(self, source_id: str) -> datetime | None:
        node = (SOURCE, self.tenant, source_id)
        if node not in self.store.graph:
            return None
        closed = [data["invalidated_at"] for _, _, key, data
                  in self.store.graph.in_edges(node, keys=True, data=True)
                  if key == SUPPORTED_BY and data["invalidated_at"] is not None]
        return max(closed, default=None)

    def restore_support(self, source_id: str, retracted: datetime, at: datetime) -> list[str]:
        node = (SOURCE, self.tenant, source_id)
        facts = sorted(src[2] for src, _, key, data
                       in self.store.graph.in_edges(node, keys=True, data=True)
                       if key == SUPPORTED_BY and data["invalidated_at"] == retracted)
        self._do("restore", [Restoration(fid, source_id, at) for fid in facts])
        return facts

    def reopen_facts(self, rows: Sequence[Reopening]) -> None:
        facts = self.store._facts[self.tenant]
        self._do("reopen", [r for r in rows if facts[r.fact_id].invalidated_at is not None])

    def walk(
        self, start_ids: Sequence[str], direction: Direction, at: datetime, max_depth: int,
        types: Sequence[str] = LINEAGE_TYPES,
    ) -> Walk:
        return self.store.walk(self.tenant, start_ids, direction, at, max_depth, types)

    def justifications(self, fact_ids: Sequence[str], at: datetime) -> list[Justification]:
        g = self.store.graph
        found = []
        for fid in sorted(set(fact_ids)):
            node = (FACT, self.tenant, fid)
            if node not in g:
                continue
            for d, _, key, data in g.in_edges(node, keys=True, data=True):
                if key != GENERATED or not _live(data, at):
                    continue
                inputs = tuple(sorted(
                    (dst[2], e["role"]) for _, dst, k, e in g.out_edges(d, keys=True, data=True)
                    if k == USED and _live(e, at)
                ))
                found.append(Justification(g.nodes[d]["record"], fid, inputs))
        return sorted(found, key=lambda j: (j.output_id, j.derivation.id))

    def generated_by(self, derivation_ids: Sequence[str]) -> dict[str, Fact]:
        g = self.store.graph
        found = {}
        for did in derivation_ids:
            node = (DERIVATION, self.tenant, did)
            if node in g:
                for _, dst, key in g.out_edges(node, keys=True):
                    if key == GENERATED:
                        found[did] = g.nodes[dst]["record"]
        return found
