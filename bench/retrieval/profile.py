"""What bounds a slow search: a cProfile of the path and, on Neo4j, the plan of the ranking
query with its database hits (``PROFILE``). Run by ``bench.retrieval`` when a latency target
is missed, so that the report says where the time goes rather than only that it went."""

from __future__ import annotations

import cProfile
import io
import pstats
import time
from collections.abc import Mapping, Sequence
from typing import Any

from bench.retrieval.queries import Query
from bench.retrieval.run import request
from vintage.graph.neo4j import cypher_search
from vintage.graph.neo4j.search import blind
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.retrieval.embedder import Embedder, query_vector
from vintage.graph.retrieval.index import TextQuery, index_key
from vintage.graph.retrieval.terms import identifiers, query_terms
from vintage.graph.store.protocol import Store
from vintage.queries.search.fusion import REACH, Mode, per_leg
from vintage.queries.search.request import legal_spec
from vintage.queries.search.run import search

Result = dict[str, Any]


def cprofile(store: Store, embedder: Embedder, queries: Sequence[Query],
             tenants: Mapping[str, str], mode: Mode = Mode.HYBRID, top: int = 30) -> str:
    """The functions that took the time of ``queries`` in ``mode`` (cumulative, top ``top``)."""
    profile = cProfile.Profile()
    profile.enable()
    for q in queries:
        try:
            search(store, embedder, request(q, mode, tenants))
        except Exception:  # a failed search is reported by the run, not here
            continue
    profile.disable()
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(top)
    return out.getvalue()


def _operators(plan: Any, depth: int = 0) -> list[str]:
    args = plan.get("args", {}) if isinstance(plan, dict) else {}
    name = plan.get("operatorType", "?") if isinstance(plan, dict) else "?"
    line = (f"{'  ' * depth}{name}  rows={plan.get('rows', '?')} dbHits={plan.get('dbHits', '?')}"
            f"  {str(args.get('Details', ''))[:100]}")
    children = plan.get("children", []) if isinstance(plan, dict) else []
    return [line] + [x for c in children for x in _operators(c, depth + 1)]


def neo4j_plan(store: Neo4jStore, embedder: Embedder, q: Query,
               tenants: Mapping[str, str]) -> Result:
    """``PROFILE`` of the first ranking query a hybrid search of ``q`` sends, and the time of
    each step a search takes around it (embedding, ranking, the whole search)."""
    req = request(q, Mode.HYBRID, tenants)
    spec = legal_spec(store, req)
    t0 = time.perf_counter()
    vector = query_vector(embedder, q.text)
    embed_ms = (time.perf_counter() - t0) * 1000
    words = tuple(query_terms(q.text))
    idents = tuple(identifiers(q.text))
    text = TextQuery(words, idents, vector, index_key(embedder.name), REACH * per_leg(req.limit))
    t0 = time.perf_counter()
    hits = store.rank(spec, text)
    rank_ms = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    search(store, embedder, req)
    search_ms = (time.perf_counter() - t0) * 1000
    tokens = blind(store.sealer, spec.scope.tenant, list(dict.fromkeys([*words, *idents])),
                   create=False)
    built = cypher_search.rank(spec, list(tokens.values()),
                               [tokens[t] for t in idents if t in tokens], vector,
                               embedder.name, REACH * per_leg(req.limit))
    with store.driver.session(database=store.database) as session:
        summary = session.run("PROFILE " + built.text, built.params).consume()
    plan = summary.profile or {}
    return {"query": q.id, "text": q.text, "legal_set": hits.legal, "matched": hits.matched,
            "embed_ms": embed_ms, "rank_ms": rank_ms, "search_ms": search_ms,
            "server_ms": (summary.result_available_after or 0)
            + (summary.result_consumed_after or 0),
            "operators": _operators(plan)[:60]}


def slowest(queries: Sequence[Query], ms: Mapping[str, float], n: int) -> list[Query]:
    """The ``n`` queries with the highest latency in ``ms`` (query id -> ms)."""
    return sorted(queries, key=lambda q: -ms.get(q.id, 0.0))[:n]

