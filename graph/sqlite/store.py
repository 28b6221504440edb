"""The embedded backend on SQLite: a store directory holding one database (``vintage.db``).

Opening connects and reads nothing else: a command's cost follows what it asks, not what the
store holds. Each ``write`` is one database transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``), so
a file's ingest lands whole or not at all, and its commit is fsynced before the call returns
(``synchronous=FULL``). One process writes at a time: a writer holds the store directory's
writer lock (``vintage.graph.embedded.log.writer_lock``, which names the holding process when it
refuses) for the length of its transaction; readers in other processes read the last committed
snapshot meanwhile (WAL), and so do other threads of the writing process, each on a connection
of its own. A write nested in a write is a savepoint.

Erasure reaches every file: the erased content is overwritten in the same transaction and its
search entry deleted (``secure_delete`` zeroes the freed bytes), the WAL, which still holds the
pages as they were, is checkpointed and truncated once the transaction commits, and the keys of
the erased sealed facts are destroyed, so any copy made before (a backup, a free block) no
longer opens. The keys are marked before the commit; an open finishes a destruction that a
crash interrupted.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from vintage.graph.core.asof import AsOf
from vintage.graph.core.labels import LINEAGE_TYPES, SOURCE
from vintage.graph.core.model import Event, Fact, Source, Subject
from vintage.graph.embedded import log
from vintage.graph.retrieval.index import Hits, TextQuery
from vintage.graph.sealing.sealed import KeyStore, Sealer
from vintage.graph.sqlite import reads, schema
from vintage.graph.sqlite.held import held as counted_held
from vintage.graph.sqlite.tx import SqliteTx
from vintage.graph.store.capabilities import Held, known_now
from vintage.graph.store.protocol import (
    Cited,
    Clock,
    Confirmation,
    Direction,
    StoreError,
    Support,
    Walk,
)
from vintage.graph.writes.support import confirmed

if TYPE_CHECKING:
    from vintage.graph.sqlite import search

T = TypeVar("T")
_log = logging.getLogger("vintage.embedded")
MIGRATE_HINT = "vintage store migrate"


class LegacyStore(StoreError):
    """The directory holds a store in the old log format (``vintage.log.jsonl``)."""


class SqliteStore:
    def __init__(self, path: Path | None, clock: Clock, keys: KeyStore | None = None) -> None:
        self.path = path
        self._clock = clock
        # Sealing concerns the disk: a store in memory only has nothing to seal.
        self.sealer = Sealer(keys) if keys is not None and path is not None else None
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None  # the writer's (and an in-memory store's)
        self._depth = 0  # transactions open on the connection (a nested one is a savepoint)
        self._owner: int | None = None  # the thread whose transaction is open on it
        self._readers = threading.local()  # each thread's connection for reads
        self._all_readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._ranking: search.Ranking | None = None  # made by the first search
        self._ranking_lock = threading.Lock()  # two first searches make one ranking
        self._erased: list[tuple[str, dict[str, datetime]]] = []  # by the writes of this one

    @classmethod
    def open(cls, path: Path | None, clock: Clock,
             keys: KeyStore | None = None) -> SqliteStore:
        """Open (creating it when missing) the store at ``path``; ``None`` keeps it in memory.
        A directory holding a store in the old log format is refused, naming the command that
        converts it."""
        if path is not None:
            if path.exists() and not path.is_dir():
                raise StoreError(f"{path} is a file, not a store directory")
            if (path / log.LOG_NAME).exists() and not (path / schema.DB_NAME).exists():
                raise LegacyStore(f"{path} holds a store in the old log format: convert it once "
                                  f"with `{MIGRATE_HINT}` (`vintage --store {path} store "
                                  "migrate`)")
            path.mkdir(parents=True, exist_ok=True)
        store = cls(path, clock, keys)
        store.ensure_schema()
        store._finish_destruction()
        return store

    def now(self) -> datetime:
        return self._clock()

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = schema.connect(self.path, log.lock_timeout())
        return self._conn

    def ensure_schema(self) -> None:
        with self._lock:
            schema.ensure(self._db(), self.path)

    def close(self) -> None:
        with self._lock:
            with self._readers_lock:
                for reader in self._all_readers:
                    reader.close()
                self._all_readers, self._readers = [], threading.local()
            if self._conn is not None and not self._depth:
                self._conn.close()
                self._conn = None

    # -- transactions ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def _transaction(self, write: bool) -> Iterator[sqlite3.Connection]:
        """A database transaction on this store's connection, under its thread lock: a
        savepoint inside another, else BEGIN (IMMEDIATE for a write: the writer's lock is
        taken at once, not at its first write)."""
        with self._lock:
            conn = self._db()
            if self._depth:
                name = f"nested_{self._depth}"
                conn.execute(f"SAVEPOINT {name}")
                begin, commit, rollback = None, f"RELEASE {name}", f"ROLLBACK TO {name}"
            else:
                begin = "BEGIN IMMEDIATE" if write else "BEGIN"
                commit, rollback = "COMMIT", "ROLLBACK"
            with contextlib.ExitStack() as stack:
                if begin is not None and write and self.path is not None:
                    stack.enter_context(log.writer_lock(self.path, log.lock_timeout()))
                if begin is not None:
                    conn.execute(begin)
                self._depth += 1
                self._owner = threading.get_ident()
                try:
                    if begin is not None:  # rolled back below when refused
                        schema.same(conn, self.path)
                    yield conn
                    conn.execute(commit)
                except BaseException:
                    conn.execute(rollback)
                    if rollback.startswith("ROLLBACK TO"):
                        conn.execute(commit)
                    raise
                finally:
                    self._depth -= 1
                    if not self._depth:
                        self._owner = None

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """A read. Inside this thread's write, on the write's connection (it sees the write's
        changes); otherwise a snapshot of the last commit on this thread's own connection,
        which waits for no writer (WAL): a long write (a whole file) holds up no reader. An
        in-memory store has one connection, so its reads take the lock."""
        if self.path is None or self._owner == threading.get_ident():
            with self._transaction(write=False) as conn:
                yield conn
            return
        reader: sqlite3.Connection | None = getattr(self._readers, "conn", None)
        if reader is None:
            reader = self._readers.conn = schema.connect(self.path, log.lock_timeout())
            with self._readers_lock:  # not the writer's lock: a reader never waits on a write
                self._all_readers.append(reader)
        reader.execute("BEGIN")
        try:
            schema.same(reader, self.path)
            yield reader
        finally:
            reader.execute("COMMIT")  # a read: nothing to keep or undo

    def write(self, tenant: str, work: Callable[[Any], T]) -> T:
        with self._lock:
            outer = not self._depth
            if outer:
                self._erased = []
            with self._transaction(write=True) as conn:
                tx = SqliteTx(conn, tenant, self.sealer, writable=True)
                result = work(tx)
                if tx.erased and self.sealer is not None:
                    self.sealer.mark(tenant, set(tx.erased))  # finished by an open if we crash
                if tx.erased:  # reaches the files once the outermost write commits
                    self._erased.append((tenant, tx.erased))
            if outer:
                for erased_tenant, erased in self._erased:
                    self._erase_on_disk(erased_tenant, erased)
            return result

    def whole(self, tenant: str, work: Callable[[], T]) -> T:
        """``work`` as one transaction: each ``write`` it makes is a savepoint of it."""
        return self.write(tenant, lambda _: work())

    def reading(self, tenant: str, work: Callable[[Any], T]) -> T:
        with self._read() as conn:
            return work(SqliteTx(conn, tenant, self.sealer, writable=False))

    def _erase_on_disk(self, tenant: str, erased: dict[str, datetime]) -> None:
        """The committed erasure reaches the files: the WAL, which holds the pages as they were
        before, is copied into the database (its freed bytes zeroed) and cut to nothing; then
        the keys of what was erased are destroyed."""
        conn = self._db()
        for _ in range(50):  # a reader in another process may pin the WAL for a moment
            busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if not busy:
                break
            time.sleep(0.1)
        else:
            _log.warning("a reader kept the WAL of %s busy: the erased content leaves it at the "
                         "next checkpoint (its keys are destroyed now)", self.path)
        if self.sealer is not None:
            self.sealer.destroy(tenant, set(erased), max(erased.values()))

    def _finish_destruction(self) -> None:
        """Finish what an erasure killed before destroying its keys left marked: the facts
        erased in the database get their keys destroyed; the marks of a transaction that never
        committed stay (harmless: those facts are not erased)."""
        if self.sealer is None:
            return
        for tenant, ids in self.sealer.marked().items():
            with self._read() as conn:
                found = reads.facts(conn, tenant, sorted(ids), self.sealer)
            erased = {i: f.erased_at for i, f in found.items() if f.erased_at is not None}
            if erased:
                self._erase_on_disk(tenant, erased)

    # -- reads ----------------------------------------------------------------------------------

    def read(self, spec: AsOf, limit: int | None = None) -> list[Fact]:
        resolved = spec.resolved(self.now())
        with self._read() as conn:
            return reads.read(conn, resolved, self.sealer, limit)

    def held(self, tenant: str) -> Held:
        with self._read() as conn:
            return counted_held(conn, known_now(tenant).resolved(self.now()), self.sealer)

    def rank(self, spec: AsOf, query: TextQuery) -> Hits:
        resolved = spec.resolved(self.now())
        # Imported here: the ranking's numpy is a tenth of a second that asof, facts and
        # remember, each a process of its own, would otherwise load for nothing.
        from vintage.graph.sqlite import search

        ranking = self._ranked()
        with self._read() as conn:
            return search.rank(conn, resolved, query, self.sealer, ranking)

    def read_ahead(self, spec: AsOf, query: TextQuery) -> None:
        resolved = spec.resolved(self.now())
        from vintage.graph.sqlite import search

        ranking = self._ranked()
        with self._read() as conn:
            search.read_ahead(conn, resolved, query, ranking)

    def _ranked(self) -> search.Ranking:
        """What the searches of this store keep (made by the first)."""
        from vintage.graph.sqlite import search

        with self._ranking_lock:
            if self._ranking is None:
                self._ranking = search.Ranking()
            return self._ranking

    def read_cited(self, spec: AsOf, limit: int | None = None) -> list[Cited]:
        resolved = spec.resolved(self.now())
        with self._read() as conn:
            return reads.cited(conn, resolved, reads.read(conn, resolved, self.sealer, limit))

    def read_confirmed(self, spec: AsOf) -> list[tuple[Fact, Confirmation | None]]:
        resolved = spec.resolved(self.now())
        return self.reading(spec.scope.tenant, lambda tx: tx.read_confirmed(resolved))

    def history(self, tenant: str, key: str) -> list[Fact]:
        with self._read() as conn:
            found = reads.by_keys(conn, tenant, [key], self.sealer, live_only=False)
        return sorted(found, key=lambda f: f.revision)

    def supports(self, tenant: str, fact_ids: Sequence[str],
                 at: datetime | None = None) -> list[Support]:
        with self._read() as conn:
            return reads.supports(conn, tenant, fact_ids, at or self.now())

    def confirmations(self, tenant: str, fact_ids: Sequence[str], known_at: datetime,
                      at: datetime | None = None) -> dict[str, Confirmation]:
        return confirmed(self.supports(tenant, fact_ids, at), known_at)

    def sources(self, tenant: str, ids: Sequence[str]) -> list[Source]:
        with self._read() as conn:
            found = {s.id: s for s in reads.records(conn, SOURCE, tenant, ids)}
        return [found[i] for i in ids if i in found]

    def subjects(self, tenant: str, names: Sequence[str] | None = None) -> list[Subject]:
        with self._read() as conn:
            return reads.subjects(conn, tenant, names)

    def events(self, tenant: str, actions: Sequence[str] | None = None,
               ids: Sequence[str] | None = None) -> list[Event]:
        with self._read() as conn:
            return reads.events(conn, tenant, actions, ids)

    def tenants(self) -> list[str]:
        with self._read() as conn:
            return reads.tenants(conn)

    def walk(self, tenant: str, start_ids: Sequence[str], direction: Direction,
             system_at: datetime, max_depth: int = 32,
             types: Sequence[str] = LINEAGE_TYPES) -> Walk:
        with self._read() as conn:
            return reads.walk(conn, tenant, start_ids, direction, system_at, max_depth, types)
