"""The embedded backend: networkx in process, persisted as an append-only log of framed lines.

A write runs under the store's thread lock and, across processes, the store directory's writer
lock (``vintage.graph.embedded.log``); it first catches up with what other processes committed, so
it plans on the latest state. Each operation of the transaction applies to the in-memory state at
once (so the transaction reads its own writes, as on Neo4j) and pushes its inverse onto an undo
journal. At commit the transaction's operations are appended to the log as one framed line and
fsynced; only then does the call return. If the unit of work or the append raises, the journal
undoes the in-memory changes. Reads catch up too (a stat, and the new complete lines), so a
reader sees a consistent prefix of the commits and picks up new ones on its next read.

Opening replays the log. A torn last line (a crash during the append) is the transaction that
never committed: it is moved aside to ``vintage.log.jsonl.torn-<time>`` with a warning, and the
store opens. A damaged complete line fails the open, naming file, line and byte offset. After
its line is fsynced, an erasure rewrites the log under a journal (``vintage.graph.embedded.scrub``):
the one exception to append-only. With a key store, sealed facts and their search entries reach
the log as ciphertext (the codec), and an erasure destroys their keys once the log is
rewritten, so every copy of the old log becomes unreadable; the keys are marked first, and an
open finishes a destruction that a crash interrupted. Search ranks inside the legal set
(``vintage.graph.embedded.search``). This backend is also the reference model the Neo4j backend is
checked against, so it favours plainness over speed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from vintage.graph.core.asof import AsOf
from vintage.graph.core.labels import LINEAGE_TYPES, SOURCE
from vintage.graph.core.model import Event, Fact, Source, Subject
from vintage.graph.embedded import codec, log, reads, scrub, search
from vintage.graph.embedded.state import State
from vintage.graph.embedded.tx import EmbeddedTx
from vintage.graph.retrieval.index import Hits, TextQuery
from vintage.graph.sealing.sealed import KeyStore, Sealer
from vintage.graph.store.protocol import Clock, Confirmation, Direction, StoreError, Support, Walk
from vintage.graph.writes.support import confirmed

T = TypeVar("T")
LOG_NAME = log.LOG_NAME
_log = logging.getLogger("vintage.embedded")


class EmbeddedStore:
    def __init__(self, path: Path | None, clock: Clock, keys: KeyStore | None = None) -> None:
        self.path = path
        self._clock = clock
        # Sealing concerns the disk: a store in memory only has nothing to seal.
        self.sealer = Sealer(keys) if keys is not None and path is not None else None
        self._lock = threading.RLock()
        self._writing = 0  # nesting depth of writes in this process (the file lock is taken once)
        self.state = State()
        self._offset = 0  # bytes of the log replayed into ``state``
        self._lines = 0
        self._inode: int | None = None

    @property
    def graph(self) -> Any:
        return self.state.graph

    @classmethod
    def open(cls, path: Path | None, clock: Clock,
             keys: KeyStore | None = None) -> EmbeddedStore:
        """Open (and replay) the store at ``path``; ``None`` keeps it in memory only. With
        ``keys`` (``vintage.graph.sealing.sealed``), sealed facts reach the log as ciphertext under
        keys kept
        there, and erasing one destroys its key; without, everything is written plain."""
        store = cls(path, clock, keys)
        if path is not None:
            if path.exists() and not path.is_dir():
                raise StoreError(f"{path} is a file, not a store directory")
            path.mkdir(parents=True, exist_ok=True)
            try:  # no writer active: repair what a crash left (torn tail, erasure to finish)
                with log.writer_lock(path, 0.0):
                    store._sync(writer=True)
                    store._finish_destruction()
            except log.StoreLocked:  # a writer is active: read its committed prefix, wait not
                store._sync()
        return store

    def now(self) -> datetime:
        return self._clock()

    def ensure_schema(self) -> None:
        """Nothing to create: uniqueness of (tenant, id) is the node key itself."""

    def close(self) -> None:
        """Every committed batch is already on disk."""

    # -- the log --------------------------------------------------------------------------------

    def _sync(self, *, writer: bool = False) -> None:
        """Catch up with the log: replay the complete lines appended since the last call (all
        of it again if an erasure rewrote it). A ``writer`` (holding the writer lock) also
        finishes an interrupted erasure and moves a torn tail aside: no one else is writing,
        so bytes without a final newline can only be a crashed transaction."""
        if self.path is None:
            return
        file = self.path / LOG_NAME
        if writer and scrub.finish_interrupted(self.path, file):
            _log.warning("finished an erasure that a crash had interrupted in %s", file)
        try:
            inode = os.stat(file).st_ino
        except FileNotFoundError:
            inode = None
        if inode != self._inode:
            self.state, self._offset, self._lines, self._inode = State(), 0, 0, inode
        if inode is None:
            return
        chunk = log.read_from(file, self._offset, self._lines + 1)
        for entry in chunk.entries:
            for item in entry["ops"]:
                self.state.apply(entry["tenant"],
                                 *codec.decode(item, entry["tenant"], self.sealer))
        self._offset, self._lines = chunk.end, self._lines + chunk.lines
        if writer and chunk.tail:
            aside = log.set_aside(file, chunk.end, chunk.tail)
            _log.warning("a transaction torn by a crash was moved aside to %s (%d bytes); "
                         "it had not committed", aside, len(chunk.tail))

    @contextlib.contextmanager
    def _fresh(self) -> Iterator[None]:
        """The thread lock, with the state caught up with other processes' commits."""
        with self._lock:
            self._sync()
            yield

    @contextlib.contextmanager
    def _writer(self) -> Iterator[None]:
        with self._fresh():
            if self.path is None or self._writing:
                self._writing += 1
                try:
                    yield
                finally:
                    self._writing -= 1
                return
            with log.writer_lock(self.path, log.lock_timeout()):
                self._writing += 1
                try:
                    self._sync(writer=True)
                    yield
                finally:
                    self._writing -= 1

    # -- writes -------------------------------------------------------------------------------

    def write(self, tenant: str, work: Callable[[Any], T]) -> T:
        with self._writer():
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
        file = self.path / LOG_NAME
        if self.sealer is not None:  # the keys are on disk before anything sealed under them
            facts = self.state.facts[tenant]  # an entry is sealed under its fact's key
            self.sealer.prepare(tenant, (r if op == "fact" else facts[r.fact_id]
                                         for op, r in ops if op in ("fact", "index")))
        line = log.frame({"tenant": tenant, "ops": [codec.encode(op, r, tenant, self.sealer)
                                                    for op, r in ops]})
        erased = {r.fact_id: r.at for op, r in ops if op == "erase"}
        if erased and self.sealer is not None:
            self.sealer.mark(tenant, set(erased))  # finished by the next open if we crash
        log.append(file, line)
        if self._inode is None:
            self._inode = os.stat(file).st_ino
        self._offset, self._lines = self._offset + len(line), self._lines + 1
        if erased:
            try:
                self._erase_on_disk(tenant, set(erased), max(erased.values()))
            except BaseException:
                self._inode = None  # committed: the next read replays it, not the undone state
                raise

    def _erase_on_disk(self, tenant: str, fact_ids: set[str], at: datetime) -> None:
        """Rewrite the log without the erased content, then destroy its keys: the scrub
        reaches this file, the keys every copy of it (backups, free blocks, page cache)."""
        assert self.path is not None
        file = self.path / LOG_NAME
        scrub.scrub(self.path, file, tenant, fact_ids)
        stat = os.stat(file)  # a new file: where this process has read up to
        self._inode, self._offset = stat.st_ino, stat.st_size
        if self.sealer is not None:
            self.sealer.destroy(tenant, fact_ids, at)

    def _finish_destruction(self) -> None:
        """Finish what an erasure killed before destroying its keys left marked: the facts
        erased in the log get scrubbed and their keys destroyed; the marks of a transaction
        that never committed stay (harmless: those facts are not erased)."""
        if self.sealer is None:
            return
        for tenant, ids in self.sealer.marked().items():
            facts = self.state.facts.get(tenant, {})
            erased: dict[str, datetime] = {}
            for i in ids:
                at = facts[i].erased_at if i in facts else None
                if at is not None:
                    erased[i] = at
            if erased:
                self._erase_on_disk(tenant, set(erased), max(erased.values()))

    # -- reads --------------------------------------------------------------------------------

    def reading(self, tenant: str, work: Callable[[Any], T]) -> T:
        with self._fresh():
            tx = EmbeddedTx(self.state, tenant)
            result = work(tx)
            if tx.ops:
                raise RuntimeError("a read-only unit of work tried to write")
            return result

    def read(self, spec: AsOf, limit: int | None = None) -> list[Fact]:
        resolved = spec.resolved(self.now())
        with self._fresh():
            return self.state.read(resolved, limit)

    def rank(self, spec: AsOf, query: TextQuery) -> Hits:
        resolved = spec.resolved(self.now())
        with self._fresh():
            return search.rank(self.state, resolved, query)

    def read_cited(
        self, spec: AsOf, limit: int | None = None,
    ) -> list[tuple[Fact, tuple[Source, ...]]]:
        resolved = spec.resolved(self.now())
        with self._fresh():
            return reads.cited(self.state, resolved, self.state.read(resolved, limit))

    def read_confirmed(self, spec: AsOf) -> list[tuple[Fact, Confirmation | None]]:
        resolved = spec.resolved(self.now())
        return self.reading(spec.scope.tenant, lambda tx: tx.read_confirmed(resolved))

    def history(self, tenant: str, key: str) -> list[Fact]:
        with self._fresh():
            ids = self.state.by_key.get((tenant, key), [])
            return sorted((self.state.facts[tenant][i] for i in ids), key=lambda f: f.revision)

    def supports(
        self, tenant: str, fact_ids: Sequence[str], at: datetime | None = None,
    ) -> list[Support]:
        with self._fresh():
            return reads.supports(self.state, tenant, fact_ids, at or self.now())

    def confirmations(
        self, tenant: str, fact_ids: Sequence[str], known_at: datetime,
        at: datetime | None = None,
    ) -> dict[str, Confirmation]:
        return confirmed(self.supports(tenant, fact_ids, at), known_at)

    def sources(self, tenant: str, ids: Sequence[str]) -> list[Source]:
        with self._fresh():
            return [r for r in reads.records(self.state, SOURCE, tenant, ids)
                    if isinstance(r, Source)]

    def subjects(self, tenant: str, names: Sequence[str] | None = None) -> list[Subject]:
        with self._fresh():
            return reads.subjects(self.state, tenant, names)

    def events(self, tenant: str, actions: Sequence[str] | None = None,
               ids: Sequence[str] | None = None) -> list[Event]:
        with self._fresh():
            found = (self.state.events.get(tenant, []) if actions is None else
                     [e for a in set(actions)
                      for e in self.state.events_by_action.get((tenant, a), [])])
            wanted = None if ids is None else set(ids)
            return sorted((e for e in found if wanted is None or e.id in wanted),
                          key=lambda e: (e.at, e.id))

    def walk(
        self, tenant: str, start_ids: Sequence[str], direction: Direction,
        system_at: datetime, max_depth: int = 32, types: Sequence[str] = LINEAGE_TYPES,
    ) -> Walk:
        with self._fresh():
            return reads.walk(self.state, tenant, start_ids, direction, system_at, max_depth,
                              types)
