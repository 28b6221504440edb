"""Writes are retried as the driver's managed transactions were, on a real server: a transient
failure (here a deadlock Neo4j detects) runs the unit again and both writes land; a refusal for
memory is never retried (tests/test_neo4j_memory_limit.py)."""

from __future__ import annotations

import threading
import uuid
from collections import Counter

import neo4j
import pytest

from vintage.graph.neo4j.retry import committed
from vintage.graph.neo4j.store import Neo4jStore

pytestmark = pytest.mark.neo4j


def test_a_deadlock_is_retried_and_both_writes_land(neo4j_driver_store: Neo4jStore) -> None:
    tag = "retry-" + uuid.uuid4().hex[:10]
    driver = neo4j_driver_store.driver
    driver.execute_query("UNWIND ['a', 'b'] AS k CREATE (:RetryProbe {tag: $tag, k: k})",
                         tag=tag)
    both_hold_one = threading.Barrier(2, timeout=20)
    runs: Counter[str] = Counter()
    failures: list[BaseException] = []

    def writer(first: str, then: str) -> None:
        def unit(tx: neo4j.Transaction) -> None:
            runs[first] += 1
            lock = "MATCH (n:RetryProbe {tag: $tag, k: $k}) SET n.by = coalesce(n.by, []) + $me"
            tx.run(lock, tag=tag, k=first, me=first).consume()
            if runs[first] == 1:  # the first run waits until each holds its own node's lock
                both_hold_one.wait()
            tx.run(lock, tag=tag, k=then, me=first).consume()
        try:
            with driver.session() as session:
                committed(session, unit, retry_seconds=30)
        except BaseException as exc:  # reported below, not swallowed
            failures.append(exc)

    threads = [threading.Thread(target=writer, args=pair) for pair in (("a", "b"), ("b", "a"))]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert failures == []
        assert sorted(runs.values()) == [1, 2]  # the deadlock's loser ran again, once
        records, _, _ = driver.execute_query(
            "MATCH (n:RetryProbe {tag: $tag}) RETURN n.k AS k, n.by AS by ORDER BY k", tag=tag)
        assert [sorted(r["by"]) for r in records] == [["a", "b"], ["a", "b"]]
    finally:
        driver.execute_query("MATCH (n:RetryProbe {tag: $tag}) DELETE n", tag=tag)
