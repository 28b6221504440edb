"""The plans of the hot-path Cypher: every builder's query, as the backend sends it, is EXPLAINed
on a real server over a small SEC-like tenant, and must reach its nodes by seeks of the indexes
named for it here, never by a scan (of all nodes, a label, a relationship type or a whole index).

The expected indexes tie ``graph/neo4j/schema.py`` to the queries: a declared index that no case
expects is one that no query needs (``test_every_index_on_the_server_is_one_some_query_seeks``).
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import pytest

from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import FactKind, Status
from vintage.graph.core.labels import (
    DERIVATION,
    FACT,
    GENERATED,
    LABELS,
    SOURCE,
    SUBJECT,
    SUPPORTED_BY,
    USED,
)
from vintage.graph.core.model import FactIn, Scope, SourceIn, Subject
from vintage.graph.core.temporal import as_of, from_to, parse_instant
from vintage.graph.derivations.derived import Output, derive
from vintage.graph.derivations.recipes import expression
from vintage.graph.neo4j import cypher, cypher_held
from vintage.graph.neo4j import cypher_lineage as lineage
from vintage.graph.neo4j import cypher_reads as reads
from vintage.graph.neo4j import cypher_search as search
from vintage.graph.neo4j.schema import FACT_TEXT, SCHEMA_STATEMENTS
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.store.capabilities import known_now
from vintage.graph.store.protocol import Direction
from vintage.graph.writes.corrections import restore_source, retract_source
from vintage.graph.writes.semantics import Batch, record

SUBJECTS = ("GOOGL", "NVDA", "TSLA")
PREDICATES = ("Revenues", "OperatingIncomeLoss", "NetIncomeLoss", "CostOfRevenue")
QUARTERS = [parse_instant(d) for d in ("2018-01-01", "2018-04-01", "2018-07-01", "2018-10-01",
                                       "2019-01-01")]
CUTOFF = parse_instant("2018-06-30")  # an early knowledge cutoff: the 10-K/A is not public yet
START = parse_instant("2020-01-01")  # system time of the first write


@dataclass
class Planted:
    """What the module's tenant holds: enough of every label and edge type that the planner
    has statistics to plan by, and real ids and keys for the parameters."""

    tenant: str
    now: datetime
    facts: list[str] = field(default_factory=list)  # observations, Q1 first
    keys: list[str] = field(default_factory=list)
    derived: list[str] = field(default_factory=list)
    derivations: list[str] = field(default_factory=list)

    @property
    def scope(self) -> Scope:
        return Scope(tenant=self.tenant)

    def rows(self, **row: Any) -> list[dict[str, Any]]:
        return [{"fact_id": self.facts[0], "at": self.now, **row}]


class _Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def _plant(store: Neo4jStore, clock: _Clock, tenant: str) -> Planted:
    scope = Scope(tenant=tenant)
    sources = [SourceIn(id="10-Q", kind="filing", available_at=parse_instant("2018-04-24")),
               SourceIn(id="10-K", kind="filing", available_at=parse_instant("2019-02-05"))]
    facts = [FactIn(subject=s, predicate=p, value=100 * (i + 1) + j, unit="USD",
                    valid_from=QUARTERS[i], valid_to=QUARTERS[i + 1], source=src.id)
             for s in SUBJECTS for j, p in enumerate(PREDICATES) for i in range(4)
             for src in sources]
    record(store, scope, Batch(subjects=[Subject(id=s, kind="company") for s in SUBJECTS],
                               sources=sources, facts=facts), actor="plans")
    clock.now += timedelta(hours=1)
    restated = SourceIn(id="10-K/A", kind="filing", available_at=parse_instant("2019-04-30"))
    record(store, scope, Batch(sources=[restated], facts=[
        FactIn(subject=s, predicate="OperatingIncomeLoss", value=7, unit="USD",
               valid_from=QUARTERS[0], valid_to=QUARTERS[1], source=restated.id)
        for s in SUBJECTS]), actor="plans")
    current = store.read(AsOf(scope, predicates=("Revenues", "NetIncomeLoss")))
    planted = Planted(tenant, clock.now, facts=[f.id for f in current],
                      keys=sorted({f.key for f in current}))
    margin = expression("margin", "1", "100 * income / revenue")
    for subject in SUBJECTS:
        mine = {f.predicate: f.id for f in current
                if f.subject == subject and f.valid_from == QUARTERS[0]}
        made = derive(store, scope, margin, {"income": mine["NetIncomeLoss"],
                                             "revenue": mine["Revenues"]},
                      Output(subject, "NetMargin", QUARTERS[0], QUARTERS[1], "percent"),
                      actor="plans")
        planted.derived.append(made.fact.id)
        planted.derivations.append(made.derivation_id)
    clock.now += timedelta(hours=1)  # a retraction undone: gaps on support edges and facts
    retract_source(store, scope, "10-K", actor="plans", reason="plans")
    clock.now += timedelta(hours=1)
    restore_source(store, scope, "10-K", actor="plans", reason="plans")
    clock.now += timedelta(hours=1)
    planted.now = clock.now
    return planted


@pytest.fixture(scope="module")
def planted(neo4j_driver_store: Neo4jStore) -> Iterator[Planted]:
    clock = _Clock()
    store = Neo4jStore(neo4j_driver_store.driver, clock)
    tenant = "t-plans-" + uuid.uuid4().hex[:12]
    try:
        yield _plant(store, clock, tenant)
    finally:
        neo4j_driver_store.purge_tenant(tenant)


def _read(p: Planted, **spec: Any) -> AsOf:
    return AsOf(p.scope, **spec).resolved(p.now)


KEYS = {label: f"vintage_{label.lower()}_key" for label in LABELS}  # the constraints
STARTS = {KEYS[FACT], KEYS[SOURCE], KEYS[DERIVATION]}
RANGES = {"vintage_fact_available", "vintage_fact_recorded", "vintage_fact_valid"}
TEXT = FACT_TEXT
Build = Callable[[Planted], cypher.Query]


def _purge(i: int) -> Build:  # one statement per label, in LABELS order
    return lambda p: cypher.purge_tenant(p.tenant)[i]


# case -> (the query as the backend builds it, the indexes its plan may seek: at least one).
CASES: dict[str, tuple[Build, set[str]]] = {
    "read_facts/question": (lambda p: reads.read_facts(_read(
        p, known_at=CUTOFF, subjects=("GOOGL", "NVDA"), predicates=PREDICATES[:2]), None),
        {"vintage_fact_lookup"}),
    "read_facts/subjects": (lambda p: reads.read_facts(_read(p, subjects=("GOOGL",)), None),
                            {"vintage_fact_lookup"}),
    # Without subjects the planner seeks whichever range index it estimates narrowest.
    "read_facts/tenant": (lambda p: reads.read_facts(_read(p), None), RANGES),
    "read_facts/cutoff": (lambda p: reads.read_facts(_read(p, known_at=CUTOFF), 20), RANGES),
    "read_facts/valid_instant": (lambda p: reads.read_facts(
        _read(p, valid=as_of(QUARTERS[1])), None), RANGES),
    "read_facts/valid_window": (lambda p: reads.read_facts(
        _read(p, known_at=CUTOFF, valid=from_to(QUARTERS[0], QUARTERS[2])), None), RANGES),
    "read_facts/memory": (lambda p: reads.read_facts(_read(
        p, statuses=frozenset({Status.ACTIVE, Status.CONFLICTED}),
        kinds=(FactKind.PREFERENCE, FactKind.INFERENCE)), None), RANGES),
    # What closes a search's notices (queries.search.closed): the tenant's derivations by their
    # key's prefix, then each used version's assertion by the (tenant, key) seek; never the
    # legal set's range indexes (a scan of a 100k tenant per search).
    "replaced_premises": (lambda p: reads.replaced_premises(_read(p, known_at=CUTOFF)),
                          {KEYS[DERIVATION], "vintage_fact_assertion"}),
    "read_cited_facts": (lambda p: reads.read_cited_facts(_read(
        p, known_at=CUTOFF, subjects=("GOOGL",), predicates=("Revenues",)), 5),
        {"vintage_fact_lookup"}),
    # A search re-reads its ranked ids with their citations: one key seek each, never the
    # tenant's range index (unhinted, the planner chose it on the retrieval bench's 100k
    # tenant and read 50k facts per search; on this small data it picks the key either way).
    "read_cited_facts/ids": (lambda p: reads.read_cited_facts(_read(
        p, known_at=CUTOFF, ids=tuple(p.facts[:3])), None), {KEYS[FACT]}),
    # ... and the subjects those name, by the subject key, in the same query.
    "read_cited_with_subjects": (lambda p: reads.read_cited_with_subjects(_read(
        p, known_at=CUTOFF, ids=tuple(p.facts[:3]))), {KEYS[FACT], KEYS[SUBJECT]}),
    "read_confirmed_facts": (lambda p: reads.read_confirmed_facts(_read(
        p, subjects=SUBJECTS, predicates=("Revenues",))), {"vintage_fact_lookup"}),
    # What a tenant holds (vintage stats): every fact it knows now, grouped in the server, by
    # whichever range index the planner estimates narrowest; each source, by its key's tenant
    # prefix, asked for one support of such a fact.
    "held_facts": (lambda p: cypher_held.held_facts(known_now(p.tenant).resolved(p.now), []),
                   RANGES),
    "held_sources": (lambda p: cypher_held.held_sources(known_now(p.tenant).resolved(p.now),
                                                        []), {KEYS[SOURCE]}),
    # The sealed facts' ids: the key index gives them by the tenant's prefix, which the planner
    # takes on this small data (on 50,059 memory versions it took the available_at range).
    "held_sealed": (lambda p: cypher_held.held_sealed(known_now(p.tenant).resolved(p.now)),
                    RANGES | {KEYS[FACT]}),
    "supports": (lambda p: reads.supports(p.tenant, p.facts[:3]), {KEYS[FACT]}),
    "supports/live": (lambda p: reads.supports(p.tenant, p.facts[:3], p.now), {KEYS[FACT]}),
    "confirmations": (lambda p: reads.confirmations(p.tenant, p.facts[:3], CUTOFF, p.now),
                      {KEYS[FACT]}),
    "history": (lambda p: cypher.history(p.tenant, p.keys[0]), {"vintage_fact_assertion"}),
    "live_versions": (lambda p: cypher.live_versions(p.tenant, p.keys[:3]),
                      {"vintage_fact_assertion"}),
    "top_revisions": (lambda p: cypher.top_revisions(p.tenant, p.keys[:3]),
                      {"vintage_fact_assertion"}),
    "facts_in": (lambda p: cypher.facts_in(p.scope), {"vintage_fact_assertion"}),
    "facts_in/narrowed": (lambda p: cypher.facts_in(p.scope, (FactKind.DERIVED,), p.keys[:2]),
                          {"vintage_fact_assertion"}),
    "events": (lambda p: reads.events(p.tenant), {"vintage_event_at"}),
    "events/actions": (lambda p: reads.events(p.tenant, ["retract", "restore"]),
                       {"vintage_event_action"}),
    "existing": (lambda p: cypher.existing(p.tenant, SUBJECT, SUBJECTS), {KEYS[SUBJECT]}),
    "nodes_by_id/fact": (lambda p: cypher.nodes_by_id(p.tenant, FACT, p.facts[:3]),
                         {KEYS[FACT]}),
    "nodes_by_id/source": (lambda p: cypher.nodes_by_id(p.tenant, SOURCE, ["10-Q", "10-K"]),
                           {KEYS[SOURCE]}),
    "walk_reach/explain": (lambda p: lineage.walk_reach(
        p.tenant, p.derived[:1], Direction.UPSTREAM, p.now, 32), STARTS),
    "walk_reach/cascade": (lambda p: lineage.walk_reach(
        p.tenant, p.facts[:3], Direction.DOWNSTREAM, p.now, 32, (USED, GENERATED)), STARTS),
    "walk_reach/cited": (lambda p: lineage.walk_reach(
        p.tenant, ["10-K"], Direction.DOWNSTREAM, p.now, 1, (SUPPORTED_BY,)), STARTS),
    "start_elements": (lambda p: lineage.start_elements(p.tenant, [p.derived[0], "10-K"]),
                       STARTS),
    "walk_edges": (lambda p: lineage.walk_edges(
        p.tenant, ["4:00000000-0000-0000-0000-000000000000:1"], Direction.UPSTREAM, p.now),
        set()),  # an elementId seek: no index
    "justifications": (lambda p: lineage.justifications(p.tenant, p.derived, p.now),
                       {KEYS[FACT]}),
    "downstream_level": (lambda p: lineage.downstream_level(p.tenant, p.facts[:3], p.now),
                         {KEYS[FACT]}),
    "generated_by": (lambda p: lineage.generated_by(p.tenant, p.derivations),
                     {KEYS[DERIVATION]}),
    "retract_support": (lambda p: lineage.retract_support(p.tenant, "10-Q", p.now),
                        {KEYS[SOURCE]}),
    "retracted_at": (lambda p: lineage.retracted_at(p.tenant, "10-K"), {KEYS[SOURCE]}),
    "ever_supported_by": (lambda p: lineage.ever_supported_by(p.tenant, "10-K"),
                          {KEYS[SOURCE]}),
    "restore_support": (lambda p: lineage.restore_support(p.tenant, "10-K", p.now, p.now),
                        {KEYS[SOURCE]}),
    "invalidate_facts": (lambda p: lineage.invalidate_facts(p.tenant, p.rows()), {KEYS[FACT]}),
    "reopen_facts": (lambda p: lineage.reopen_facts(p.tenant, p.rows()), {KEYS[FACT]}),
    "set_knowledge_ends": (lambda p: lineage.set_knowledge_ends(p.tenant, p.rows(
        superseded_at=None, recorded_at=p.now)), {KEYS[FACT]}),
    "erase_facts": (lambda p: lineage.erase_facts(p.tenant, p.rows()), {KEYS[FACT]}),
    "close_knowledge": (lambda p: cypher.close_knowledge(p.tenant, p.rows(
        superseded_at=p.now, recorded_at=p.now)), {KEYS[FACT]}),
    "link_supersedes": (lambda p: cypher.link_supersedes(p.tenant, [{
        "new_id": p.facts[1], "old_id": p.facts[0], "source_id": "10-K", "at": p.now,
        "recorded_at": p.now}]), {KEYS[FACT]}),
    "link_conflicts": (lambda p: cypher.link_conflicts(p.tenant, [{
        "fact_id": p.facts[0], "other_id": p.facts[1], "recorded_at": p.now}]), {KEYS[FACT]}),
    "add_support": (lambda p: cypher.add_support(p.tenant, p.rows(
        source_id="10-K", available_at=p.now, recorded_at=p.now)),
        {KEYS[FACT], KEYS[SOURCE]}),
    "merge_subjects": (lambda p: cypher.merge_subjects(p.tenant, [{"id": "GOOGL"}]),
                       {KEYS[SUBJECT]}),
    "lock_subjects": (lambda p: cypher.lock_subjects(p.tenant, SUBJECTS), {KEYS[SUBJECT]}),
    "subjects": (lambda p: reads.subjects(p.tenant, ["GOOGL", "cik:0001045810", "ticker:NVDA"]),
                 {KEYS[SUBJECT]}),
    "subjects/all": (lambda p: reads.subjects(p.tenant), {KEYS[SUBJECT]}),
    "create_facts": (lambda p: cypher.create_facts(p.tenant, [{"id": "new", "subject": "NVDA"}]),
                     {KEYS[SUBJECT]}),
    "create_derivations": (lambda p: cypher.create_derivations(p.tenant, [{
        "props": {"id": "d-new"}, "used": [{"fact_id": p.facts[0], "role": "x"}],
        "generated": p.facts[1:2]}]), {KEYS[FACT]}),
    "create_sources": (lambda p: cypher.create_sources(p.tenant, [{"id": "s-new"}]), set()),
    "create_events": (lambda p: cypher.create_events(p.tenant, [{"id": "e-new"}]), set()),
    **{f"purge_tenant/{label}": (_purge(i), {KEYS[label]}) for i, label in enumerate(LABELS)},
    # The search index: its queue, its entries, and ranking inside the legal set. The full-text
    # procedure is no scan: Lucene finds the entries carrying the tokens asked for.
    "unindexed": (lambda p: search.unindexed(p.tenant, "minilm", 100),
                  {"vintage_unindexed", "vintage_fact_model"}),
    "unindexed/after": (lambda p: search.unindexed(p.tenant, "minilm", 100, p.facts[0]),
                        {"vintage_unindexed", "vintage_fact_model"}),
    "clear_entries": (lambda p: search.clear_entries(p.tenant, 10_000), {"vintage_fact_model"}),
    "index_targets": (lambda p: search.index_targets(p.tenant, p.facts[:3]), {KEYS[FACT]}),
    "put_entries": (lambda p: search.put_entries(p.tenant, [
        {"id": p.facts[0], "terms": "t.0 b.1", "vector": [0.6, 0.8], "model": "minilm"}]),
        {KEYS[FACT]}),
    "rank/memory": (lambda p: search.rank(_read(
        p, kinds=(FactKind.PREFERENCE,)), ["b.1", "b.2"], ["b.2"], [0.6, 0.8], "minilm", 5),
        {TEXT}),
    "rank/memory/deeper": (lambda p: search.rank(_read(
        p, kinds=(FactKind.PREFERENCE,)), ["b.1", "b.2"], ["b.2"], [0.6, 0.8], "minilm", 10,
        counted=False), {TEXT}),
    "rank/tenant": (lambda p: search.rank(_read(p, known_at=CUTOFF), ["b.1"], [], None, None,
                                          10), {TEXT}),
    "rank/subjects": (lambda p: search.rank(_read(
        p, subjects=("GOOGL",), predicates=("Revenues",)), ["b.1"], ["b.1"], [1.0], "m", 5),
        {TEXT, "vintage_fact_lookup"}),
    "rank/ids": (lambda p: search.rank(_read(p, ids=tuple(p.facts[:3])), [], [], [1.0], "m", 5),
                 {KEYS[FACT]}),
    # A search asking its cut legs for the candidates they missed
    # (vintage.queries.search.run._rescore).
    "rank/rescore": (lambda p: search.rank(_read(p, ids=tuple(p.facts[:3])), ["b.1"], [],
                                           [1.0], "m", 3, counted=False), {KEYS[FACT], TEXT}),
}

_INDEX = re.compile(r"(?:CONSTRAINT|INDEX) (vintage_\w+) IF NOT EXISTS FOR \(n:(\w+)\) "
                    r"(?:ON|REQUIRE) \(([^)]*)\)")
_SEEK = re.compile(r"(?:RANGE INDEX|UNIQUE) \w+:(\w+)\(([^)]*)\)")
# A full-text index is named by the query (the plan shows it as a parameter).
_FULLTEXT = re.compile(r"db\.index\.fulltext\.queryNodes\('(\w+)'")


def _declared() -> dict[tuple[str, str], str]:
    """(label, properties) -> the name of the index or constraint the schema declares."""
    found = {}
    for statement in SCHEMA_STATEMENTS:
        if m := _INDEX.search(statement):
            found[(m.group(2), m.group(3).replace("n.", ""))] = m.group(1)
    return found


def _operators(plan: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(operator name without its ``@neo4j`` or ``(Locking)`` decoration, details), each node."""
    name = re.sub(r"\(.*\)$", "", plan["operatorType"].split("@")[0])
    yield name, str(plan.get("args", {}).get("Details", ""))
    for child in plan.get("children", []):
        yield from _operators(child)


