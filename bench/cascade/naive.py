"""The naive cascade, for comparison: Python walks the graph breadth-first from the corrected
fact, one query per node to find its dependents and one write per derived fact to close it.

No justification logic (every dependent is closed), no supersede of X itself, no event: strictly
less work than Vintage's cascade. Capped at :data:`NAIVE_CAP` derived facts; the time is then
projected linearly to all of them (every derived fact costs the same two round trips).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from vintage.graph.core.labels import DERIVATION, FACT, GENERATED, USED
from vintage.graph.embedded.store import EmbeddedStore
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.store.protocol import Closure

NAIVE_CAP = 5_000

_DEPENDENTS = f"""
MATCH (x:{FACT} {{tenant: $t, id: $id}})<-[:{USED}]-(d:{DERIVATION})-[:{GENERATED}]->(f:{FACT})
RETURN f.id AS id"""

_CLOSE = f"""
MATCH (f:{FACT} {{tenant: $t, id: $id}})
SET f.superseded_at = $at, f.superseded_recorded_at = $recorded"""


@dataclass(frozen=True)
class NaiveResult:
    closed: int  # derived facts actually closed (and timed)
    seconds: float
    target: int  # derived facts downstream in all

    @property
    def projected(self) -> bool:
        return self.target > self.closed

    @property
    def projected_seconds(self) -> float:
        return self.seconds * self.target / self.closed if self.closed else float("nan")

    def as_dict(self) -> dict[str, object]:
        return {"closed": self.closed, "timed_seconds": self.seconds, "target": self.target,
                "projected": self.projected, "seconds": self.projected_seconds}


def _bfs(
    start: str, dependents: Callable[[str], list[str]], close: Callable[[str], None],
    target: int, cap: int,
) -> NaiveResult:
    seen = {start}
    queue = deque([start])
    closed = 0
    began = time.perf_counter()
    while queue and closed < cap:
        node = queue.popleft()
        for fid in dependents(node):
            if fid in seen or closed >= cap:
                continue
            seen.add(fid)
            close(fid)
            closed += 1
            queue.append(fid)
    return NaiveResult(closed, time.perf_counter() - began, target)


def naive_neo4j(
    store: Neo4jStore, tenant: str, start: str, at: datetime, target: int,
    cap: int = NAIVE_CAP,
) -> NaiveResult:
    """One auto-commit query per node for its dependents, one auto-commit ``SET`` per fact."""
    with store.driver.session(database=store.database) as session:

        def dependents(fid: str) -> list[str]:
            return [r["id"] for r in session.run(_DEPENDENTS, t=tenant, id=fid)]

        def close(fid: str) -> None:
            session.run(_CLOSE, t=tenant, id=fid, at=at, recorded=store.now()).consume()

        return _bfs(start, dependents, close, target, cap)


def naive_embedded(
    store: EmbeddedStore, tenant: str, start: str, at: datetime, target: int,
    cap: int = NAIVE_CAP,
) -> NaiveResult:
    """The same walk over the networkx graph; each close is its own (fsynced) transaction."""
    g = store.graph

    def dependents(fid: str) -> list[str]:
        found = []
        for d, _, key in g.in_edges((FACT, tenant, fid), keys=True):
            if key == USED:
                found += [out[2] for _, out, k in g.out_edges(d, keys=True) if k == GENERATED]
        return found

    def close(fid: str) -> None:
        store.write(tenant, lambda tx: tx.close_knowledge([Closure(fid, at, store.now())]))

    return _bfs(start, dependents, close, target, cap)
