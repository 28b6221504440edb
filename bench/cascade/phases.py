"""Where a cascade's time goes: the reads of ``vintage.graph.writes.cascade.plan`` timed one by one,
and (Neo4j)
the planner's profile of the traversal and justification queries."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from vintage.graph.core.labels import FACT, GENERATED, USED
from vintage.graph.neo4j import cypher_lineage as lineage
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.store.protocol import Direction, Store, StoreTx
from vintage.graph.writes.cascade import MAX_DEPTH


def phases(store: Store, tenant: str, start: str) -> dict[str, float]:
    """Seconds of walk, justifications and get_facts, in one read transaction, as ``plan``
    runs them (its Python part, the topological JTMS, is the rest of the cascade)."""

    def work(tx: StoreTx) -> dict[str, float]:
        now = store.now()
        t0 = time.perf_counter()
        walk = tx.walk([start], Direction.DOWNSTREAM, now, MAX_DEPTH, (USED, GENERATED))
        t1 = time.perf_counter()
        derived = sorted(walk.ids(FACT) - {start})
        justs = tx.justifications(derived, now)
        t2 = time.perf_counter()
        inputs = {fid for j in justs for fid, _ in j.inputs}
        tx.get_facts(sorted(set(derived) | inputs))
        t3 = time.perf_counter()
        return {"walk_s": t1 - t0, "justifications_s": t2 - t1, "get_facts_s": t3 - t2,
                "reached": len(walk.reached), "edges": len(walk.edges)}

    return store.reading(tenant, work)


def _operators(node: dict[str, Any], found: list[dict[str, Any]]) -> None:
    name = str(node.get("operatorType", "?")).split("@")[0]
    found.append({"operator": name, "db_hits": node.get("dbHits", 0), "rows": node.get("rows", 0),
                  "details": str(node.get("args", {}).get("Details", ""))[:160]})
    for child in node.get("children", []):
        _operators(child, found)


def profile(store: Neo4jStore, tenant: str, start: str, at: datetime) -> dict[str, Any]:
    """PROFILE the walk's two queries and the justifications query (read-only) on ``tenant``."""
    reach = lineage.walk_reach(tenant, [start], Direction.DOWNSTREAM, at, MAX_DEPTH,
                              (USED, GENERATED))
    out: dict[str, Any] = {}
    with store.driver.session(database=store.database) as session:
        began = time.perf_counter()
        result = session.run("PROFILE " + reach.text, reach.params)
        rows = [r.data() for r in result]
        summary = result.consume()
        out["walk_reach"] = _summary(summary, time.perf_counter() - began, len(rows))
        elements = [r["element"] for r in rows]
        derived = [r["id"] for r in rows if r["label"] == FACT]
        for name, query in (
            ("walk_edges", lineage.walk_edges(tenant, elements, Direction.DOWNSTREAM, at,
                                             (USED, GENERATED))),
            ("justifications", lineage.justifications(tenant, derived, at)),
        ):
            began = time.perf_counter()
            result = session.run("PROFILE " + query.text, query.params)
            for _ in result:  # consume() alone discards: the profiler needs every row pulled
                pass
            summary = result.consume()
            out[name] = _summary(summary, time.perf_counter() - began, None)
    return out


def _summary(summary: Any, seconds: float, rows: int | None) -> dict[str, Any]:
    found: list[dict[str, Any]] = []
    if summary.profile is not None:
        _operators(dict(summary.profile), found)
    top = sorted(found, key=lambda o: -int(o["db_hits"]))[:6]
    return {"seconds": seconds, "rows": rows, "db_hits": sum(int(o["db_hits"]) for o in found),
            "plan": [o["operator"] for o in found], "top_operators": top}