def _problems(plan: dict[str, Any], allowed: set[str],
              text: str = "") -> tuple[list[str], set[str]]:
    declared = _declared()
    problems, used = [], set()
    for name, details in _operators(plan):
        if name.endswith("Scan"):  # AllNodesScan, NodeByLabelScan, NodeIndexScan, ...
            problems.append(f"{name}: {details[:160]}")
        if name == "ProcedureCall" and "db.index.fulltext.queryNodes" in details:
            used.update(_FULLTEXT.findall(text))
        for label, props in _SEEK.findall(details) if name.endswith("Seek") else ():
            used.add(declared.get((label, props), f"undeclared {label}({props})"))
    if used - allowed:
        problems.append(f"seeks {sorted(used - allowed)}, expected only {sorted(allowed)}")
    if allowed and not used:
        problems.append(f"seeks no index; expected one of {sorted(allowed)}")
    return problems, used


def explain(store: Neo4jStore, query: cypher.Query) -> dict[str, Any]:
    # replan=force: a plan cached when the database was empty would say nothing of this one.
    with store.driver.session() as session:
        plan = session.run(f"EXPLAIN CYPHER replan=force {query.text}",
                           query.params).consume().plan
    assert plan is not None
    return dict(plan)


def _checked(store: Neo4jStore, query: cypher.Query, allowed: set[str]) -> list[str]:
    """The plan's problems, after giving stale index statistics a few seconds to catch up: the
    shared server's tenants come and go, and a sample taken while an index was near empty
    makes a full index scan look cheap until the next one."""
    for _ in range(10):
        problems, _used = _problems(explain(store, query), allowed, query.text)
        if not problems:
            return []
        with store.driver.session() as session:
            session.run("CALL db.resampleOutdatedIndexes()").consume()
        time.sleep(1)
    return problems


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_plan_seeks_the_indexes_named_for_it(
    case: str, planted: Planted, neo4j_driver_store: Neo4jStore,
) -> None:
    build, allowed = CASES[case]
    assert _checked(neo4j_driver_store, build(planted), allowed) == []


def test_every_index_on_the_server_is_one_some_query_seeks(
    neo4j_driver_store: Neo4jStore,
) -> None:
    neo4j_driver_store.ensure_schema()  # retired indexes are dropped from existing stores
    with neo4j_driver_store.driver.session() as session:
        present = {r["name"] for r in session.run(
            "SHOW INDEXES YIELD name WHERE name STARTS WITH 'vintage_' RETURN name")}
    assert present == set().union(*(allowed for _, allowed in CASES.values()))

