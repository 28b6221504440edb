"""A unit of work on the SQLite store: ``StoreTx``, ``MemoryTx`` and ``IndexTx`` as statements
on one connection inside one database transaction (begun and ended by the store), so each
write is visible to the reads after it and the whole unit commits or rolls back as one.

Fact changes are written whole (a fact is a frozen record: a change is a new copy of it,
exactly as the reference model makes it), so a row and its body never disagree."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import FactKind
from vintage.graph.core.labels import (
    ABOUT,
    CONFLICTS_WITH,
    DERIVATION,
    EVENT,
    FACT,
    GENERATED,
    LINEAGE_TYPES,
    SOURCE,
    SUBJECT,
    SUPERSEDES,
    SUPPORTED_BY,
    USED,
)
from vintage.graph.core.model import Event, Fact, Scope, Source, Subject
from vintage.graph.embedded.downstream import by_walk
from vintage.graph.embedded.entries import ERASED
from vintage.graph.sqlite import reads, search_sql
from vintage.graph.sqlite.asof import micros, when
from vintage.graph.sqlite.indexing import IndexedTx
from vintage.graph.sqlite.reads import IN_LIST, js
from vintage.graph.sqlite.rows import UPSERT_FACT, edge_props, fact_row
from vintage.graph.store.protocol import (
    Cited,
    Closure,
    Confirmation,
    Conflict,
    ConflictError,
    DerivationWrite,
    Direction,
    Erasure,
    Invalidation,
    Justification,
    KnowledgeEnd,
    Reopening,
    Supersession,
    Support,
    Walk,
    check_tenant,
)
from vintage.graph.writes.reach import Downstream
from vintage.graph.writes.support import confirmed

_UPSERT_EDGE = (
    "INSERT INTO edges (tenant, type, src, dst, src_label, dst_label, recorded_at, "
    "invalidated_at, props) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?) ON CONFLICT DO UPDATE SET "
    "recorded_at = excluded.recorded_at, invalidated_at = NULL, "
    "props = json_patch(props, excluded.props)")

# Edges by their end go through ``edges_in``, named: without statistics the planner may take the
# primary key's (tenant, type) prefix and read every edge of the type.
_BY_END = "FROM edges INDEXED BY edges_in"


class SqliteTx(IndexedTx):
    def _put(self, facts: Sequence[Fact]) -> None:
        # An erased fact is written plain: its content is gone, nothing is left to seal.
        self._write(UPSERT_FACT, [fact_row(f, None if f.erased_at else self.sealer)
                                  for f in facts])

    def _edges(self, type_: str, labels: tuple[str, str],
               rows: Sequence[tuple[str, str, datetime, dict[str, Any]]]) -> None:
        self._write(_UPSERT_EDGE, [(self.tenant, type_, src, dst, *labels, micros(at),
                                    edge_props(recorded_at=at, **props))
                                   for src, dst, at, props in rows])

    def _changed(self, rows: Sequence[Any], change: Any) -> None:
        """Each row's fact, changed by ``change(fact, row)`` (None: left as it is)."""
        found = self.get_facts([r.fact_id for r in rows])
        self._put([f for f in (change(found[r.fact_id], r) for r in rows) if f is not None])

    # -- reads ----------------------------------------------------------------------------------

    def versions(self, keys: Sequence[str]) -> dict[str, list[Fact]]:
        found: dict[str, list[Fact]] = {}
        for f in reads.by_keys(self.conn, self.tenant, keys, self.sealer, live_only=True):
            found.setdefault(f.key, []).append(f)
        return found

    def read(self, spec: AsOf) -> list[Fact]:
        check_tenant(self.tenant, spec.scope)
        return reads.read(self.conn, spec, self.sealer)

    def replaced_premises(self, spec: AsOf) -> list[str]:
        check_tenant(self.tenant, spec.scope)
        return [i for (i,) in self.conn.execute(*search_sql.replaced_premises_sql(spec))]

    def read_confirmed(self, spec: AsOf) -> list[tuple[Fact, Confirmation | None]]:
        facts = self.read(spec)
        known_at, system_at = spec._instants()
        edges = reads.supports(self.conn, self.tenant, [f.id for f in facts], system_at)
        seen = confirmed(edges, known_at)
        return [(f, seen.get(f.id)) for f in facts]

    def facts_in(self, scope: Scope, kinds: Sequence[FactKind] | None = None,
                 keys: Sequence[str] | None = None) -> list[Fact]:
        check_tenant(self.tenant, scope)
        return reads.facts_in(self.conn, scope, kinds, keys, self.sealer)

    def top_revisions(self, keys: Sequence[str]) -> dict[str, int]:
        return dict(self.conn.execute(
            f"SELECT key, MAX(revision) FROM facts WHERE tenant = ? AND key IN {IN_LIST} "
            "GROUP BY key", (self.tenant, js(keys))).fetchall())

    def existing(self, label: str, ids: Sequence[str]) -> set[str]:
        return reads.existing(self.conn, label, self.tenant, ids)

    def get_sources(self, ids: Sequence[str]) -> dict[str, Source]:
        return {s.id: s for s in reads.records(self.conn, SOURCE, self.tenant, ids)}

    def subjects(self, names: Sequence[str] | None = None) -> list[Subject]:
        return reads.subjects(self.conn, self.tenant, names)

    def get_facts(self, ids: Sequence[str]) -> dict[str, Fact]:
        return reads.facts(self.conn, self.tenant, ids, self.sealer)

    def supports_of(self, fact_ids: Sequence[str]) -> list[Support]:
        return reads.supports(self.conn, self.tenant, fact_ids, None)

    def walk(self, start_ids: Sequence[str], direction: Direction, at: datetime,
             max_depth: int, types: Sequence[str] = LINEAGE_TYPES) -> Walk:
        return reads.walk(self.conn, self.tenant, start_ids, direction, at, max_depth, types)

    def justifications(self, fact_ids: Sequence[str], at: datetime) -> list[Justification]:
        return reads.justifications(self.conn, self.tenant, fact_ids, at)

    def downstream(self, start_ids: Sequence[str], at: datetime) -> Downstream:
        return by_walk(self, list(start_ids), at)

    def input_sources(self, fact_ids: Sequence[str], known_at: datetime,
                      system_at: datetime) -> dict[str, tuple[Source, ...]]:
        return reads.input_sources(self.conn, self.tenant, fact_ids, known_at, system_at)

    def generated_by(self, derivation_ids: Sequence[str]) -> dict[str, Fact]:
        return reads.generated_by(self.conn, self.tenant, derivation_ids, self.sealer)

    def cited_with_subjects(self, spec: AsOf) -> tuple[list[Cited], list[Subject]]:
        cited = reads.cited(self.conn, spec, self.read(spec))
        names = sorted({f.subject for f, _ in cited})
        return cited, reads.records(self.conn, SUBJECT, self.tenant, names)  # by id, as Neo4j

    def retracted_at(self, source_id: str) -> datetime | None:
        (at,) = self.conn.execute(
            f"SELECT MAX(invalidated_at) {_BY_END} WHERE tenant = ? AND type = ? AND dst = ?",
            (self.tenant, SUPPORTED_BY, source_id)).fetchone()
        return None if at is None else when(at)

    def ever_supported_by(self, source_id: str) -> list[str]:
        return [i for (i,) in self.conn.execute(
            f"SELECT src {_BY_END} WHERE tenant = ? AND type = ? AND dst = ? ORDER BY src",
            (self.tenant, SUPPORTED_BY, source_id))]

    def lock_subjects(self, ids: Sequence[str]) -> None:
        """Nothing to do: the write transaction (BEGIN IMMEDIATE) serialises every writer."""

    # -- writes ---------------------------------------------------------------------------------

    def put_subjects(self, subjects: Sequence[Subject]) -> None:
        self._write("INSERT OR REPLACE INTO records (tenant, label, id, body) VALUES (?,?,?,?)",
                    [(self.tenant, SUBJECT, s.id, s.model_dump_json()) for s in subjects])
        self._write("DELETE FROM names WHERE tenant = ? AND subject = ?",
                    [(self.tenant, s.id) for s in subjects])
        self._write("INSERT OR IGNORE INTO names (tenant, name, subject) VALUES (?, ?, ?)",
                    [(self.tenant, n, s.id) for s in subjects for n in (s.id, *s.identifiers)])

    def put_sources(self, sources: Sequence[Source]) -> None:
        self._write("INSERT OR REPLACE INTO records (tenant, label, id, body) VALUES (?,?,?,?)",
                    [(self.tenant, SOURCE, s.id, s.model_dump_json()) for s in sources])

    def append_events(self, *events: Event) -> None:
        self._write("INSERT OR REPLACE INTO records (tenant, label, id, at, action, body) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    [(self.tenant, EVENT, e.id, micros(e.at), e.action, e.model_dump_json())
                     for e in events])

    def create_facts(self, facts: Sequence[Fact]) -> None:
        # As Neo4j's (tenant, id) constraint does: a version id is never written twice.
        taken = self.existing(FACT, [f.id for f in facts])
        if taken:
            raise ConflictError(f"fact {sorted(taken)[0]} already exists")
        if self.sealer is not None and self.writable:  # keys on disk before the ciphertext
            self.sealer.prepare(self.tenant, facts)
        self._put(facts)
        self._edges(ABOUT, (FACT, SUBJECT), [(f.id, f.subject, f.recorded_at,
                                              {"role": "subject"}) for f in facts])

    def add_support(self, rows: Sequence[Support]) -> None:
        self._edges(SUPPORTED_BY, (FACT, SOURCE), [
            (r.fact_id, r.source_id, r.recorded_at, {"available_at": r.available_at})
            for r in rows])

    def close_knowledge(self, rows: Sequence[Closure]) -> None:
        found = self.get_facts([r.fact_id for r in rows])
        if any(found[r.fact_id].superseded_at is not None for r in rows):
            raise ConflictError("another writer closed one of these facts first")
        self._changed(rows, lambda f, r: f.model_copy(update={
            "superseded_at": r.superseded_at, "superseded_recorded_at": r.recorded_at}))

    def link_supersedes(self, rows: Sequence[Supersession]) -> None:
        self._edges(SUPERSEDES, (FACT, FACT), [
            (r.new_id, r.old_id, r.recorded_at, {"source_id": r.source_id, "at": r.at})
            for r in rows])

    def put_derivations(self, *writes: DerivationWrite) -> None:
        for w in writes:
            d = w.derivation
            self._write("INSERT OR IGNORE INTO records (tenant, label, id, at, body) VALUES "
                        "(?, ?, ?, ?, ?)", [(self.tenant, DERIVATION, d.id,
                                             micros(w.recorded_at), d.model_dump_json())])
            self._edges(USED, (DERIVATION, FACT), [(d.id, fid, w.recorded_at, {"role": role})
                                                   for fid, role in w.used])
            self._edges(GENERATED, (DERIVATION, FACT), [(d.id, fid, w.recorded_at, {})
                                                        for fid in w.generated])

    def link_conflicts(self, rows: Sequence[Conflict]) -> None:
        self._edges(CONFLICTS_WITH, (FACT, FACT),
                    [(r.fact_id, r.other_id, r.recorded_at, {}) for r in rows])

    def invalidate_facts(self, rows: Sequence[Invalidation]) -> None:
        # Like the Neo4j query: a fact already out keeps the instant it left.
        self._changed(rows, lambda f, r: None if f.invalidated_at is not None
                      else f.model_copy(update={"invalidated_at": r.at}))

    def reopen_facts(self, rows: Sequence[Reopening]) -> None:
        self._changed(rows, lambda f, r: None if f.invalidated_at is None else f.model_copy(
            update={"invalidated_at": None, "gaps_from": (*f.gaps_from, f.invalidated_at),
                    "gaps_to": (*f.gaps_to, r.at)}))

    def set_knowledge_ends(self, rows: Sequence[KnowledgeEnd]) -> None:
        for r in rows:  # one at a time: two rows may move the same fact
            self._changed([r], _knowledge_end)

    def erase_facts(self, rows: Sequence[Erasure]) -> None:
        self._changed(rows, lambda f, r: f.model_copy(update={
            "value": "", "content_hash": ERASED, "retention_reason": None, "owner": None,
            "erased_at": r.at, "invalidated_at": f.invalidated_at or r.at}))
        # A search entry is derived from the text: erased with it.
        self._unindex([r.fact_id for r in rows])
        for r in rows:
            self.erased[r.fact_id] = r.at

    def retract_support(self, source_id: str, at: datetime) -> list[str]:
        facts = [i for (i,) in self.conn.execute(
            f"SELECT src {_BY_END} WHERE tenant = ? AND type = ? AND dst = ? AND "
            "invalidated_at IS NULL ORDER BY src", (self.tenant, SUPPORTED_BY, source_id))]
        self._write("UPDATE edges SET invalidated_at = ? WHERE tenant = ? AND type = ? AND "
                    "dst = ? AND src = ?",
                    [(micros(at), self.tenant, SUPPORTED_BY, source_id, f) for f in facts])
        held = {i for (i,) in self.conn.execute(
            f"SELECT DISTINCT src FROM edges WHERE tenant = ? AND type = ? AND src IN {IN_LIST}"
            " AND invalidated_at IS NULL", (self.tenant, SUPPORTED_BY, js(facts)))}
        return [f for f in facts if f not in held]

    def restore_support(self, source_id: str, retracted: datetime, at: datetime) -> list[str]:
        facts = [i for (i,) in self.conn.execute(
            f"SELECT src {_BY_END} WHERE tenant = ? AND type = ? AND dst = ? AND "
            "invalidated_at = ? ORDER BY src",
            (self.tenant, SUPPORTED_BY, source_id, micros(retracted)))]
        self._write("UPDATE edges SET gaps = json_insert(coalesce(gaps, '[]'), '$[#]', "
                    "json_array(invalidated_at, ?)), invalidated_at = NULL WHERE tenant = ? "
                    "AND type = ? AND dst = ? AND src = ?",
                    [(micros(at), self.tenant, SUPPORTED_BY, source_id, f) for f in facts])
        return facts


def _knowledge_end(fact: Fact, rec: KnowledgeEnd) -> Fact:
    update: dict[str, Any] = {
        "superseded_at": rec.superseded_at,
        "superseded_recorded_at": None if rec.superseded_at is None else rec.recorded_at}
    if fact.superseded_at is not None:  # the closure it replaces becomes history
        update |= {
            "past_superseded_at": (*fact.past_superseded_at, fact.superseded_at),
            "past_superseded_from": (*fact.past_superseded_from,
                                     fact.superseded_recorded_at or fact.recorded_at),
            "past_superseded_to": (*fact.past_superseded_to, rec.recorded_at)}
    return fact.model_copy(update=update)
