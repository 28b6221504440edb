"""A store written before postings existed (schema 1) is brought up to date when it is opened:
its entries are posted once, in one transaction, and a search then ranks and counts as it did
on a store made at schema 2."""

from __future__ import annotations

import logging
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tests.factories import PinnedClock
from tests.test_search_index import MODEL, facts, unit
from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Scope
from vintage.graph.retrieval.index import IndexEntry, TextQuery, index_tx
from vintage.graph.sealing.keyfile import FileKeyStore
from vintage.graph.sqlite.schema import DB_NAME, SCHEMA_VERSION
from vintage.graph.sqlite.store import SqliteStore
from vintage.graph.store.protocol import StoreError


def as_schema_1(directory: Path) -> None:
    """The database as schema 1 left it: no postings, no lengths, no statistics."""
    with closing(sqlite3.connect(directory / DB_NAME, isolation_level=None)) as conn:
        conn.executescript(
            "BEGIN; DROP TABLE postings; DROP INDEX entries_sealed;"
            "ALTER TABLE entries DROP COLUMN length; ALTER TABLE generations DROP COLUMN docs;"
            "ALTER TABLE generations DROP COLUMN terms; PRAGMA user_version = 1; COMMIT;")


def test_a_schema_1_store_is_posted_on_open_and_searches_as_before(
    tmp_path: Path, clock: PinnedClock,
) -> None:
    directory, tenant = tmp_path / "store", "old"
    store = SqliteStore.open(directory, clock, FileKeyStore(tmp_path / "keys"))
    ids = facts(store, Scope(tenant=tenant), "Revenues", "OperatingIncomeLoss", "NetIncomeLoss")
    memory = facts(store, Scope(tenant=tenant, keys={"user": "42"}), "shipping.preference")
    store.write(tenant, lambda tx: index_tx(tx).put_index([
        IndexEntry(ids[0], ("revenu", "googl"), unit(1, 0, 0, 0), MODEL),
        IndexEntry(ids[1], ("oper", "incom", "oper", "googl"), unit(0, 1, 0, 0), MODEL),
        IndexEntry(ids[2], ("net", "incom", "googl"), unit(0, 0, 1, 0), MODEL),
        IndexEntry(memory[0], ("ship", "offic", "incom"), unit(1, 1, 0, 0), MODEL)]))
    query = TextQuery(("oper", "incom", "googl"), ("googl",), unit(1, 1, 1, 0), MODEL, 5)
    before = [store.rank(AsOf(scope), query)
              for scope in (Scope(tenant=tenant), Scope(tenant=tenant, keys={"user": "42"}))]
    store.close()
    as_schema_1(directory)

    reopened = SqliteStore.open(directory, clock, FileKeyStore(tmp_path / "keys"))
    after = [reopened.rank(AsOf(scope), query)
             for scope in (Scope(tenant=tenant), Scope(tenant=tenant, keys={"user": "42"}))]

    assert after == before
    assert before[0].keyword and before[1].keyword  # each read found something to compare
    with closing(sqlite3.connect(directory / DB_NAME)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        # The entries in the clear are posted (8 distinct terms over three), the sealed one not.
        assert conn.execute("SELECT COUNT(*) FROM postings").fetchone()[0] == 8
        assert conn.execute("SELECT docs, terms FROM generations WHERE tenant = ?",
                            (tenant,)).fetchone() == (3, 9)


def as_schema_3(directory: Path) -> None:
    """The database as schema 3 left it: postings without their fact's subject or scope."""
    with closing(sqlite3.connect(directory / DB_NAME, isolation_level=None)) as conn:
        conn.executescript(
            "BEGIN; CREATE TABLE old_postings (tenant TEXT NOT NULL, term TEXT NOT NULL, "
            "entry INTEGER NOT NULL, tf INTEGER NOT NULL, PRIMARY KEY (tenant, term, entry)) "
            "WITHOUT ROWID; INSERT INTO old_postings SELECT tenant, term, entry, tf FROM "
            "postings; DROP TABLE postings; ALTER TABLE old_postings RENAME TO postings; "
            "PRAGMA user_version = 3; COMMIT;")


def test_a_schema_3_stores_postings_are_keyed_by_subject_on_open_and_count_as_before(
    tmp_path: Path, clock: PinnedClock, caplog: pytest.LogCaptureFixture,
) -> None:
    directory, tenant = tmp_path / "store", "old"
    store = SqliteStore.open(directory, clock, FileKeyStore(tmp_path / "keys"))
    ids = facts(store, Scope(tenant=tenant), "Revenues", "OperatingIncomeLoss")
    store.write(tenant, lambda tx: index_tx(tx).put_index([
        IndexEntry(ids[0], ("revenu", "googl"), unit(1, 0, 0, 0), MODEL),
        IndexEntry(ids[1], ("oper", "incom", "googl"), unit(0, 1, 0, 0), MODEL)]))
    query = TextQuery(("oper", "incom", "googl"), ("googl",), unit(1, 1, 0, 0), MODEL, 5)
    reads = [AsOf(Scope(tenant=tenant)), AsOf(Scope(tenant=tenant), subjects=("GOOGL",)),
             AsOf(Scope(tenant=tenant), subjects=("MSFT",))]
    before = [store.rank(spec, query) for spec in reads]
    store.close()
    as_schema_3(directory)

    with caplog.at_level(logging.WARNING, logger="vintage.embedded"):
        reopened = SqliteStore.open(directory, clock, FileKeyStore(tmp_path / "keys"))
        again = SqliteStore.open(directory, clock, FileKeyStore(tmp_path / "keys"))
    again.close()
    after = [reopened.rank(spec, query) for spec in reads]
    # Said once, before the work (minutes on a large store), and not again.
    assert [r.getMessage() for r in caplog.records] == [
        f"notice: bringing the store at {directory} from schema 3 to {SCHEMA_VERSION}, once "
        "(its search index is written again: minutes on a store of a million facts)"]

    assert after == before
    assert before[2].excluded == {"another subject": 2}  # counted from the postings' key
    with closing(sqlite3.connect(directory / DB_NAME)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("SELECT DISTINCT subject, scope FROM postings").fetchall() == [
            ("GOOGL", "[]")]


def test_a_process_whose_store_a_newer_vintage_upgraded_refuses_to_read_or_write_in_one_line(
    tmp_path: Path, clock: PinnedClock,
) -> None:
    directory, tenant = tmp_path / "store", "old"
    store = SqliteStore.open(directory, clock, FileKeyStore(tmp_path / "keys"))
    ids = facts(store, Scope(tenant=tenant), "Revenues")
    # Another process, of a later schema, brings the database up to it.
    with closing(sqlite3.connect(directory / DB_NAME, isolation_level=None)) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")

    said = f"was brought to schema {SCHEMA_VERSION + 1} by a newer Vintage"
    with pytest.raises(StoreError, match=said):
        store.read(AsOf(Scope(tenant=tenant)))
    with pytest.raises(StoreError, match=said):
        facts(store, Scope(tenant=tenant), "NetIncomeLoss")
    store.close()
    with closing(sqlite3.connect(directory / DB_NAME)) as conn:  # nothing written
        assert conn.execute("SELECT id FROM facts").fetchall() == [(ids[0],)]
