"""The embedded backend: networkx in process, persisted as an append-only JSON-lines log.

A write runs under the store's lock. Each operation of the transaction applies to the in-memory
state at once (so the transaction reads its own writes, as on Neo4j) and pushes its inverse onto
an undo journal. At commit, once the unit of work has returned, the transaction's operations are
appended to the log as one line, flushed and fsynced; only then does the call return. If the
unit of work or the append raises, the journal undoes the in-memory changes. Other threads
never see a transaction's uncommitted state: their reads wait for the same lock. Opening
replays the log line by line; a last line torn by a crash during the append fails the open
with a JSON error, rather than being replayed in part. After its line is fsynced, an erasure
rewrites the log (``_scrub``): the one exception to append-only. This backend is also the
reference model the Neo4j backend is checked against, so it favours plainness over speed.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from graph.asof import AsOf
from graph.embedded import codec, reads
from graph.embedded.state import ERASED, State
from graph.embedded.tx import EmbeddedTx
from graph.labels import (
    LINEAGE_TYPES,
    SOURCE,
)
from graph.model import Event, Fact, Source
from graph.store import (
    Clock,
    Confirmation,
    Direction,
    Support,
    Walk,
)

T = TypeVar("T")
LOG_NAME = "vintage.log.jsonl"


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
            tx = EmbeddedTx(self.state, tenant)
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
            tx = EmbeddedTx(self.state, tenant)
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
            edges = [e for e in reads.supports(self.state, tenant, [f.id for f in facts],
                                               resolved.system_at)
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
            return reads.supports(self.state, tenant, fact_ids, at or self.now())

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
        with self._lock:
            return [r for r in reads.records(self.state, SOURCE, tenant, ids)
                    if isinstance(r, Source)]

    def events(self, tenant: str, actions: Sequence[str] | None = None) -> list[Event]:
        with self._lock:
            found = (self.state.events.get(tenant, []) if actions is None else
                     [e for a in set(actions)
                      for e in self.state.events_by_action.get((tenant, a), [])])
            return sorted(found, key=lambda e: (e.at, e.id))

    def walk(
        self, tenant: str, start_ids: Sequence[str], direction: Direction,
        system_at: datetime, max_depth: int = 32, types: Sequence[str] = LINEAGE_TYPES,
    ) -> Walk:
        with self._lock:
            return reads.walk(self.state, tenant, start_ids, direction, system_at, max_depth,
                              types)
