"""``vintage store migrate``: a store in the old log format (``vintage.log.jsonl``, replayed
into memory on every open) converted once into the SQLite store.

The log is read by the store that wrote it (``vintage.graph.embedded``, which also finishes a
torn tail or an interrupted erasure), under its writer lock, so no writer of the old format
adds to it meanwhile. The database is built whole in a scratch folder of the store directory and
moved in by one rename: a crash leaves the log store as it was (the scratch folder is laid anew
by the next try). The log is then renamed ``vintage.log.jsonl.migrated``: kept, not deleted
(a copy of what the store held; delete it once the new store has served you). Sealed content
stays sealed under the same keys.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from vintage.graph.core.labels import DERIVATION, EVENT, FACT, SUBJECT
from vintage.graph.embedded import log
from vintage.graph.embedded.entries import Indexed
from vintage.graph.embedded.state import State
from vintage.graph.embedded.store import EmbeddedStore
from vintage.graph.sealing.sealed import KeyStore, Sealer
from vintage.graph.sqlite import schema
from vintage.graph.sqlite.asof import micros
from vintage.graph.sqlite.indexing import post_all
from vintage.graph.sqlite.rows import UPSERT_FACT, edge_props, entry_row, fact_row
from vintage.graph.store.durable import fsync_dir
from vintage.graph.store.protocol import StoreError

SCRATCH = ".migrating"
MIGRATED_SUFFIX = ".migrated"
_EDGE_COLUMNS = ("recorded_at", "invalidated_at", "gaps_from", "gaps_to")


@dataclass(frozen=True)
class Migrated:
    facts: int
    records: int
    edges: int
    entries: int
    kept: Path  # the old log, renamed


def migrate(path: Path, keys: KeyStore | None) -> Migrated:
    """Convert the log store at ``path`` into a SQLite store in place."""
    old_log = path / log.LOG_NAME
    if not old_log.exists():
        raise StoreError(f"{path} holds no store in the old log format ({log.LOG_NAME})")
    if (path / schema.DB_NAME).exists():
        raise StoreError(f"{path} already holds a SQLite store ({schema.DB_NAME}): nothing to do")
    old = EmbeddedStore.open(path, lambda: datetime.now(UTC), keys)
    sealer = Sealer(keys) if keys is not None else None
    scratch = path / SCRATCH
    with log.writer_lock(path, log.lock_timeout()):
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir()
        with closing(schema.connect(scratch, log.lock_timeout())) as conn:
            schema.create(conn)
            conn.execute("BEGIN IMMEDIATE")
            counts = copy(conn, old.state, sealer)
            conn.execute("COMMIT")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        os.replace(scratch / schema.DB_NAME, path / schema.DB_NAME)
        kept = old_log.with_name(old_log.name + MIGRATED_SUFFIX)
        os.replace(old_log, kept)
        fsync_dir(path)
        shutil.rmtree(scratch, ignore_errors=True)
    return Migrated(*counts, kept=kept)


def copy(conn: Any, state: State, sealer: Sealer | None) -> tuple[int, int, int, int]:
    """Every record of ``state`` as rows of the SQLite tables; how many of each kind."""
    facts = [f for table in state.facts.values() for f in table.values()]
    conn.executemany(UPSERT_FACT, [fact_row(f, None if f.erased_at else sealer) for f in facts])
    records = list(_records(state))
    conn.executemany("INSERT OR REPLACE INTO records (tenant, label, id, at, action, body) "
                     "VALUES (?, ?, ?, ?, ?, ?)", [r[:6] for r in records])
    conn.executemany("INSERT OR IGNORE INTO names (tenant, name, subject) VALUES (?, ?, ?)",
                     [(r[0], n, r[2]) for r in records for n in r[6]])
    edges = list(_edges(state))
    conn.executemany("INSERT OR REPLACE INTO edges (tenant, type, src, dst, src_label, "
                     "dst_label, recorded_at, invalidated_at, gaps, props) VALUES "
                     "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", edges)
    entries = [(tenant, fid, e.model,
                *entry_row(Indexed(fid, e, state.facts[tenant][fid].sealed), tenant, sealer))
               for tenant, table in state.entries.items() for fid, e in table.items()]
    conn.executemany("INSERT INTO entries (tenant, fact_id, model, terms, vector, sealed) "
                     "VALUES (?, ?, ?, ?, ?, ?)", entries)
    post_all(conn)  # the postings, lengths and counts of the entries in the clear
    return len(facts), len(records), len(edges), len(entries)


def _records(state: State) -> Iterator[tuple[Any, ...]]:
    """(tenant, label, id, at, action, body, names) of every node but facts."""
    for (label, tenant, node_id), data in state.graph.nodes(data=True):
        if label == FACT:
            continue
        rec = data["record"]
        at = (micros(rec.at) if label == EVENT else
              micros(data.get("recorded_at")) if label == DERIVATION else None)
        names = (node_id, *rec.identifiers) if label == SUBJECT else ()
        yield (tenant, label, node_id, at, rec.action if label == EVENT else None,
               rec.model_dump_json(), names)


def _edges(state: State) -> Iterator[tuple[Any, ...]]:
    for (src_label, tenant, src), (dst_label, _, dst), type_, data in state.graph.edges(
            keys=True, data=True):
        gaps = [[micros(a), micros(b)] for a, b in zip(
            data.get("gaps_from", ()), data.get("gaps_to", ()), strict=True)]
        props = {k: v for k, v in data.items() if k not in _EDGE_COLUMNS}
        yield (tenant, type_, src, dst, src_label, dst_label, micros(data["recorded_at"]),
               micros(data.get("invalidated_at")), json.dumps(gaps) if gaps else None,
               edge_props(recorded_at=data["recorded_at"], **props))
