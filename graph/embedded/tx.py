"""A unit of work on the embedded store: the write primitives of
``vintage.graph.store.protocol.StoreTx``.

Each write applies at once (so later reads in the same unit see it, as on Neo4j), is logged for
the commit, and is journalled so that a failing unit of work can be undone.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import FactKind
from vintage.graph.core.labels import FACT, GENERATED, LINEAGE_TYPES, SOURCE, SUPPORTED_BY, USED
from vintage.graph.core.model import Event, Fact, Scope, Source, Subject
from vintage.graph.embedded import reads
from vintage.graph.embedded.downstream import by_walk
from vintage.graph.embedded.entries import Indexed, Unindexing, checked_entry
from vintage.graph.embedded.search import unindexed_ids
from vintage.graph.embedded.state import Journal, State
from vintage.graph.retrieval.index import IndexEntry
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
    Restoration,
    Retraction,
    Supersession,
    Support,
    Walk,
    check_tenant,
)
from vintage.graph.writes.reach import MAX_DEPTH, Downstream
from vintage.graph.writes.support import confirmed


class EmbeddedTx:
    """One unit of work: each write applies at once (so later reads see it), is logged for
    the commit, and journalled for the rollback."""

    def __init__(self, state: State, tenant: str) -> None:
        self.state = state
        self.tenant = tenant
        self.ops: list[tuple[str, Any]] = []
        self.journal: Journal = []

    def _do(self, op: str, records: Sequence[Any]) -> None:
        for rec in records:
            self.state.apply(self.tenant, op, rec, self.journal)
            self.ops.append((op, rec))

    def versions(self, keys: Sequence[str]) -> dict[str, list[Fact]]:
        facts = self.state.facts[self.tenant]
        found: dict[str, list[Fact]] = {}
        for key in keys:
            live = [facts[i] for i in self.state.by_key.get((self.tenant, key), [])
                    if facts[i].invalidated_at is None]
            if live:
                found[key] = sorted(live, key=lambda f: f.revision)
        return found

    def read(self, spec: AsOf) -> list[Fact]:
        check_tenant(self.tenant, spec.scope)
        return self.state.read(spec)  # the write holds the store's lock already

    def replaced_premises(self, spec: AsOf) -> list[str]:
        # In memory the legal set is no transfer: read it, then each assertion's versions.
        keys = sorted({f.key for f in self.read(spec) if f.revision > 1})
        known = spec._instants()[0]
        graph = self.state.graph
        return sorted(v.id for vs in self.versions(keys).values() for v in vs
                      if v.superseded_at is not None and v.superseded_at <= known
                      and (FACT, self.tenant, v.id) in graph
                      and any(k == USED for _, _, k in graph.in_edges(
                          (FACT, self.tenant, v.id), keys=True)))

    def read_confirmed(self, spec: AsOf) -> list[tuple[Fact, Confirmation | None]]:
        facts = self.read(spec)
        known_at, system_at = spec._instants()
        edges = reads.supports(self.state, self.tenant, [f.id for f in facts], system_at)
        seen = confirmed(edges, known_at)
        return [(f, seen.get(f.id)) for f in facts]

    def facts_in(
        self, scope: Scope, kinds: Sequence[FactKind] | None = None,
        keys: Sequence[str] | None = None,
    ) -> list[Fact]:
        check_tenant(self.tenant, scope)
        return self.state.facts_in(scope, kinds, keys)

    def top_revisions(self, keys: Sequence[str]) -> dict[str, int]:
        facts = self.state.facts[self.tenant]
        by_key = self.state.by_key
        return {k: max(facts[i].revision for i in by_key[(self.tenant, k)])
                for k in keys if by_key.get((self.tenant, k))}

    def existing(self, label: str, ids: Sequence[str]) -> set[str]:
        return {i for i in ids if (label, self.tenant, i) in self.state.graph}

    def get_sources(self, ids: Sequence[str]) -> dict[str, Source]:
        return {s.id: s for s in reads.records(self.state, SOURCE, self.tenant, ids)}

    def subjects(self, names: Sequence[str] | None = None) -> list[Subject]:
        return reads.subjects(self.state, self.tenant, names)

    def get_facts(self, ids: Sequence[str]) -> dict[str, Fact]:
        facts = self.state.facts[self.tenant]
        return {i: facts[i] for i in ids if i in facts}

    def supports_of(self, fact_ids: Sequence[str]) -> list[Support]:
        return reads.supports(self.state, self.tenant, fact_ids, None)  # the lock is held

    def put_subjects(self, subjects: Sequence[Subject]) -> None:
        self._do("subject", subjects)

    def put_sources(self, sources: Sequence[Source]) -> None:
        self._do("source", sources)

    def create_facts(self, facts: Sequence[Fact]) -> None:
        # As Neo4j's (tenant, id) constraint does: a version id is never written twice.
        taken = [f.id for f in facts if f.id in self.state.facts[self.tenant]]
        if taken:
            raise ConflictError(f"fact {taken[0]} already exists")
        self._do("fact", facts)

    def add_support(self, rows: Sequence[Support]) -> None:
        self._do("support", rows)

    def close_knowledge(self, rows: Sequence[Closure]) -> None:
        facts = self.state.facts[self.tenant]
        if any(facts[r.fact_id].superseded_at is not None for r in rows):
            raise ConflictError("another writer closed one of these facts first")
        self._do("close", rows)

    def link_supersedes(self, rows: Sequence[Supersession]) -> None:
        self._do("supersedes", rows)

    def put_derivations(self, *writes: DerivationWrite) -> None:
        self._do("derivation", writes)

    def append_events(self, *events: Event) -> None:
        self._do("event", events)

    def invalidate_facts(self, rows: Sequence[Invalidation]) -> None:
        # Like the Neo4j query: a fact already out keeps the instant it left.
        facts = self.state.facts[self.tenant]
        self._do("invalidate", [r for r in rows if facts[r.fact_id].invalidated_at is None])

    def lock_subjects(self, ids: Sequence[str]) -> None:
        """Nothing to do: the store's own lock already serialises every write."""

    def link_conflicts(self, rows: Sequence[Conflict]) -> None:
        self._do("conflicts", rows)

    def erase_facts(self, rows: Sequence[Erasure]) -> None:
        self._do("erase", rows)

    def retract_support(self, source_id: str, at: datetime) -> list[str]:
        g = self.state.graph
        node = (SOURCE, self.tenant, source_id)
        if node not in g:
            return []
        facts = sorted(src[2] for src, _, key, data in g.in_edges(node, keys=True, data=True)
                       if key == SUPPORTED_BY and data["invalidated_at"] is None)
        self._do("retract", [Retraction(fid, source_id, at) for fid in facts])
        return [fid for fid in facts if not any(
            key == SUPPORTED_BY and data["invalidated_at"] is None
            for _, _, key, data in g.out_edges((FACT, self.tenant, fid), keys=True, data=True))]

    def retracted_at(self, source_id: str) -> datetime | None:
        node = (SOURCE, self.tenant, source_id)
        if node not in self.state.graph:
            return None
        closed = [data["invalidated_at"] for _, _, key, data
                  in self.state.graph.in_edges(node, keys=True, data=True)
                  if key == SUPPORTED_BY and data["invalidated_at"] is not None]
        return max(closed, default=None)

    def ever_supported_by(self, source_id: str) -> list[str]:
        node = (SOURCE, self.tenant, source_id)
        if node not in self.state.graph:
            return []
        return sorted({src[2] for src, _, key in self.state.graph.in_edges(node, keys=True)
                       if key == SUPPORTED_BY})

    def restore_support(self, source_id: str, retracted: datetime, at: datetime) -> list[str]:
        node = (SOURCE, self.tenant, source_id)
        facts = sorted(src[2] for src, _, key, data
                       in self.state.graph.in_edges(node, keys=True, data=True)
                       if key == SUPPORTED_BY and data["invalidated_at"] == retracted)
        self._do("restore", [Restoration(fid, source_id, at) for fid in facts])
        return facts

    def set_knowledge_ends(self, rows: Sequence[KnowledgeEnd]) -> None:
        self._do("knowledge_end", rows)

    def reopen_facts(self, rows: Sequence[Reopening]) -> None:
        facts = self.state.facts[self.tenant]
        self._do("reopen", [r for r in rows if facts[r.fact_id].invalidated_at is not None])

    def walk(
        self, start_ids: Sequence[str], direction: Direction, at: datetime, max_depth: int,
        types: Sequence[str] = LINEAGE_TYPES,
    ) -> Walk:
        return reads.walk(self.state, self.tenant, start_ids, direction, at, max_depth, types)

    def justifications(self, fact_ids: Sequence[str], at: datetime) -> list[Justification]:
        return reads.justifications(self.state, self.tenant, fact_ids, at)

    def input_sources(self, fact_ids: Sequence[str], known_at: datetime,
                      system_at: datetime) -> dict[str, tuple[Source, ...]]:
        # The reference model: each item's own walk, then its inputs' supports.
        found: dict[str, tuple[Source, ...]] = {}
        for item in sorted(set(fact_ids)):
            walk = self.walk([item], Direction.UPSTREAM, system_at, MAX_DEPTH,
                             types=(USED, GENERATED))
            inputs = sorted(walk.ids(FACT))
            cited = {e.source_id for e in reads.supports(self.state, self.tenant, inputs,
                                                         system_at)
                     if e.available_at <= known_at}
            if cited:
                found[item] = tuple(sorted(self.get_sources(sorted(cited)).values(),
                                           key=lambda s: (s.available_at, s.id)))
        return found

    def downstream(self, start_ids: Sequence[str], at: datetime) -> Downstream:
        return by_walk(self, list(start_ids), at)

    def generated_by(self, derivation_ids: Sequence[str]) -> dict[str, Fact]:
        return reads.generated_by(self.state, self.tenant, derivation_ids)

    def unindexed(self, model: str, limit: int) -> list[Fact]:
        facts = self.state.facts[self.tenant]
        due = heapq.nsmallest(max(limit, 0), unindexed_ids(self.state, self.tenant, model))
        return [facts[i] for i in due]

    def put_index(self, entries: Sequence[IndexEntry]) -> None:
        checked = [(e.fact_id, checked_entry(e)) for e in entries]
        facts = self.state.facts[self.tenant]
        self._do("index", [Indexed(i, e, facts[i].sealed) for i, e in checked
                           if i in facts and facts[i].erased_at is None])

    def clear_index(self) -> int:
        dropped = len(self.state.entries[self.tenant])
        if dropped:  # nothing to drop: nothing logged
            self._do("unindex", [Unindexing()])
        return dropped

    def cited_with_subjects(self, spec: AsOf) -> tuple[list[Cited], list[Subject]]:
        cited = reads.cited(self.state, spec, self.read(spec))
        names = {f.subject for f, _ in cited}
        return cited, [s for s in reads.subjects(self.state, self.tenant, sorted(names))
                       if s.id in names]  # by id only, as on Neo4j
