"""The search-index primitives of a SQLite unit of work (``IndexTx``), and what every unit
of work shares: its connection, tenant, sealer, and the one door its writes go through.

An entry is kept beside its fact (``entries``), sealed under the fact's key when the fact is
sealed; a change to a tenant's entries moves its generation on (``generations``), the stamp a
ranking structure built from them is checked against (``vintage.graph.sqlite.search``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from vintage.graph.core.model import Fact
from vintage.graph.embedded.entries import Indexed, checked_entry
from vintage.graph.retrieval.index import IndexEntry
from vintage.graph.sealing.sealed import Sealer
from vintage.graph.sqlite import reads
from vintage.graph.sqlite.reads import IN_LIST, js
from vintage.graph.sqlite.rows import entry_row, fact_of


class IndexedTx:
    def __init__(self, conn: sqlite3.Connection, tenant: str, sealer: Sealer | None,
                 writable: bool) -> None:
        self.conn = conn
        self.tenant = tenant
        self.sealer = sealer
        self.writable = writable
        self.erased: dict[str, datetime] = {}  # fact id -> erasure instant, for the commit

    def _write(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if not self.writable:
            raise RuntimeError("a read-only unit of work tried to write")
        if rows:
            self.conn.executemany(sql, rows)

    def _facts(self, ids: Sequence[str]) -> dict[str, Fact]:
        return reads.facts(self.conn, self.tenant, ids, self.sealer)

    # -- the search index (IndexTx) -------------------------------------------------------------

    def unindexed(self, model: str, limit: int) -> list[Fact]:
        rows = self.conn.execute(
            "SELECT f.body FROM facts f LEFT JOIN entries e ON e.tenant = f.tenant AND "
            "e.fact_id = f.id WHERE f.tenant = ? AND f.erased = 0 AND (e.model IS NULL OR "
            "e.model != ?) ORDER BY f.id LIMIT ?", (self.tenant, model, max(limit, 0)))
        found = [fact_of(b, self.tenant, self.sealer) for (b,) in rows]
        return [f for f in found if f.erased_at is None]

    def put_index(self, entries: Sequence[IndexEntry]) -> None:
        checked = [(e.fact_id, checked_entry(e)) for e in entries]
        facts = self._facts([i for i, _ in checked])
        rows = [(self.tenant, i, e.model,
                 *entry_row(Indexed(i, e, facts[i].sealed), self.tenant, self.sealer))
                for i, e in checked if i in facts and facts[i].erased_at is None]
        # One entry per fact: a new one replaces the entry by another model.
        self._write("DELETE FROM entries WHERE tenant = ? AND fact_id = ?",
                    [(self.tenant, r[1]) for r in rows])
        self._write("INSERT INTO entries (tenant, fact_id, model, terms, vector, sealed) "
                    "VALUES (?, ?, ?, ?, ?, ?)", rows)
        if rows:
            self._bump()

    def clear_index(self) -> int:
        (dropped,) = self.conn.execute("SELECT COUNT(*) FROM entries WHERE tenant = ?",
                                       (self.tenant,)).fetchone()
        if dropped:
            self._write("DELETE FROM entries WHERE tenant = ?", [(self.tenant,)])
            self._bump()
        return int(dropped)

    def _unindex(self, fact_ids: Sequence[str]) -> None:
        gone = self.conn.execute(f"DELETE FROM entries WHERE tenant = ? AND fact_id IN {IN_LIST}",
                                 (self.tenant, js(fact_ids))).rowcount
        if gone:
            self._bump()

    def _bump(self) -> None:
        """Move the tenant's index generation on: a ranking structure built from its entries
        (in this process or another) knows it is stale."""
        self._write("INSERT INTO generations (tenant, n) VALUES (?, 1) ON CONFLICT DO UPDATE "
                    "SET n = n + 1", [(self.tenant,)])
