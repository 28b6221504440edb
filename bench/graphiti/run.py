"""Graphiti's side of the comparison: the graph written with graphiti-core, the questions asked
with its ``search_()``, and both systems' answers scored by one rule.

The write uses Graphiti's own objects and ``add_nodes_and_edges_bulk`` (in chunks), with the
same embedding model as the engine (``vintage.queries.eval.graphiti``'s clients: the LLM client
raises if ever called). A question is asked as ``bench.graphiti.graph`` builds it: its date
filters, its readable groups, BM25 alone or BM25 and cosine fused by RRF, top ``LIMIT``.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from bench.graphiti.graph import Edge, Group, filters, readable
from bench.retrieval.queries import Query, legal
from bench.retrieval.run import LIMIT, Answer, Truth, hit, percentile, timed_search
from vintage.graph.retrieval.embedder import Embedder, query_vector
from vintage.queries.search.fusion import Mode

os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"  # before graphiti_core is imported

from vintage.queries.eval.graphiti import (
    _clients,
    search_config,
    search_filters_from,
)

CHUNK = 2000  # edges per write transaction
WARMUP = 20
ROOM = 10  # ``with_room``: Graphiti asked again at ten times the limit
NS = uuid.UUID("0b1d7c2e-34a5-4f0e-8c59-1f6f5c7a9d10")
Result = dict[str, Any]


def edge_uuid(version: str) -> str:
    return str(uuid.uuid5(NS, version))


class Graphiti:
    """One graphiti-core client on the bench's server, driven from synchronous code."""

    def __init__(self, uri: str, auth: tuple[str, str] | None, embedder: Embedder) -> None:
        from graphiti_core import Graphiti as Client
        from graphiti_core.driver.neo4j_driver import Neo4jDriver

        self.loop = asyncio.new_event_loop()
        self.embedder = embedder
        user, password = auth or (None, None)
        emb, llm, cross = _clients(embedder)

        async def made() -> Any:
            driver = Neo4jDriver(uri, user, password)
            await driver.build_indices_and_constraints()
            return Client(graph_driver=driver, llm_client=llm, embedder=emb,
                          cross_encoder=cross)

        self.client = self.loop.run_until_complete(made())
        self.by_uuid: dict[str, str] = {}  # edge uuid -> version id

    def write(self, edges: Sequence[Edge], say: Callable[[str], None]) -> Result:
        from graphiti_core.edges import EntityEdge
        from graphiti_core.nodes import EntityNode
        from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

        began = time.perf_counter()
        model = 0.0
        nodes: dict[tuple[str, str], str] = {}
        for e in edges:
            for name in (e.source, e.name):
                nodes.setdefault((e.group, name), str(uuid.uuid5(NS, f"{e.group}\x1f{name}")))
        done = 0
        saved: set[tuple[str, str]] = set()  # entity nodes written by an earlier chunk
        for start in range(0, len(edges), CHUNK):
            part = edges[start:start + CHUNK]
            fresh = sorted({(e.group, n) for e in part for n in (e.source, e.name)} - saved)
            t0 = time.perf_counter()
            vectors = self.embedder.embed([n for _, n in fresh] + [e.fact for e in part])
            model += time.perf_counter() - t0
            entity_nodes = [EntityNode(uuid=nodes[k], name=k[1], group_id=k[0], labels=[],
                                       created_at=min(e.created_at for e in part),
                                       name_embedding=[float(x) for x in vectors[i]])
                            for i, k in enumerate(fresh)]
            entity_edges = [EntityEdge(
                uuid=edge_uuid(e.id), group_id=e.group, name=e.name, fact=e.fact,
                source_node_uuid=nodes[(e.group, e.source)],
                target_node_uuid=nodes[(e.group, e.name)], created_at=e.created_at,
                expired_at=e.expired_at, valid_at=e.valid_at, invalid_at=e.invalid_at,
                reference_time=e.created_at, episodes=[],
                fact_embedding=[float(x) for x in vectors[len(fresh) + i]])
                for i, e in enumerate(part)]
            self.loop.run_until_complete(add_nodes_and_edges_bulk(
                self.client.driver, [], [], entity_nodes, entity_edges, self.client.embedder))
            saved.update(fresh)
            for e in part:
                self.by_uuid[edge_uuid(e.id)] = e.id
            done += len(part)
            say(f"  graphiti: {done:,} of {len(edges):,} edges written")
        seconds = time.perf_counter() - began
        return {"edges": len(edges), "nodes": len(nodes), "seconds": seconds,
                "model_seconds": model, "store_seconds": seconds - model}

    def ask(self, q: Query, method: str, groups: Mapping[str, Group], now: datetime,
            limit: int = LIMIT) -> Answer:
        names = readable(q, groups)
        mode = f"graphiti-{method}"
        t0 = time.perf_counter()
        if not names:  # Graphiti reads an empty list as every group
            return Answer(q.id, mode, (), (), (time.perf_counter() - t0) * 1000, 0, 0, now)
        try:
            vector = [float(x) for x in query_vector(self.embedder, q.text)]
            found = self.loop.run_until_complete(self.client.search_(
                q.text, config=search_config(method, limit), group_ids=names,
                search_filter=search_filters_from(filters(q, now)),
                query_vector=vector))
        except Exception as e:  # a failed search is a finding: recorded, the run goes on
            return Answer(q.id, mode, (), (), (time.perf_counter() - t0) * 1000, 0, 0, now,
                          error=f"{type(e).__name__}: {str(e)[:300]}")
        ms = (time.perf_counter() - t0) * 1000
        ids = tuple(self.by_uuid.get(e.uuid, e.uuid) for e in found.edges)
        return Answer(q.id, mode, ids, ids, ms, 0, 0, now)

    def close(self) -> None:
        try:
            self.loop.run_until_complete(self.client.close())
        finally:
            self.loop.close()


