"""Raw Neo4j: what a developer writes by hand on the same server, for the same queries.

Every version of the corpus becomes a ``BenchRetrievalRaw`` node holding the product's own
terms (as one whitespace-separated text, under a full-text index with the whitespace
analyzer) and vector (under a native vector index, cosine), and the legal-set fields as plain
properties (epoch milliseconds). No history, sealing, sources, fusion or checks. Four queries:

* ``keyword, filtered``: the full-text index with no limit, the legality test written by hand
  in the same query's ``WHERE``, the best ``LIMIT`` by score: the speed reference for BM25;
* ``keyword, global top-k``: the same with ``{limit: LIMIT}`` on the index call, the filter
  after it (the naive shape);
* ``vector index, global top-k``: ``db.index.vector.queryNodes`` for ``LIMIT`` nearest over
  every tenant, filtered after (Neo4j 5.26's vector index cannot pre-filter);
* ``cosine, filtered``: the tenant's nodes, the legality test, exact ``vector.similarity.cosine``
  ordered: the speed reference for the semantic leg.

Latencies exclude embedding the query (done before timing). Everything is deleted at the end.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import neo4j

from bench.retrieval.queries import Query, legal
from bench.retrieval.run import LIMIT, Answer, Truth, hit, percentile
from vintage.graph.embedded.store import EmbeddedStore
from vintage.graph.retrieval.embedder import Embedder
from vintage.graph.retrieval.terms import identifiers, terms

LABEL = "BenchRetrievalRaw"
TEXT, VECTOR = "bench_retrieval_raw_text", "bench_retrieval_raw_vector"
ROWS = 2000
Result = dict[str, Any]

LEGAL = """n.tenant = $tenant AND all(t IN $scope WHERE t IN n.scope)
  AND n.available <= $known AND (n.superseded IS NULL OR $known < n.superseded)
  AND n.status IN $statuses
  AND ($valid_at IS NULL OR (n.valid_from <= $valid_at
       AND (n.valid_to IS NULL OR $valid_at < n.valid_to)
       AND (n.expires IS NULL OR $valid_at < n.expires)))"""
QUERIES = {
    "keyword, filtered": f"""CALL db.index.fulltext.queryNodes('{TEXT}', $text)
YIELD node AS n, score WHERE {LEGAL}
RETURN n.id AS id ORDER BY score DESC, id LIMIT $k""",
    "keyword, global top-k": f"""CALL db.index.fulltext.queryNodes('{TEXT}', $text, {{limit: $k}})
YIELD node AS n, score WHERE {LEGAL}
RETURN n.id AS id ORDER BY score DESC, id""",
    "vector index, global top-k": f"""CALL db.index.vector.queryNodes('{VECTOR}', $k, $vector)
YIELD node AS n, score WHERE {LEGAL}
RETURN n.id AS id ORDER BY score DESC, id""",
    "cosine, filtered": f"""MATCH (n:{LABEL} {{tenant: $tenant}}) WHERE {LEGAL}
