"""The search-index primitives of a SQLite unit of work (``IndexTx``), and what every unit
of work shares: its connection, tenant, sealer, and the one door its writes go through.

An entry is kept beside its fact (``entries``), sealed under the fact's key when the fact is
sealed; a change to a tenant's entries moves its generation on (``generations``), the stamp the
sealed entries a search opened are checked against (``vintage.graph.sqlite.search``). An entry
in the clear has its postings beside it (``postings``: a distinct term, its count in the entry,
and its fact's subject and scope)
and its length, and the tenant's row of ``generations`` counts such entries and their terms:
BM25's statistics, kept in step by the same transaction as the entries."""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, NamedTuple

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
        ids = [r[1] for r in rows]
        gone = self._unpost(ids)
        self._write("DELETE FROM entries WHERE tenant = ? AND fact_id = ?",
                    [(self.tenant, i) for i in ids])
        self._write("INSERT INTO entries (tenant, fact_id, model, terms, vector, sealed, length) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(*r, None if r[3] is None else _length(r[3])) for r in rows])
        if rows:
            docs, length = self._post(ids)
            self._bump(docs - gone[0], length - gone[1])

    def clear_index(self) -> int:
        (dropped,) = self.conn.execute("SELECT COUNT(*) FROM entries WHERE tenant = ?",
                                       (self.tenant,)).fetchone()
        if dropped:
            self._write("DELETE FROM postings WHERE tenant = ?", [(self.tenant,)])
            self._write("DELETE FROM entries WHERE tenant = ?", [(self.tenant,)])
            self._write("UPDATE generations SET n = n + 1, docs = 0, terms = 0 WHERE tenant = ?",
                        [(self.tenant,)])
        return int(dropped)

    def _unindex(self, fact_ids: Sequence[str]) -> None:
        docs, length = self._unpost(fact_ids)
        gone = self.conn.execute(f"DELETE FROM entries WHERE tenant = ? AND fact_id IN {IN_LIST}",
                                 (self.tenant, js(fact_ids))).rowcount
        if gone:
            self._bump(-docs, -length)

    def _post(self, fact_ids: Sequence[str]) -> tuple[int, int]:
        """Write the postings of these facts' entries in the clear; how many such entries,
        and their total length."""
        found = self._posted(fact_ids)
        self._write(_INSERT_POSTING, list(postings(self.tenant, found)))
        return len(found), sum(_length(p.terms) for p in found)

    def _unpost(self, fact_ids: Sequence[str]) -> tuple[int, int]:
        """Delete the postings of these facts' entries in the clear (before the entries); how
        many such entries, and their total length."""
        found = self._posted(fact_ids)
        self._write("DELETE FROM postings WHERE tenant = ? AND term = ? AND subject = ? AND "
                    "entry = ?", [row[:4] for row in postings(self.tenant, found)])
        return len(found), sum(_length(p.terms) for p in found)

    def _posted(self, fact_ids: Sequence[str]) -> list[Posted]:
        """The entries in the clear of these facts, with what their postings carry."""
        return [Posted(*row) for row in self.conn.execute(
            f"SELECT e.rowid, e.terms, f.subject, f.scope {_ENTRY_FACT} WHERE e.tenant = ? AND "
            f"e.fact_id IN {IN_LIST} AND e.terms IS NOT NULL", (self.tenant, js(fact_ids)))]

    def _bump(self, docs: int = 0, length: int = 0) -> None:
        """Move the tenant's index generation on (sealed entries opened by a search, in this
        process or another, are then stale), and its counts of entries in the clear and of
        their terms by ``docs`` and ``length``."""
        self._write("INSERT INTO generations (tenant, n, docs, terms) VALUES (?, 1, ?, ?) "
                    "ON CONFLICT DO UPDATE SET n = n + 1, docs = docs + excluded.docs, "
                    "terms = terms + excluded.terms", [(self.tenant, docs, length)])


_INSERT_POSTING = ("INSERT INTO postings (tenant, term, subject, entry, tf, scope) "
                   "VALUES (?, ?, ?, ?, ?, ?)")
_ENTRY_FACT = "FROM entries e JOIN facts f ON f.tenant = e.tenant AND f.id = e.fact_id"


class Posted(NamedTuple):
    """An entry in the clear, and what each of its postings carries of its fact."""

    rowid: int
    terms: str
    subject: str
    scope: str


def _length(terms: str) -> int:
    return len(terms.split(" ")) if terms else 0


def postings(tenant: str,
             entries: Iterable[Posted]) -> Iterable[tuple[str, str, str, int, int, str]]:
    """(tenant, term, subject, entry rowid, count, scope) of each distinct term of each entry."""
    for p in entries:
        if p.terms:
            for term, n in Counter(p.terms.split(" ")).items():
                yield tenant, term, p.subject, p.rowid, n, p.scope


def post_all(conn: sqlite3.Connection) -> None:
    """Postings, lengths and counts of every entry in the clear, from nothing: a database
    made before postings existed or had their present shape (schema 1 to 3), inside the
    caller's transaction."""
    conn.execute("DELETE FROM postings")
    conn.execute("UPDATE generations SET docs = 0, terms = 0")
    rows = conn.execute(f"SELECT e.tenant, e.rowid, e.terms, f.subject, f.scope {_ENTRY_FACT} "
                        "WHERE e.terms IS NOT NULL")
    counts: dict[str, list[int]] = {}
    while chunk := rows.fetchmany(10_000):  # a million entries are not held at once
        posted: list[tuple[str, str, str, int, int, str]] = []
        for tenant, *entry in chunk:
            posted += postings(tenant, [Posted(*entry)])
            seen = counts.setdefault(tenant, [0, 0])
            seen[0] += 1
            seen[1] += _length(entry[1])
        conn.executemany(_INSERT_POSTING, posted)
    # After the scan, not during it: the entries are not written while they are read. A
    # length is the count of the space-separated terms, as ``_length`` counts them.
    conn.execute("UPDATE entries SET length = CASE WHEN terms = '' THEN 0 ELSE length(terms) - "
                 "length(replace(terms, ' ', '')) + 1 END WHERE terms IS NOT NULL")
    conn.executemany("INSERT INTO generations (tenant, n, docs, terms) VALUES (?, 1, ?, ?) "
                     "ON CONFLICT DO UPDATE SET n = n + 1, docs = excluded.docs, "
                     "terms = excluded.terms", [(t, d, n) for t, (d, n) in counts.items()])
