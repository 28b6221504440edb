"""A Neo4j transaction: the ``vintage.graph.store.protocol.StoreTx`` primitives, each one builder of
``vintage.graph.neo4j.cypher`` run in the driver's managed transaction (rows converted by
``vintage.graph.neo4j.rows``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from datetime import datetime
from typing import Any

from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import FactKind
from vintage.graph.core.labels import FACT, LINEAGE_TYPES, SOURCE
from vintage.graph.core.model import Event, Fact, Scope, Source, Subject
from vintage.graph.neo4j import cypher, procedures, ranker
from vintage.graph.neo4j import cypher_lineage as lineage
from vintage.graph.neo4j import cypher_reads as reads
from vintage.graph.neo4j.downstream import read_downstream
from vintage.graph.neo4j.rows import (
    Runner,
    as_dicts,
    derivation_from,
    derivation_props,
    fact_from,
    fact_row,
    native,
    native_props,
    parse_utc,
    source_from,
    subject_from,
    support_from,
)
from vintage.graph.sealing.sealed import Sealer
from vintage.graph.store.protocol import (
    Closure,
    Confirmation,
    Conflict,
    ConflictError,
    DerivationWrite,
    Direction,
    Edge,
    Erasure,
    Invalidation,
    Justification,
    KnowledgeEnd,
    Reached,
    Reopening,
    Supersession,
    Support,
    Walk,
    check_tenant,
)
from vintage.graph.writes.reach import MAX_DEPTH, Affected, Downstream


class Neo4jTx:
    def __init__(self, tx: Runner, tenant: str, sealer: Sealer | None = None,
                 procedures: bool = False, writing: bool = False) -> None:
        self.tx = tx
        self.tenant = tenant
        self.sealer = sealer
        self.procedures = procedures  # the server has the plugin's (graph.neo4j.procedures)
        # A write on such a server names its tenant to the ranker before its first statement
        # (vintage.graph.neo4j.ranker): the tenant's columns go, and stay out until this one ends.
        self.unannounced = writing and procedures
        self.erased: dict[str, datetime] = {}  # whose keys go once this commits

    def _announce(self) -> None:
        if self.unannounced:
            self.unannounced = False
            mark = ranker.search_write(self.tenant)
            self.tx.run(mark.text, mark.params).consume()

    def _run(self, query: cypher.Query, announce: bool = True) -> list[dict[str, Any]]:
        """``announce``: false only for a statement that touches no search entry."""
        if announce:
            self._announce()
        return as_dicts(self.tx.run(query.text, query.params))

    def _batch(self, build: Callable[[str, Any], cypher.Query], items: Sequence[Any],
               announce: bool = True) -> list[dict[str, Any]]:
        """Run ``build(tenant, items)``, or nothing for no items: an empty batch reads and
        changes nothing, and would still cost a round trip."""
        return self._run(build(self.tenant, items), announce) if items else []

    def _records(self, build: Callable[[str, list[dict[str, Any]]], cypher.Query],
                 rows: Sequence[Any]) -> list[dict[str, Any]]:
        """``_batch`` of ``vintage.graph.store.protocol`` row dataclasses (flat: strings and
        instants), sent as
        ``$rows`` maps. Shallow: ``asdict`` deep-copies every datetime, 0.6 s of an 11k
        cascade."""
        return self._batch(build, [{f.name: getattr(r, f.name) for f in fields(r)}
                                   for r in rows])

    def lock_subjects(self, ids: Sequence[str]) -> None:
        self._batch(cypher.lock_subjects, ids)

    def versions(self, keys: Sequence[str]) -> dict[str, list[Fact]]:
        found: dict[str, list[Fact]] = {}
        for row in self._run(cypher.live_versions(self.tenant, keys)):
            fact = fact_from(row["f"], self.sealer)
            found.setdefault(fact.key, []).append(fact)
        return found

    def read(self, spec: AsOf) -> list[Fact]:
        # No clock here: the caller resolves "now" (compiling an unresolved spec raises).
        check_tenant(self.tenant, spec.scope)
        facts = [fact_from(r["f"], self.sealer) for r in self._run(reads.read_facts(spec, None))]
        return [f for f in facts if f.erased_at is None]  # a restored backup's erased facts

    def replaced_premises(self, spec: AsOf) -> list[str]:
        check_tenant(self.tenant, spec.scope)
        return [r["id"] for r in self._run(reads.replaced_premises(spec), announce=False)]

    def read_confirmed(self, spec: AsOf) -> list[tuple[Fact, Confirmation | None]]:
        check_tenant(self.tenant, spec.scope)
        found = [(fact_from(r["f"], self.sealer), None if r["first_source"] is None else
                  Confirmation(r["first_source"], parse_utc(r["first_at"]),
                               parse_utc(r["last_at"])))
                 for r in self._run(reads.read_confirmed_facts(spec))]
        return [(f, c) for f, c in found if f.erased_at is None]

    def facts_in(
        self, scope: Scope, kinds: Sequence[FactKind] | None = None,
        keys: Sequence[str] | None = None,
    ) -> list[Fact]:
        check_tenant(self.tenant, scope)
        return [fact_from(r["f"], self.sealer)
                for r in self._run(cypher.facts_in(scope, kinds, keys))]

    def top_revisions(self, keys: Sequence[str]) -> dict[str, int]:
        return {r["key"]: r["revision"] for r in self._batch(cypher.top_revisions, keys)}

    def existing(self, label: str, ids: Sequence[str]) -> set[str]:
        rows = self._batch(lambda tenant, i: cypher.existing(tenant, label, i), ids)
        return {r["id"] for r in rows}

    def get_sources(self, ids: Sequence[str]) -> dict[str, Source]:
        rows = self._batch(lambda tenant, i: cypher.nodes_by_id(tenant, SOURCE, i), ids)
        return {s.id: s for s in map(source_from, (r["n"] for r in rows))}

    def subjects(self, names: Sequence[str] | None = None) -> list[Subject]:
        return [subject_from(r) for r in self._run(reads.subjects(self.tenant, names))]

    def get_facts(self, ids: Sequence[str]) -> dict[str, Fact]:
        rows = self._batch(lambda tenant, i: cypher.nodes_by_id(tenant, FACT, i), ids)
        return {f.id: f for f in (fact_from(r["n"], self.sealer) for r in rows)}

    def supports_of(self, fact_ids: Sequence[str]) -> list[Support]:
        return [support_from(r) for r in self._batch(reads.supports, fact_ids)]

    def put_subjects(self, subjects: Sequence[Subject]) -> None:
        rows = [{k: v for k, v in s.model_dump().items() if v is not None} for s in subjects]
        for row in rows:
            row["identifiers"] = list(row["identifiers"])
        self._batch(cypher.merge_subjects, rows)

    def put_sources(self, sources: Sequence[Source]) -> None:
        rows = [s.model_dump(mode="python", exclude_none=True) for s in sources]
        for row, source in zip(rows, sources, strict=True):
            row["kind"] = source.kind.value
            if source.authority is not None:
                row["authority"] = int(source.authority)
        self._batch(cypher.create_sources, rows)

    def create_facts(self, facts: Sequence[Fact]) -> None:
        if self.sealer is not None:  # keys on disk before any ciphertext under them
            self.sealer.prepare(self.tenant, facts)
        self._batch(cypher.create_facts, [fact_row(f, self.sealer) for f in facts])

    def add_support(self, rows: Sequence[Support]) -> None:
        self._records(cypher.add_support, rows)

    def close_knowledge(self, rows: Sequence[Closure]) -> None:
        closed = self._records(cypher.close_knowledge, rows)
        if closed and closed[0]["closed"] != len(rows):
            raise ConflictError(cypher.CLOSED_FIRST)

    def link_supersedes(self, rows: Sequence[Supersession]) -> None:
        self._records(cypher.link_supersedes, rows)

    def put_derivations(self, *writes: DerivationWrite) -> None:
        self._batch(cypher.create_derivations, [{
            "props": derivation_props(w.derivation, w.recorded_at),
            "used": [{"fact_id": fid, "role": role} for fid, role in w.used],
            "generated": list(w.generated)} for w in writes])

    def walk(
        self, start_ids: Sequence[str], direction: Direction, at: datetime, max_depth: int,
        types: Sequence[str] = LINEAGE_TYPES,
    ) -> Walk:
        # Reach (one variable-length traversal), then the live edges among it. Nothing reached,
        # not even a start from another: no edge leaves a start (its other end would be
        # reached), so a walk from items with no lineage (most memories, a correction with
        # nothing downstream) is one query.
        found = self._run(lineage.walk_reach(self.tenant, start_ids, direction, at, max_depth,
                                            types))
        if not found:
            return Walk((), ())
        reach = [r for r in found if not r["start"]]
        frontier = [r["element"] for r in self._run(lineage.start_elements(self.tenant,
                                                                          start_ids))]
        frontier += [r["element"] for r in reach if r["depth"] < max_depth]
        edges = {
            Edge(r["start"], r["type"], r["end"], native_props(r["props"]))
            for r in self._run(lineage.walk_edges(self.tenant, frontier, direction, at, types))
        }
        reached = tuple(Reached(r["id"], r["label"], r["depth"]) for r in reach)
        return Walk(reached, tuple(sorted(edges, key=lambda e: (e.type, e.start, e.end))))

    def input_sources(self, fact_ids: Sequence[str], known_at: datetime,
                      system_at: datetime) -> dict[str, tuple[Source, ...]]:
        rows = self._run(lineage.input_sources(self.tenant, fact_ids, known_at, system_at,
                                               MAX_DEPTH), announce=False) if fact_ids else []
        return {r["item"]: tuple(source_from(s) for s in r["sources"]) for r in rows}

    def justifications(self, fact_ids: Sequence[str], at: datetime) -> list[Justification]:
        rows = self._batch(lambda tenant, ids: lineage.justifications(tenant, ids, at), fact_ids)
        return [
            Justification(derivation_from(r["derivation"]), r["output"],
                          tuple(sorted((i, role) for i, role in r["inputs"] if i is not None)))
            for r in rows
        ]

    def link_conflicts(self, rows: Sequence[Conflict]) -> None:
        self._records(cypher.link_conflicts, rows)

    def erase_facts(self, rows: Sequence[Erasure]) -> None:
        self._records(lineage.erase_facts, rows)
        self.erased.update((r.fact_id, r.at) for r in rows)

    def invalidate_facts(self, rows: Sequence[Invalidation]) -> None:
        self._records(lineage.invalidate_facts, rows)

    def retract_support(self, source_id: str, at: datetime) -> list[str]:
        return [r["id"] for r in self._run(lineage.retract_support(self.tenant, source_id, at))]

    def retracted_at(self, source_id: str) -> datetime | None:
        rows = self._run(lineage.retracted_at(self.tenant, source_id))
        at: datetime | None = native(rows[0]["at"]) if rows else None
        return at

    def ever_supported_by(self, source_id: str) -> list[str]:
        return [r["id"] for r in self._run(lineage.ever_supported_by(self.tenant, source_id))]

    def restore_support(self, source_id: str, retracted: datetime, at: datetime) -> list[str]:
        query = lineage.restore_support(self.tenant, source_id, retracted, at)
        return [r["id"] for r in self._run(query)]

    def reopen_facts(self, rows: Sequence[Reopening]) -> None:
        self._records(lineage.reopen_facts, rows)

    def set_knowledge_ends(self, rows: Sequence[KnowledgeEnd]) -> None:
        self._records(lineage.set_knowledge_ends, rows)

    def downstream(self, start_ids: Sequence[str], at: datetime) -> Downstream:
        return read_downstream(self.tx, self.tenant, start_ids, at, self.get_facts)

    def close_cascade(self, changed: Mapping[str, datetime | None], axis: str,
                      at: datetime) -> list[Affected] | None:
        if not self.procedures:
            return None
        self._announce()
        return procedures.decided(self.tx, self.tenant, changed, axis, at, self.get_facts,
                                  close=True)

    def generated_by(self, derivation_ids: Sequence[str]) -> dict[str, Fact]:
        rows = self._run(lineage.generated_by(self.tenant, derivation_ids))
        return {r["derivation"]: fact_from(r["f"], self.sealer) for r in rows}

    def append_events(self, *events: Event) -> None:
        # Not announced to the ranker: an event is no search entry, and a transaction that
        # only records one (a context's trace) leaves the tenant's columns in use.
        self._batch(cypher.create_events, [{
            **e.model_dump(exclude={"details"}, exclude_none=True),
            "details": json.dumps(e.details, sort_keys=True)} for e in events], announce=False)
