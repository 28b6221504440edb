"""The Neo4j schema: created idempotently, every index it declares really exists, and the ones it
retired are dropped from a store that still has them. Which query needs which index is checked
by the plans (``tests/test_neo4j_plans.py``)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from vintage.graph.neo4j.schema import RETIRED_INDEXES, SCHEMA_STATEMENTS
from vintage.graph.neo4j.store import Neo4jStore

ROOT = Path(__file__).resolve().parents[1]


def declared_names() -> set[str]:
    return {m.group(1) for s in SCHEMA_STATEMENTS
            if (m := re.match(r"CREATE (?:CONSTRAINT|INDEX) (vintage_\w+)", s))}


def server_names(store: Neo4jStore) -> tuple[set[str], set[str]]:
    with store.driver.session() as session:
        indexes = {r["name"] for r in session.run("SHOW INDEXES YIELD name")}
        constraints = {r["name"] for r in session.run("SHOW CONSTRAINTS YIELD name")}
    return indexes, constraints


def test_every_declared_constraint_and_index_exists(neo4j_driver_store: Neo4jStore) -> None:
    neo4j_driver_store.ensure_schema()
    neo4j_driver_store.ensure_schema()  # idempotent: a second run is a no-op, not an error
    indexes, constraints = server_names(neo4j_driver_store)
    assert declared_names() <= indexes | constraints
    # A constraint's backing index takes the constraint's name; an index declared under the
    # same name would silently not exist. Every declared index must be its own.
    index_names = {n for n in declared_names() if n not in constraints}
    assert index_names <= indexes
    assert len(index_names) + len(constraints & declared_names()) == len(declared_names())


def test_a_retired_index_is_dropped_from_an_existing_store(
    neo4j_driver_store: Neo4jStore,
) -> None:
    assert not set(RETIRED_INDEXES) & declared_names()  # a retired name is never reused
    with neo4j_driver_store.driver.session() as session:  # as an earlier version made it
        session.run("CREATE INDEX vintage_fact_event IF NOT EXISTS "
                    "FOR (n:Fact) ON (n.tenant, n.event_id)").consume()
    assert "vintage_fact_event" in server_names(neo4j_driver_store)[0]
    neo4j_driver_store.ensure_schema()
    assert not set(RETIRED_INDEXES) & server_names(neo4j_driver_store)[0]


def test_the_local_server_reports_nothing_home(neo4j_driver_store: Neo4jStore) -> None:
    with neo4j_driver_store.driver.session() as session:
        (row,) = session.run(
            "CALL dbms.listConfig('dbms.usage_report.enabled') YIELD name, value "
            "RETURN value").data()
    assert row["value"] == "false"


def test_the_compose_file_turns_usage_reporting_off() -> None:
    compose = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text(encoding="utf-8"))
    assert compose["services"]["neo4j"]["environment"]["NEO4J_dbms_usage__report_enabled"] == (
        "false")
