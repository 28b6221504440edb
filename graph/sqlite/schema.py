"""The embedded store's database: its tables, and how a connection to it is opened.

One SQLite file, ``vintage.db``, in the store directory. WAL lets readers in other processes
read a committed snapshot while one process writes; ``synchronous=FULL`` fsyncs the WAL at
every commit, so a write acknowledged is a write that survives a crash (NORMAL would lose the
last commits on power loss); ``secure_delete`` zeroes the bytes of a deleted or shrunk row, so
erased content does not linger in free pages. Instants are integer microseconds (see
``vintage.graph.sqlite.asof``); a record's full content is its ``body`` (JSON, sealed as the
codec seals it), the other columns are what queries filter, join and order on. A search entry
is its terms (space-separated: a term holds no whitespace) and its vector (float32, little-
endian) in columns of their own, read without a decode; a sealed one is the codec's ciphertext
in ``sealed`` instead. An entry in the clear also has its postings (``postings``: one row per
distinct term, with its count) and its length in terms, and ``generations`` keeps each tenant's
count of such entries and their total length: what BM25 needs, so that a search reads the
postings of its own terms through an index instead of every entry of the tenant
(``vintage.graph.sqlite.search``). Facts and entries keep their rowids: a row of a kilobyte
or more packs badly in a WITHOUT ROWID tree (2.5 times the bytes on the six bundled
companies; SQLite advises rows under a twentieth of a page there), and a join on the (tenant,
id) index then never reads the rows' bodies. Two indexes serve a search's check that the
tenant is wholly indexed (``search.pending_sql``): the count of its live facts
(``facts_live``) against the count of its entries by the model (``entries_model``), both
covering, so the check reads no row; a store of schema 2 gets them when it is next opened
(schema 3). A posting is keyed by its fact's subject and carries its fact's scope (schema 4;
both are fixed for a fact version): a search for one subject seeks that subject's postings
alone, and counts a matched fact of another subject (the first reason after the scope:
``vintage.graph.core.exclusion.REASONS``) from the postings without reading the fact.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from vintage.graph.store.protocol import StoreError

DB_NAME = "vintage.db"
# 2: postings, entries.length, generations.docs and .terms; 3: the indexes entries_model and
# facts_live (a store of 2 gets them, in its own transaction, when it is next opened); 4: each
# posting keyed by its fact's subject and carrying its scope (a store of 1 to 3 has its
# postings written again from its entries when it is next opened)
SCHEMA_VERSION = 4
_log = logging.getLogger("vintage.embedded")  # the store's logger: its notices, on stderr

DDL = """
CREATE TABLE IF NOT EXISTS facts (
  tenant TEXT NOT NULL, id TEXT NOT NULL, key TEXT NOT NULL, revision INTEGER NOT NULL,
  subject TEXT NOT NULL, predicate TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL,
  scope TEXT NOT NULL, available_at INTEGER NOT NULL, superseded_at INTEGER,
  superseded_recorded_at INTEGER, recorded_at INTEGER NOT NULL, invalidated_at INTEGER,
  valid_from INTEGER NOT NULL, holds_until INTEGER, expires_at INTEGER, gaps TEXT, past TEXT,
  erased INTEGER NOT NULL, sealed INTEGER NOT NULL, body TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS facts_id ON facts (tenant, id);
CREATE INDEX IF NOT EXISTS facts_lookup ON facts (tenant, subject, predicate, valid_from);
CREATE INDEX IF NOT EXISTS facts_key ON facts (tenant, key, revision);
CREATE TABLE IF NOT EXISTS records (
  tenant TEXT NOT NULL, label TEXT NOT NULL, id TEXT NOT NULL,
  at INTEGER, action TEXT, body TEXT NOT NULL,
  PRIMARY KEY (tenant, label, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS records_events ON records (tenant, label, action, at, id);
CREATE TABLE IF NOT EXISTS names (
  tenant TEXT NOT NULL, name TEXT NOT NULL, subject TEXT NOT NULL,
  PRIMARY KEY (tenant, name, subject)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS edges (
  tenant TEXT NOT NULL, type TEXT NOT NULL, src TEXT NOT NULL, dst TEXT NOT NULL,
  src_label TEXT NOT NULL, dst_label TEXT NOT NULL, recorded_at INTEGER NOT NULL,
  invalidated_at INTEGER, gaps TEXT, props TEXT NOT NULL,
  PRIMARY KEY (tenant, type, src, dst)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS edges_in ON edges (tenant, type, dst);
CREATE TABLE IF NOT EXISTS entries (
  tenant TEXT NOT NULL, fact_id TEXT NOT NULL, model TEXT NOT NULL,
  terms TEXT, vector BLOB, sealed TEXT, length INTEGER
);
CREATE UNIQUE INDEX IF NOT EXISTS entries_id ON entries (tenant, fact_id);
CREATE INDEX IF NOT EXISTS entries_sealed ON entries (tenant) WHERE sealed IS NOT NULL;
CREATE INDEX IF NOT EXISTS entries_model ON entries (tenant, model, fact_id);
CREATE INDEX IF NOT EXISTS facts_live ON facts (tenant, id, erased) WHERE erased = 0;
CREATE TABLE IF NOT EXISTS generations (
  tenant TEXT PRIMARY KEY, n INTEGER NOT NULL,
  docs INTEGER NOT NULL DEFAULT 0, terms INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS postings (
  tenant TEXT NOT NULL, term TEXT NOT NULL, subject TEXT NOT NULL, entry INTEGER NOT NULL,
  tf INTEGER NOT NULL, scope TEXT NOT NULL,
  PRIMARY KEY (tenant, term, subject, entry)
) WITHOUT ROWID;
"""

# Version 1 to 2, in the same transaction as the rest: the new columns and table (the
# postings themselves are written from the entries by ``vintage.graph.sqlite.indexing``).
UPGRADE_1 = """
ALTER TABLE entries ADD COLUMN length INTEGER;
ALTER TABLE generations ADD COLUMN docs INTEGER NOT NULL DEFAULT 0;
ALTER TABLE generations ADD COLUMN terms INTEGER NOT NULL DEFAULT 0;
"""


def connect(path: Path | None, busy_seconds: float) -> sqlite3.Connection:
    """A connection to the store's database (``path``: its directory; None: in memory), with
    the pragmas above; the tables are made by ``create``. Autocommit mode: every transaction is
    begun and ended explicitly by the store."""
    target = ":memory:" if path is None else str(path / DB_NAME)
    conn = sqlite3.connect(target, timeout=busy_seconds, isolation_level=None,
                           check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA secure_delete=ON")
    conn.execute("PRAGMA foreign_keys=OFF")
    return conn


def ensure(conn: sqlite3.Connection, path: Path | None) -> None:
    """Bring the database to this schema if it is not (``create``), saying so first, once, on
    a store that had an older one: on a large store it takes minutes."""
    found = conn.execute("PRAGMA user_version").fetchone()[0]
    if found != SCHEMA_VERSION:
        if 0 < found < SCHEMA_VERSION:
            _log.warning("notice: bringing the store at %s from schema %d to %d, once (its "
                         "search index is written again: minutes on a store of a million "
                         "facts)", path, found, SCHEMA_VERSION)
        create(conn)


def same(conn: sqlite3.Connection, path: Path | None) -> None:
    """Refuse a transaction on a database another process has since brought to a later
    schema: this process's statements are the older schema's (a write of postings without
    their subject, say), so it must be run with that Vintage. Read in the transaction, so what
    it checks is what the transaction sees."""
    found = conn.execute("PRAGMA user_version").fetchone()[0]
    if found > SCHEMA_VERSION:
        raise StoreError(f"the store at {path} was brought to schema {found} by a newer Vintage "
                         f"since this process opened it (this one reads up to {SCHEMA_VERSION}):"
                         " run this command with that Vintage")


def create(conn: sqlite3.Connection) -> None:
    """Make the tables and indexes (idempotent), bring a database of schema 1 to 3 up to date
    in the same transaction (its postings written once more, from its entries), and refuse one
    of a later schema."""
    from vintage.graph.sqlite.indexing import post_all  # the postings are the index's concern

    conn.execute("BEGIN IMMEDIATE")
    try:
        found = conn.execute("PRAGMA user_version").fetchone()[0]
        if found > SCHEMA_VERSION:
            raise sqlite3.DatabaseError(f"the store's schema is version {found}; this Vintage "
                                        f"reads up to {SCHEMA_VERSION}")
        if found == 1:
            for statement in UPGRADE_1.strip().split(";")[:-1]:
                conn.execute(statement)
        repost = 0 < found < 4  # postings of another shape, or none
        if repost:
            conn.execute("DROP TABLE IF EXISTS postings")
        for statement in DDL.strip().split(";")[:-1]:
            conn.execute(statement)
        if repost:
            post_all(conn)
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