def interleaved(g: Graphiti, vintage: Any, embedder: Any, queries: Sequence[Query],
                tenants: Mapping[str, str], groups: Mapping[str, Group],
                now: Callable[[], datetime], say: Callable[[str], None]) -> list[Answer]:
    """Every question asked of the four searches in turn (Vintage keyword and hybrid, Graphiti
    BM25 and hybrid), so that a change in the shared machine's load falls on all four alike.
    Each question's vector is computed before any search is timed: both systems get it from the
    same cache, and neither pays the model inside its latency (``embed_ms`` says what that
    costs per question, the same for both)."""
    t0 = time.perf_counter()
    for q in queries:
        query_vector(embedder, q.text)
    say(f"  {len(queries)} questions embedded in {time.perf_counter() - t0:.1f} s")
    asks: list[Callable[[Query], Answer]] = [
        lambda q: timed_search(vintage, embedder, q, Mode.KEYWORD, tenants),
        lambda q: timed_search(vintage, embedder, q, Mode.HYBRID, tenants),
        lambda q: g.ask(q, "bm25", groups, now()),
        lambda q: g.ask(q, "hybrid", groups, now())]
    for q in queries[:WARMUP]:
        for ask in asks:
            ask(q)
    began = time.perf_counter()
    out = [ask(q) for q in queries for ask in asks]
    say(f"  {len(queries)} questions x 4 searches in {time.perf_counter() - began:.1f} s")
    return out


def with_room(g: Graphiti, answers: Sequence[Answer], queries: Sequence[Query],
              groups: Mapping[str, Group], now: Callable[[], datetime]) -> list[Answer]:
    """Graphiti's answers, each with what the same search ranks when given ``ROOM`` times the
    limit (its ``considered``; untimed, after the timed run): Graphiti takes its full-text and
    cosine limits before its date and group filters, so a legal answer it ranks in its first
    ``LIMIT`` with room can be missing at ``LIMIT`` (the issue's probe: 1 legal hit of 23 at
    limit 10, 5 at limit 50). Vintage's ``considered`` is already its ranking of the legal set."""
    by_id = {q.id: q for q in queries}
    out = []
    for a in answers:
        q = by_id[a.query]
        if a.mode.startswith("graphiti-") and q.expected and a.error is None:
            wide = g.ask(q, a.mode.removeprefix("graphiti-"), groups, now(), LIMIT * ROOM)
            out.append(replace(a, considered=wide.ids))
        else:
            out.append(a)
    return out


