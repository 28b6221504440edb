"""Cypher builders for the Neo4j backend: pure functions from arguments to (query, params).

Values travel only as ``$params``. Labels and relationship types are interpolated, but only from
``graph.schema`` constants (checked here), never from caller strings. Each builder is covered by a
golden file in ``tests/golden/`` and by an integration test that runs it on a real server.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from graph.asof import AsOf, gap_clause, to_cypher
from graph.schema import (
    ABOUT,
    DERIVATION,
    EVENT,
    FACT,
    GENERATED,
    LABELS,
    LINEAGE_TYPES,
    SOURCE,
    SUBJECT,
    SUPERSEDES,
    SUPPORTED_BY,
    USED,
)
from graph.store import Direction

FACT_ORDER = "f.subject, f.predicate, f.valid_from, f.revision, f.id"


class Query(NamedTuple):
    text: str
    params: dict[str, Any]


def _label(label: str) -> str:
    if label not in LABELS:
        raise ValueError(f"not a Vintage label: {label!r}")
    return label


def existing(tenant: str, label: str, ids: Sequence[str]) -> Query:
    return Query(f"""
MATCH (n:{_label(label)})
WHERE n.tenant = $tenant AND n.id IN $ids
RETURN n.id AS id""", {"tenant": tenant, "ids": list(ids)})


def nodes_by_id(tenant: str, label: str, ids: Sequence[str]) -> Query:
    return Query(f"""
MATCH (n:{_label(label)})
WHERE n.tenant = $tenant AND n.id IN $ids
RETURN properties(n) AS n""", {"tenant": tenant, "ids": list(ids)})


def live_versions(tenant: str, keys: Sequence[str]) -> Query:
    return Query(f"""
MATCH (f:{FACT})
WHERE f.tenant = $tenant AND f.key IN $keys AND f.invalidated_at IS NULL
RETURN properties(f) AS f
ORDER BY f.key, f.revision""", {"tenant": tenant, "keys": list(keys)})


def history(tenant: str, key: str) -> Query:
    return Query(f"""
MATCH (f:{FACT})
WHERE f.tenant = $tenant AND f.key = $key
RETURN properties(f) AS f
ORDER BY f.revision, f.recorded_at""", {"tenant": tenant, "key": key})


def merge_subjects(tenant: str, rows: list[dict[str, Any]]) -> Query:
    # Append-only: a subject's attributes are set once, when it is first seen.
    return Query(f"""
UNWIND $rows AS row
MERGE (s:{SUBJECT} {{tenant: $tenant, id: row.id}})
ON CREATE SET s += row""", {"tenant": tenant, "rows": rows})


def create_sources(tenant: str, rows: list[dict[str, Any]]) -> Query:
    return Query(f"""
UNWIND $rows AS row
CREATE (s:{SOURCE})
SET s = row, s.tenant = $tenant""", {"tenant": tenant, "rows": rows})


def create_facts(tenant: str, rows: list[dict[str, Any]]) -> Query:
    return Query(f"""
UNWIND $rows AS row
MATCH (s:{SUBJECT} {{tenant: $tenant, id: row.subject}})
CREATE (f:{FACT})
SET f = row
CREATE (f)-[:{ABOUT} {{role: 'subject', recorded_at: row.recorded_at}}]->(s)""",
                 {"tenant": tenant, "rows": rows})


def add_support(tenant: str, rows: list[dict[str, Any]]) -> Query:
    return Query(f"""
UNWIND $rows AS row
MATCH (f:{FACT} {{tenant: $tenant, id: row.fact_id}})
MATCH (s:{SOURCE} {{tenant: $tenant, id: row.source_id}})
MERGE (f)-[r:{SUPPORTED_BY}]->(s)
ON CREATE SET r.available_at = row.available_at, r.recorded_at = row.recorded_at""",
                 {"tenant": tenant, "rows": rows})


def close_knowledge(tenant: str, rows: list[dict[str, Any]]) -> Query:
    # The IS NULL guard makes a concurrent second close match nothing; the caller compares
    # the count with the rows it sent and reports a conflict.
    return Query(f"""
UNWIND $rows AS row
MATCH (f:{FACT} {{tenant: $tenant, id: row.fact_id}})
WHERE f.superseded_at IS NULL
SET f.superseded_at = row.superseded_at, f.superseded_recorded_at = row.recorded_at
RETURN count(f) AS closed""", {"tenant": tenant, "rows": rows})


def link_supersedes(tenant: str, rows: list[dict[str, Any]]) -> Query:
    return Query(f"""
