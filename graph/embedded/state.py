"""The embedded store's in-memory state and how each logged operation changes it.

Operations apply at once, so a transaction reads its own writes exactly as it does on Neo4j;
each change pushes its inverse onto a journal, and a failing transaction is undone from it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from typing import Any

import networkx as nx

from vintage.graph.core.asof import AsOf, to_predicate
from vintage.graph.core.kinds import FactKind
from vintage.graph.core.labels import (
    ABOUT,
    CONFLICTS_WITH,
    DERIVATION,
    EVENT,
    FACT,
    GENERATED,
    SOURCE,
    SUBJECT,
    SUPERSEDES,
    SUPPORTED_BY,
    USED,
)
from vintage.graph.core.model import Event, Fact, Scope
from vintage.graph.embedded.entries import ERASED, Entry, Indexed, Unindexing
from vintage.graph.store.protocol import DerivationWrite, KnowledgeEnd

Journal = list[Callable[[], None]]
Node = tuple[str, str, str]  # (label, tenant, id)
_NODE_OPS = {"subject": SUBJECT, "source": SOURCE, "event": EVENT}


class State:
    def __init__(self) -> None:
        self.graph: Any = nx.MultiDiGraph()
        self.by_key: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.by_subject: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.by_lookup: dict[tuple[str, str, str], list[str]] = defaultdict(list)
        self.subject_ids: dict[str, list[str]] = defaultdict(list)  # per tenant, first seen first
        self.facts: dict[str, dict[str, Fact]] = defaultdict(dict)
        self.events: dict[str, list[Event]] = defaultdict(list)
        self.events_by_action: dict[tuple[str, str], list[Event]] = defaultdict(list)
        # Neighbours by edge type, both ways: a dense node (one input of 100k derivations)
        # must not be scanned whole to follow one type, as Neo4j's relationship groups avoid.
        self.out_by_type: dict[tuple[Node, str], set[Node]] = defaultdict(set)
        self.in_by_type: dict[tuple[Node, str], set[Node]] = defaultdict(set)
        # Search entries by tenant and fact id; ``generation`` moves on every change (undo
        # included), so a ranking structure built from them knows when it is stale.
        self.entries: dict[str, dict[str, Entry]] = defaultdict(dict)
        self.generation: dict[str, int] = defaultdict(int)
        self.rank_cache: dict[str, Any] = {}  # per tenant: vintage.graph.embedded.search's

    def read(self, spec: AsOf, limit: int | None = None) -> list[Fact]:
        """The as-of read for a resolved spec; the caller holds the store's lock (a write
        already does)."""
        visible = to_predicate(spec)
        tenant = spec.scope.tenant
        every = self.facts.get(tenant, {})
        # Subjects (and predicates) narrow the scan first, as the (tenant, subject,
        # predicate) index does in Neo4j.
        candidates: Iterable[Fact] = every.values()
        if spec.ids is not None:  # a search re-reading its ranked ids: no scan of the tenant
            candidates = (every[i] for i in set(spec.ids) if i in every)
        elif spec.subjects is not None and spec.predicates is not None:
            candidates = (every[i] for s in set(spec.subjects) for p in set(spec.predicates)
                          for i in self.by_lookup.get((tenant, s, p), []))
        elif spec.subjects is not None:
            candidates = (every[i] for s in set(spec.subjects)
                          for i in self.by_subject.get((tenant, s), []))
        facts = [f for f in candidates if visible(f)]
        facts.sort(key=lambda f: (f.subject, f.predicate, f.valid_from, f.revision, f.id))
        return facts if limit is None else facts[:limit]

    def facts_in(
        self, scope: Scope, kinds: Collection[FactKind] | None = None,
        keys: Collection[str] | None = None,
    ) -> list[Fact]:
        """Every version ever recorded whose scope holds all of ``scope``'s terms."""
        every = self.facts.get(scope.tenant, {})
        candidates: Iterable[Fact] = every.values()
        if keys is not None:
            candidates = (every[i] for k in set(keys)
                          for i in self.by_key.get((scope.tenant, k), []))
        terms = scope.terms()
        found = [f for f in candidates if all(t in f.scope for t in terms)
                 and (kinds is None or f.kind in kinds)]
        return sorted(found, key=lambda f: (f.key, f.revision, f.id))

    def apply(self, tenant: str, op: str, rec: Any, journal: Journal | None = None) -> None:
        j: Journal = journal if journal is not None else []
        if op in _NODE_OPS:
            if op == "subject" and (SUBJECT, tenant, rec.id) not in self.graph:
                self._append(self.subject_ids[tenant], rec.id, j)
            self._node((_NODE_OPS[op], tenant, rec.id), j, label=_NODE_OPS[op], record=rec)
            if op == "event":
                self._append(self.events[tenant], rec, j)
                self._append(self.events_by_action[(tenant, rec.action)], rec, j)
        elif op == "fact":
            self._fact(rec, j)
            self._edge((FACT, tenant, rec.id), (SUBJECT, tenant, rec.subject), ABOUT, j,
                       role="subject", recorded_at=rec.recorded_at, invalidated_at=None)
            self._append(self.by_key[(tenant, rec.key)], rec.id, j)
            self._append(self.by_subject[(tenant, rec.subject)], rec.id, j)
            self._append(self.by_lookup[(tenant, rec.subject, rec.predicate)], rec.id, j)
        elif op == "support":
            self._edge((FACT, tenant, rec.fact_id), (SOURCE, tenant, rec.source_id),
                       SUPPORTED_BY, j, available_at=rec.available_at,
                       recorded_at=rec.recorded_at, invalidated_at=None)
        elif op == "close":
            fact = self.facts[tenant][rec.fact_id]
            self._fact(fact.model_copy(update={"superseded_at": rec.superseded_at,
                                               "superseded_recorded_at": rec.recorded_at}), j)
        elif op == "supersedes":
            self._edge((FACT, tenant, rec.new_id), (FACT, tenant, rec.old_id), SUPERSEDES, j,
                       source_id=rec.source_id, at=rec.at, recorded_at=rec.recorded_at,
                       invalidated_at=None)
        elif op == "derivation":
            self._derivation(tenant, rec, j)
        elif op == "conflicts":
            self._edge((FACT, tenant, rec.fact_id), (FACT, tenant, rec.other_id),
                       CONFLICTS_WITH, j, recorded_at=rec.recorded_at, invalidated_at=None)
        elif op == "erase":
            fact = self.facts[tenant][rec.fact_id]
            self._fact(fact.model_copy(update={
                "value": "", "content_hash": ERASED, "retention_reason": None, "owner": None,
                "erased_at": rec.at, "invalidated_at": fact.invalidated_at or rec.at}), j)
            self._entry(tenant, rec.fact_id, None, j)  # derived from the text: erased with it
        elif op in ("index", "unindex"):
            self._index(tenant, rec, j)
        elif op == "invalidate":
            fact = self.facts[tenant][rec.fact_id]
            self._fact(fact.model_copy(update={"invalidated_at": rec.at}), j)
        elif op == "retract":
            u, v = (FACT, tenant, rec.fact_id), (SOURCE, tenant, rec.source_id)
            self._edge(u, v, SUPPORTED_BY, j, **{**self.graph.edges[u, v, SUPPORTED_BY],
                                                  "invalidated_at": rec.at})
        elif op == "restore":
            u, v = (FACT, tenant, rec.fact_id), (SOURCE, tenant, rec.source_id)
            data = self.graph.edges[u, v, SUPPORTED_BY]
            self._edge(u, v, SUPPORTED_BY, j, **{
                **data, "invalidated_at": None,
                "gaps_from": (*data.get("gaps_from", ()), data["invalidated_at"]),
                "gaps_to": (*data.get("gaps_to", ()), rec.at)})
        elif op == "knowledge_end":
            self._knowledge_end(self.facts[tenant][rec.fact_id], rec, j)
        elif op == "reopen":
            fact = self.facts[tenant][rec.fact_id]
            assert fact.invalidated_at is not None
            self._fact(fact.model_copy(update={
                "invalidated_at": None,
                "gaps_from": (*fact.gaps_from, fact.invalidated_at),
                "gaps_to": (*fact.gaps_to, rec.at)}), j)
        else:
            raise ValueError(f"unknown embedded log operation {op!r}")

    def _knowledge_end(self, fact: Fact, rec: KnowledgeEnd, j: Journal) -> None:
        update: dict[str, Any] = {
            "superseded_at": rec.superseded_at,
            "superseded_recorded_at": None if rec.superseded_at is None else rec.recorded_at}
        if fact.superseded_at is not None:  # the closure it replaces becomes history
            update |= {
                "past_superseded_at": (*fact.past_superseded_at, fact.superseded_at),
                "past_superseded_from": (*fact.past_superseded_from,
                                         fact.superseded_recorded_at or fact.recorded_at),
                "past_superseded_to": (*fact.past_superseded_to, rec.recorded_at)}
        self._fact(fact.model_copy(update=update), j)

    def _derivation(self, tenant: str, w: DerivationWrite, j: Journal) -> None:
        node = (DERIVATION, tenant, w.derivation.id)
        if node not in self.graph:
            self._node(node, j, label=DERIVATION, record=w.derivation, recorded_at=w.recorded_at)
        stamps = {"recorded_at": w.recorded_at, "invalidated_at": None}
        for fact_id, role in w.used:
            self._edge(node, (FACT, tenant, fact_id), USED, j, role=role, **stamps)
        for fact_id in w.generated:
            self._edge(node, (FACT, tenant, fact_id), GENERATED, j, **stamps)

    def _fact(self, fact: Fact, j: Journal) -> None:
        table = self.facts[fact.tenant]
        previous = table.get(fact.id)
        table[fact.id] = fact

        def undo() -> None:
            if previous is None:
                del table[fact.id]
            else:
                table[fact.id] = previous

        j.append(undo)
        self._node((FACT, fact.tenant, fact.id), j, label=FACT, record=fact)

    def _index(self, tenant: str, rec: Indexed | Unindexing, j: Journal) -> None:
        if isinstance(rec, Unindexing):
            self._unindex(tenant, j)
            return
        fact = self.facts[tenant].get(rec.fact_id)
        # An entry never outlives its text (its key gone, its fact erased or never there).
        if fact is not None and fact.erased_at is None and rec.entry is not None:
            self._entry(tenant, rec.fact_id, rec.entry, j)

    def _unindex(self, tenant: str, j: Journal) -> None:
        table, previous = self.entries[tenant], dict(self.entries[tenant])
        table.clear()
        self.generation[tenant] += 1

        def undo() -> None:
            table.update(previous)
            self.generation[tenant] += 1

        j.append(undo)

    def _entry(self, tenant: str, fact_id: str, entry: Entry | None, j: Journal) -> None:
        table = self.entries[tenant]
        previous = table.get(fact_id)
        if entry is None and previous is None:
            return
        if entry is None:
            del table[fact_id]
        else:
            table[fact_id] = entry
        self.generation[tenant] += 1

        def undo() -> None:
            if previous is None:
                table.pop(fact_id, None)
            else:
                table[fact_id] = previous
            self.generation[tenant] += 1  # forward only: a cache of the undone state is stale

        j.append(undo)

    def _node(self, node: Node, j: Journal, **attrs: Any) -> None:
        g = self.graph
        previous = dict(g.nodes[node]) if node in g else None
        g.add_node(node, **attrs)
        if previous is None:
            j.append(lambda: g.remove_node(node))
        else:
            j.append(lambda: g.nodes[node].update(previous))

    def _edge(self, u: Node, v: Node, key: str, j: Journal, **data: Any) -> None:
        g = self.graph
        previous = dict(g.edges[u, v, key]) if g.has_edge(u, v, key) else None
        g.add_edge(u, v, key=key, **data)
        if previous is None:
            self.out_by_type[(u, key)].add(v)
            self.in_by_type[(v, key)].add(u)

            def undo() -> None:
                g.remove_edge(u, v, key)
                self.out_by_type[(u, key)].discard(v)
                self.in_by_type[(v, key)].discard(u)

            j.append(undo)
        else:
            j.append(lambda: g.edges[u, v, key].update(previous))

    @staticmethod
    def _append(items: list[Any], item: Any, j: Journal) -> None:
        items.append(item)
        j.append(items.pop)