def why_illegal(q: Query, i: str, truth: Truth, now: datetime) -> str | None:
    """None for a legal item; else the first broken rule, in the order a reader minds it."""
    v = truth.get((q.tenant, i))
    if v is None:
        return "unknown"
    if legal(q, v, now):
        return None
    known = q.cutoff or now
    if v.tenant != q.tenant or not (q.all_scopes or all(
            f"{k}={x}" in v.scope for k, x in q.scope.items())):
        return "cross_scope"
    if v.available > known:
        return "not_yet_public"
    if v.superseded is not None and v.superseded <= known:
        return "stale"
    return "other"  # a candidate, an expired item, outside its valid time


def side_by_side(queries: Sequence[Query], answers: Sequence[Answer], truth: Truth) -> Result:
    """Per system and mode: answers right (recall@1, @5), illegal items by kind, legal results
    lost (expected answers not among the at most ``LIMIT`` answers returned), latency."""
    by_id = {q.id: q for q in queries}
    out: Result = {}
    for mode in sorted({a.mode for a in answers}):
        rows = [(by_id[a.query], a) for a in answers if a.mode == mode]
        scored = [(q, a) for q, a in rows if q.expected]
        kinds: dict[str, int] = {"stale": 0, "not_yet_public": 0, "cross_scope": 0,
                                 "other": 0, "unknown": 0}
        for q, a in rows:
            for i in a.ids:
                why = why_illegal(q, i, truth, a.now)
                if why is not None:
                    kinds[why] += 1
        ms = [a.ms for _, a in rows if a.error is None]
        memories = [a.ms for q, a in rows if q.tenant != "sec" and a.error is None]
        filings = [a.ms for q, a in rows if q.tenant == "sec" and a.error is None]
        out[mode] = {
            "queries": len(rows), "scored": len(scored),
            "recall@1": sum(hit(q, a.ids)[0] for q, a in scored) / len(scored) if scored else None,
            "recall@5": sum(hit(q, a.ids)[1] for q, a in scored) / len(scored) if scored else None,
            # What the search returned: at most LIMIT answers (Graphiti: edges; Vintage shows a
            # conflict set's sides together as one answer, so an 11th item can be shown).
            "legal_lost": sum(len(set(q.expected) - set(a.ids)) for q, a in scored),
            # Of those, the ones its own ranking of the legal set puts in the first ``LIMIT``
            # (Vintage: held back by its relevance verdict; Graphiti: ranked there when given
            # room, ``with_room``, so cut by a limit taken before its filters); the others
            # ranked below ``LIMIT`` legal items or not at all (a ranking miss).
            "lost_within_own_top": sum(
                1 for q, a in scored for e in q.expected
                if e not in a.ids and e in a.considered[:LIMIT]),
            # Each lost answer: the question, the id, and where the search had it (its rank in
            # what it considered, past the limit or below an abstention; None: not at all).
            "lost": [{"query": q.id, "text": q.text, "expected": e, "shown": len(a.ids),
                      "considered_rank": a.considered.index(e) + 1 if e in a.considered
                      else None}
                     for q, a in scored for e in q.expected if e not in a.ids],
            "expected": sum(len(q.expected) for q, _ in scored),
            "illegal": kinds, "errors": sum(a.error is not None for _, a in rows),
            "p50_ms": percentile(ms, 50), "p95_ms": percentile(ms, 95),
            "memories_p95_ms": percentile(memories, 95), "filings_p95_ms": percentile(filings, 95),
        }
    return out