UNWIND $rows AS row
MATCH (new:{FACT} {{tenant: $tenant, id: row.new_id}})
MATCH (old:{FACT} {{tenant: $tenant, id: row.old_id}})
CREATE (new)-[:{SUPERSEDES} {{source_id: row.source_id, at: row.at,
                             recorded_at: row.recorded_at}}]->(old)""",
                 {"tenant": tenant, "rows": rows})


def create_derivation(
    tenant: str, props: dict[str, Any], used: list[dict[str, Any]], generated: list[str],
) -> Query:
    return Query(f"""
CREATE (d:{DERIVATION})
SET d = $props, d.tenant = $tenant
WITH d
CALL (d) {{
  UNWIND $used AS u
  MATCH (f:{FACT} {{tenant: $tenant, id: u.fact_id}})
  CREATE (d)-[:{USED} {{role: u.role, recorded_at: d.recorded_at}}]->(f)
}}
CALL (d) {{
  UNWIND $generated AS gid
  MATCH (f:{FACT} {{tenant: $tenant, id: gid}})
  CREATE (d)-[:{GENERATED} {{recorded_at: d.recorded_at}}]->(f)
}}""", {"tenant": tenant, "props": props, "used": used, "generated": generated})


def create_event(tenant: str, props: dict[str, Any]) -> Query:
    return Query(f"""
CREATE (e:{EVENT})
SET e = $props, e.tenant = $tenant""", {"tenant": tenant, "props": props})


def read_facts(spec: AsOf, limit: int | None) -> Query:
    where, params = to_cypher(spec, "f")
    text = f"""
MATCH (f:{FACT})
WHERE {where}
RETURN properties(f) AS f
ORDER BY {FACT_ORDER}"""
    if limit is not None:
        text += "\nLIMIT $limit"
        params["limit"] = limit
    return Query(text, params)


def supports(tenant: str, fact_ids: Sequence[str]) -> Query:
    return Query(f"""
MATCH (f:{FACT})-[r:{SUPPORTED_BY}]->(s:{SOURCE})
WHERE f.tenant = $tenant AND f.id IN $ids
RETURN f.id AS fact_id, s.id AS source_id, r.available_at AS available_at,
       r.recorded_at AS recorded_at
ORDER BY fact_id, available_at, source_id""", {"tenant": tenant, "ids": list(fact_ids)})


def events(tenant: str) -> Query:
    return Query(f"""
MATCH (e:{EVENT})
WHERE e.tenant = $tenant
RETURN properties(e) AS e
ORDER BY e.at, e.id""", {"tenant": tenant})


def _types(types: Sequence[str]) -> str:
    unknown = set(types) - set(LINEAGE_TYPES)
    if unknown or not types:
        raise ValueError(f"not lineage relationship types: {sorted(unknown) or 'none given'}")
    return "|".join(t for t in LINEAGE_TYPES if t in types)


def _step(direction: Direction, a: str, r: str, b: str) -> str:
    """Which way each edge type is walked: upstream follows edges forward, except GENERATED
    (derivation -> output), which it follows backwards; downstream is the mirror image."""
    tail = b if direction is Direction.UPSTREAM else a
    return (
        f"(type({r}) = '{GENERATED}') = (startNode({r}) = {tail})"
        f" AND {r}.recorded_at <= $at AND ({r}.invalidated_at IS NULL OR $at < {r}.invalidated_at)"
        f" AND {gap_clause(r, '$at')}"
    )


def walk_reach(
    tenant: str, ids: Sequence[str], direction: Direction, at: Any, max_depth: int,
    types: Sequence[str] = LINEAGE_TYPES,
) -> Query:
    if not isinstance(max_depth, int) or not 1 <= max_depth <= 256:
        raise ValueError("max_depth must be an integer in 1..256")
    # A quantifier bound cannot be a parameter; max_depth is a checked int, never caller text.
    return Query(f"""
MATCH (s)
WHERE s.tenant = $tenant AND s.id IN $ids AND (s:{FACT} OR s:{SOURCE} OR s:{DERIVATION})
WITH collect(s) AS starts
UNWIND starts AS s
MATCH p = (s) ((a)-[r:{_types(types)}]-(b)
  WHERE b.tenant = $tenant AND {_step(direction, "a", "r", "b")}){{1,{max_depth}}} (x)
WHERE NOT x IN starts
RETURN elementId(x) AS element, x.id AS id, head(labels(x)) AS label,
       min(length(p)) AS depth
ORDER BY depth, label, id""", {"tenant": tenant, "ids": list(ids), "at": at})


def walk_edges(
    tenant: str, elements: Sequence[str], direction: Direction, at: Any,
    types: Sequence[str] = LINEAGE_TYPES,
) -> Query:
    return Query(f"""
MATCH (a)-[r:{_types(types)}]-(b)
WHERE elementId(a) IN $elements AND b.tenant = $tenant AND {_step(direction, "a", "r", "b")}
RETURN DISTINCT startNode(r).id AS start, type(r) AS type, endNode(r).id AS end,
       properties(r) AS props""", {"tenant": tenant, "elements": list(elements), "at": at})


def justifications(tenant: str, fact_ids: Sequence[str], at: Any) -> Query:
    return Query(f"""
