"""The Neo4j schema: created idempotently, and every index it declares really exists."""

from __future__ import annotations

import re

from graph.neo4j.schema import SCHEMA_STATEMENTS
from graph.neo4j.store import Neo4jStore


def declared_names() -> set[str]:
    return {m.group(1) for s in SCHEMA_STATEMENTS if (m := re.search(r"(vintage_\w+)", s))}


def test_every_declared_constraint_and_index_exists(neo4j_driver_store: Neo4jStore) -> None:
    neo4j_driver_store.ensure_schema()
    neo4j_driver_store.ensure_schema()  # idempotent: a second run is a no-op, not an error
    with neo4j_driver_store.driver.session() as session:
        indexes = {r["name"] for r in session.run("SHOW INDEXES YIELD name")}
        constraints = {r["name"] for r in session.run("SHOW CONSTRAINTS YIELD name")}
    assert declared_names() <= indexes | constraints
    # A constraint's backing index takes the constraint's name; an index declared under the
    # same name would silently not exist. Every declared index must be its own.
    index_names = {n for n in declared_names() if n not in constraints}
    assert index_names <= indexes
    assert len(index_names) + len(constraints & declared_names()) == len(declared_names())


def test_the_assertion_key_lookup_seeks_an_index(neo4j_driver_store: Neo4jStore) -> None:
    with neo4j_driver_store.driver.session() as session:
        plan = session.run(
            "EXPLAIN MATCH (f:Fact) WHERE f.tenant = $t AND f.key IN $k RETURN f",
            {"t": "x", "k": ["a"]},
        ).consume().plan
    assert "NodeIndexSeek" in str(plan)