WITH n.id AS id, vector.similarity.cosine(n.embedding, $vector) AS score
RETURN id ORDER BY score DESC, id LIMIT $k""",
}


def _ms(at: datetime | None) -> int | None:
    return None if at is None else int(at.timestamp() * 1000)


def cleanup(driver: neo4j.Driver) -> None:
    with driver.session() as s:
        s.run(f"MATCH (n:{LABEL}) CALL (n) {{ DETACH DELETE n }} IN TRANSACTIONS OF 10000 ROWS"
              ).consume()
        for name in (TEXT, VECTOR, "bench_retrieval_raw_tenant"):
            s.run(f"DROP INDEX {name} IF EXISTS").consume()


def _rows(embedded: EmbeddedStore, truth: Truth, tenants: Mapping[str, str]
          ) -> Iterator[list[Result]]:
    """The nodes to create, ``ROWS`` at a time (a vector as a list of Python floats is 12 KiB:
    all of them at once would be gigabytes)."""
    chunk: list[Result] = []
    for (tenant, fid), v in truth.items():
        entry = embedded.state.entries.get(tenants[tenant], {}).get(fid)
        if entry is None:
            continue
        chunk.append({"tenant": tenant, "id": fid, "scope": sorted(v.scope),
                      "status": v.status.value, "available": _ms(v.available),
                      "superseded": _ms(v.superseded), "expires": _ms(v.expires),
                      "valid_from": _ms(v.valid_from), "valid_to": _ms(v.valid_to),
                      "text": " ".join(entry.terms), "vector": entry.vector.tolist()})
        if len(chunk) == ROWS:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def load(driver: neo4j.Driver, embedded: EmbeddedStore, truth: Truth,
         tenants: Mapping[str, str]) -> Result:
    """Nodes for every predicted version that has an entry in the embedded store (its terms
    and vector), keyed by the logical tenant."""
    began = time.perf_counter()
    nodes = 0
    with driver.session() as s:
        s.run(f"CREATE FULLTEXT INDEX {TEXT} IF NOT EXISTS FOR (n:{LABEL}) ON EACH [n.text] "
              "OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}}").consume()
        s.run(f"CREATE VECTOR INDEX {VECTOR} IF NOT EXISTS FOR (n:{LABEL}) ON n.embedding "
              "OPTIONS {indexConfig: {`vector.dimensions`: 384, "
              "`vector.similarity_function`: 'cosine'}}").consume()
        s.run(f"CREATE INDEX bench_retrieval_raw_tenant IF NOT EXISTS FOR (n:{LABEL}) "
              "ON (n.tenant)").consume()
        for chunk in _rows(embedded, truth, tenants):
            s.execute_write(_create, chunk)
            nodes += len(chunk)
        s.run("CALL db.awaitIndexes(1200)").consume()
    return {"nodes": nodes, "seconds": time.perf_counter() - began}


def _create(tx: neo4j.ManagedTransaction, rows: list[Result]) -> None:
    tx.run(f"""UNWIND $rows AS row CREATE (n:{LABEL})
SET n += row {{.tenant, .id, .scope, .status, .available, .superseded, .expires,
               .valid_from, .valid_to, .text}}
WITH n, row CALL db.create.setNodeVectorProperty(n, 'embedding', row.vector)""",
           rows=rows).consume()


def _lucene(text: str) -> str:
    words = list(dict.fromkeys([*terms(text), *identifiers(text)]))
    return " ".join('"' + w.replace("\\", "\\\\").replace('"', '\\"') + '"' for w in words)


def compare(driver: neo4j.Driver, embedder: Embedder, queries: Sequence[Query],
            answers: Sequence[Answer], truth: Truth) -> Result:
    """Each raw query for every query with expected answers: recall@5, answers lost against
    the product's hybrid search, illegal items returned, latency."""
    hybrid = {a.query: a for a in answers if a.mode == "hybrid"}
    vectors = dict(zip([q.text for q in queries],
                       embedder.embed([q.text for q in queries]), strict=True))
    out: Result = {}
    with driver.session() as s:
        for name, cypher in QUERIES.items():
            ms, r5, lost, bad, scored = [], 0.0, 0, 0, 0
            for n, q in enumerate(queries):
                ours = hybrid.get(q.id)
                now = ours.now if ours else datetime.now(UTC)
                known = q.cutoff or now
                valid_at = q.valid_at or (None if q.all_scopes else known)
                text = _lucene(q.text)
                if "keyword" in name and not text:
                    continue
                params = {"tenant": q.tenant, "scope": [f"{k}={v}" for k, v in q.scope.items()],
                          "known": _ms(known), "valid_at": _ms(valid_at), "k": LIMIT,
                          "statuses": ["active", "conflicted"] + (
                              ["candidate"] if q.candidates else []),
                          "text": text, "vector": [float(x) for x in vectors[q.text]]}
                if n < 10:  # warm: plans and page cache
                    s.run(cypher, params).consume()
                t0 = time.perf_counter()
                ids = [r["id"] for r in s.run(cypher, params)]
                ms.append((time.perf_counter() - t0) * 1000)
                bad += sum(1 for i in ids if (q.tenant, i) not in truth
                           or not legal(q, truth[(q.tenant, i)], now))
                if q.expected:
                    scored += 1
                    r5 += hit(q, ids)[1]
                    if ours is not None:
                        lost += sum(1 for e in q.expected
                                    if e in ours.ids[:5] and e not in ids[:5])
            out[name] = {"queries": len(ms), "recall@5": r5 / scored if scored else None,
                         "answers_lost_vs_hybrid": lost, "illegal": bad,
                         "p50_ms": percentile(ms, 50), "p95_ms": percentile(ms, 95)}
    return out