MATCH (d:{DERIVATION})-[g:{GENERATED}]->(f:{FACT})
WHERE f.tenant = $tenant AND f.id IN $ids AND d.tenant = $tenant
  AND g.recorded_at <= $at AND (g.invalidated_at IS NULL OR $at < g.invalidated_at)
OPTIONAL MATCH (d)-[u:{USED}]->(i:{FACT})
WHERE u.recorded_at <= $at AND (u.invalidated_at IS NULL OR $at < u.invalidated_at)
RETURN f.id AS output, properties(d) AS derivation,
       collect([i.id, u.role]) AS inputs
ORDER BY output, derivation.id""", {"tenant": tenant, "ids": list(fact_ids), "at": at})


def generated_by(tenant: str, derivation_ids: Sequence[str]) -> Query:
    return Query(f"""
MATCH (d:{DERIVATION})-[:{GENERATED}]->(f:{FACT})
WHERE d.tenant = $tenant AND d.id IN $ids
RETURN d.id AS derivation, properties(f) AS f""", {"tenant": tenant, "ids": list(derivation_ids)})


def invalidate_facts(tenant: str, rows: list[dict[str, Any]]) -> Query:
    return Query(f"""
UNWIND $rows AS row
MATCH (f:{FACT} {{tenant: $tenant, id: row.fact_id}})
WHERE f.invalidated_at IS NULL
SET f.invalidated_at = row.at""", {"tenant": tenant, "rows": rows})


def retract_support(tenant: str, source_id: str, at: Any) -> Query:
    return Query(f"""
MATCH (f:{FACT})-[r:{SUPPORTED_BY}]->(s:{SOURCE} {{tenant: $tenant, id: $source}})
WHERE r.invalidated_at IS NULL
SET r.invalidated_at = $at
WITH DISTINCT f
WHERE NOT EXISTS {{ MATCH (f)-[live:{SUPPORTED_BY}]->() WHERE live.invalidated_at IS NULL }}
RETURN f.id AS id
ORDER BY id""", {"tenant": tenant, "source": source_id, "at": at})


def retracted_at(tenant: str, source_id: str) -> Query:
    return Query(f"""
MATCH (:{FACT})-[r:{SUPPORTED_BY}]->(s:{SOURCE} {{tenant: $tenant, id: $source}})
WHERE r.invalidated_at IS NOT NULL
RETURN max(r.invalidated_at) AS at""", {"tenant": tenant, "source": source_id})


def restore_support(tenant: str, source_id: str, retracted: Any, at: Any) -> Query:
    # The retracted stretch becomes a gap in the edge's system time; history keeps it.
    return Query(f"""
MATCH (f:{FACT})-[r:{SUPPORTED_BY}]->(s:{SOURCE} {{tenant: $tenant, id: $source}})
WHERE r.invalidated_at = $retracted
SET r.gaps_from = coalesce(r.gaps_from, []) + [r.invalidated_at],
    r.gaps_to = coalesce(r.gaps_to, []) + [$at],
    r.invalidated_at = null
RETURN f.id AS id
ORDER BY id""", {"tenant": tenant, "source": source_id, "retracted": retracted, "at": at})


def reopen_facts(tenant: str, rows: list[dict[str, Any]]) -> Query:
    return Query(f"""
UNWIND $rows AS row
MATCH (f:{FACT} {{tenant: $tenant, id: row.fact_id}})
WHERE f.invalidated_at IS NOT NULL
SET f.gaps_from = coalesce(f.gaps_from, []) + [f.invalidated_at],
    f.gaps_to = coalesce(f.gaps_to, []) + [row.at],
    f.invalidated_at = null""", {"tenant": tenant, "rows": rows})


def start_elements(tenant: str, ids: Sequence[str]) -> Query:
    return Query(f"""
MATCH (s)
WHERE s.tenant = $tenant AND s.id IN $ids AND (s:{FACT} OR s:{SOURCE} OR s:{DERIVATION})
RETURN elementId(s) AS element""", {"tenant": tenant, "ids": list(ids)})


def purge_tenant(tenant: str) -> list[Query]:
    # Administrative, unaudited, Neo4j-only: tests use it to wipe exactly what they wrote.
    # One statement per label: each seeks the (tenant, id) constraint index and streams its
    # deletes in batches (a UNION would first hold every node of the tenant in memory).
    return [
        Query(f"""
MATCH (n:{label})
WHERE n.tenant = $tenant
CALL (n) {{ DETACH DELETE n }} IN TRANSACTIONS OF 5000 ROWS""", {"tenant": tenant})
        for label in LABELS
    ]
