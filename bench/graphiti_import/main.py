"""Import a synthetic Graphiti graph written by graphiti-core, and time it.

The graph: ``--edges`` edges, each "<person> works at <company>" from an episode of its own,
and a fifth of them restated (Graphiti invalidated the old edge and added a new one), all in
one group; embeddings from Vintage's local model, no LLM (tests/graphiti_graph.py). Timed, in
one run on one server: reading the graph alone (the plain Cypher the import runs), planning it
(the gates, on every edge and episode: no store), the first
import (trusted, so the facts are active), a second run (idempotent: nothing written) and a
dry run; the ratio of the first import to the read says what writing costs over reading.
"""

from __future__ import annotations

import argparse
import time
import uuid
from datetime import UTC, datetime, timedelta

import neo4j

from tests.graphiti_graph import GraphitiGraph, delete, save
from vintage.graph.neo4j import launcher
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.store.backends import system_clock
from vintage.ingest.graphiti.plan import plan_graph
from vintage.ingest.graphiti.read import read_graph
from vintage.ingest.graphiti.run import import_graphiti

DAY = timedelta(days=1)


def build(group: str, edges: int) -> GraphitiGraph:
    g = GraphitiGraph()
    start = datetime(2024, 1, 1, tzinfo=UTC)
    companies = [g.entity(group, f"Company {i}", "Organization", start) for i in range(20)]
    for i in range(edges):
        at = start + i * DAY / 10
        person = g.entity(group, f"Person {i}", "Person", at)
        said = g.episode(group, f"e{i}", f"user: Person {i} works at Company {i % 20}.", at)
        restated = i % 5 == 0
        ended = at + 30 * DAY
        g.edge(person, "WORKS_AT", companies[i % 20], f"Person {i} works at Company {i % 20}",
               valid_at=at, created_at=at, episodes=[said],
               invalid_at=ended if restated else None,
               expired_at=ended + DAY if restated else None)
        if restated:
            moved = g.episode(group, f"m{i}", f"user: Person {i} moved to Company "
                                              f"{(i + 1) % 20}.", ended + DAY)
            g.edge(person, "WORKS_AT", companies[(i + 1) % 20],
                   f"Person {i} works at Company {(i + 1) % 20}", valid_at=ended,
                   created_at=ended + DAY, episodes=[moved])
    return g


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--edges", type=int, default=500)
    args = parser.parse_args()
    uri = launcher.ensure_running()
    auth = launcher.auth()
    group, tenant = f"bench-{uuid.uuid4().hex[:8]}", f"bench-{uuid.uuid4().hex[:8]}"
    graph = build(group, args.edges)
    began = time.perf_counter()
    save(uri, auth, graph)
    saved = time.perf_counter() - began
    store = Neo4jStore.connect(uri, system_clock, auth=auth)
    store.ensure_schema()
    try:
        timed: dict[str, float] = {}
        began = time.perf_counter()
        read = read_graph(store.run, [group])
        timed["read"] = time.perf_counter() - began
        began = time.perf_counter()
        plan_graph(read, tenant, frozenset([group]))  # the gates run here, per record
        timed["plan"] = time.perf_counter() - began
        began = time.perf_counter()
        dry = import_graphiti(store, tenant, [group], actor="bench", trusted=[group],
                              dry_run=True)
        timed["dry run"] = time.perf_counter() - began
        began = time.perf_counter()
        first = import_graphiti(store, tenant, [group], actor="bench", trusted=[group])
        timed["import"] = time.perf_counter() - began
        began = time.perf_counter()
        again = import_graphiti(store, tenant, [group], actor="bench", trusted=[group])
        timed["again"] = time.perf_counter() - began
        print(f"graph: {len(graph.entities)} entities, {len(graph.episodes)} episodes, "
              f"{len(graph.edges)} edges; saved by graphiti-core in {saved:.1f} s")
        print(f"dry run: {dry.facts_created} facts planned; import: {first.facts_created} facts, "
              f"{first.superseded} superseded; again: {again.facts_created} facts, "
              f"{again.unchanged} unchanged, {len(again.events)} events")
        for name, seconds in timed.items():
            print(f"{name:8} {seconds:7.2f} s  {seconds / timed['read']:6.1f}x the read")
        print(f"import: {first.facts_created / timed['import']:.0f} facts/s")
    finally:
        store.purge_tenant(tenant)
        store.close()
        with neo4j.GraphDatabase.driver(uri, auth=auth) as driver:
            delete(driver, group)
    return 0
