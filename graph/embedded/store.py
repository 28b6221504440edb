"""The embedded backend: networkx in process, persisted as an append-only JSON-lines log.

Each committed transaction is one log line, fsynced before it is applied in memory, so a crash
leaves either the whole batch or none of it. Opening replays the log. This backend is also the
reference model the Neo4j backend is checked against, so it favours plainness over speed.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from graph.asof import AsOf
from graph.embedded import codec
from graph.embedded.state import ERASED, State
from graph.embedded.tx import EmbeddedTx, live
from graph.labels import (
    DERIVATION,
    FACT,
    GENERATED,
    LINEAGE_TYPES,
    SOURCE,
    SUPPORTED_BY,
)
from graph.model import Event, Fact, Source
from graph.store import (
    Clock,
    Confirmation,
    Direction,
    Edge,
    Reached,
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
            tx = EmbeddedTx(self, tenant)
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
        erased = {r.fact_id for op, r in ops if op == "erase"}
        if erased:
            self._scrub(tenant, erased)

    def _scrub(self, tenant: str, fact_ids: set[str]) -> None:
        """Erasure reaches the log: rewrite it with the erased facts' content removed from the
        lines that first recorded them (the log is append-only in every other case)."""
        assert self.path is not None
        log, fresh = self.path / LOG_NAME, self.path / (LOG_NAME + ".scrub")
        # A line that names none of the ids holds none of their content: copied as it is,
        # without decoding (most of a long log).
        named = re.compile("|".join(re.escape(i) for i in sorted(fact_ids)))
        with log.open(encoding="utf-8") as lines, fresh.open("w", encoding="utf-8") as out:
            for line in lines:
                if named.search(line) is None:
                    out.write(line)
                    continue
                entry = json.loads(line)
                if entry["tenant"] != tenant:
                    out.write(line)
                    continue
                for op, payload in entry["ops"]:
                    if op == "fact" and payload["id"] in fact_ids:
                        payload.update(value="", content_hash=ERASED, retention_reason=None)
                out.write(json.dumps(entry) + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(fresh, log)

    # -- reads --------------------------------------------------------------------------------

    def reading(self, tenant: str, work: Callable[[Any], T]) -> T:
        with self._lock:
            tx = EmbeddedTx(self, tenant)
            result = work(tx)
            if tx.ops:
                raise RuntimeError("a read-only unit of work tried to write")
            return result

    def read(self, spec: AsOf, limit: int | None = None) -> list[Fact]:
        resolved = spec.resolved(self.now())
        with self._lock:
            return self.state.read(resolved, limit)

    def read_cited(
        self, spec: AsOf, limit: int | None = None,
    ) -> list[tuple[Fact, tuple[Source, ...]]]:
        resolved = spec.resolved(self.now())
        known = resolved.known_at or self.now()
        tenant = spec.scope.tenant
        with self._lock:
            facts = self.state.read(resolved, limit)
            edges = [e for e in self.edges_of(tenant, [f.id for f in facts], resolved.system_at)
                     if e.available_at <= known]
            by_id = {s.id: s for s in self.sources(tenant, sorted({e.source_id for e in edges}))}
        cited: dict[str, list[Source]] = {}
        for e in edges:
            cited.setdefault(e.fact_id, []).append(by_id[e.source_id])
        return [(f, tuple(sorted(cited.get(f.id, []), key=lambda s: (s.available_at, s.id))))
                for f in facts]

    def read_confirmed(self, spec: AsOf) -> list[tuple[Fact, Confirmation | None]]:
        resolved = spec.resolved(self.now())
        with self._lock:
            facts = self.state.read(resolved, None)
            seen = self.confirmations(spec.scope.tenant, [f.id for f in facts],
                                      resolved.known_at or self.now(), resolved.system_at)
        return [(f, seen.get(f.id)) for f in facts]

    def history(self, tenant: str, key: str) -> list[Fact]:
        with self._lock:
            ids = self.state.by_key.get((tenant, key), [])
            return sorted((self.state.facts[tenant][i] for i in ids), key=lambda f: f.revision)

    def supports(
        self, tenant: str, fact_ids: Sequence[str], at: datetime | None = None,
    ) -> list[Support]:
        with self._lock:
            return self.edges_of(tenant, fact_ids, at or self.now())

    def edges_of(self, tenant: str, fact_ids: Sequence[str],
                 at: datetime | None) -> list[Support]:
        """Support edges holding at ``at`` (None: every one); the caller holds the lock."""
        found = []
        for fid in fact_ids:
            node = (FACT, tenant, fid)
            if node not in self.graph:
                continue
            for _, dst, key, data in self.graph.out_edges(node, keys=True, data=True):
                if key == SUPPORTED_BY and (at is None or live(data, at)):
                    found.append(Support(fid, dst[2], data["available_at"],
                                         data["recorded_at"]))
        return sorted(found, key=lambda s: (s.fact_id, s.available_at, s.source_id))

    def confirmations(
        self, tenant: str, fact_ids: Sequence[str], known_at: datetime,
        at: datetime | None = None,
    ) -> dict[str, Confirmation]:
        found: dict[str, Confirmation] = {}
        for s in self.supports(tenant, fact_ids, at):  # ordered by (fact, available_at, source)
            if s.available_at > known_at:
                continue
            seen = found.get(s.fact_id)
            found[s.fact_id] = Confirmation(
                seen.first_source if seen else s.source_id,
                seen.first_at if seen else s.available_at, s.available_at)
        return found

    def sources(self, tenant: str, ids: Sequence[str]) -> list[Source]:
        return [r for r in self._records(SOURCE, tenant, ids) if isinstance(r, Source)]

    def events(self, tenant: str, actions: Sequence[str] | None = None) -> list[Event]:
        with self._lock:
            found = (self.state.events.get(tenant, []) if actions is None else
                     [e for a in set(actions)
                      for e in self.state.events_by_action.get((tenant, a), [])])
            return sorted(found, key=lambda e: (e.at, e.id))

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
        edges = self.graph.edges
        for key in sorted(types):
            if (key == GENERATED) != forward:
                for dst in sorted(self.state.out_by_type.get((node, key), ())):
                    data = edges[node, dst, key]
                    if live(data, at):
                        yield dst, Edge(node[2], key, dst[2], _props(data))
            else:
                for src in sorted(self.state.in_by_type.get((node, key), ())):
                    data = edges[src, node, key]
                    if live(data, at):
                        yield src, Edge(src[2], key, node[2], _props(data))


def _props(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


def _edge_order(e: Edge) -> tuple[str, str, str]:
    return (e.type, e.start, e.end)
