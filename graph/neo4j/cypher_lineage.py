"""Cypher builders for lineage: walks, justifications, exits (invalidate, retract, restore) and
the knowledge ends they move.

Same rules as ``vintage.graph.neo4j.cypher``: pure functions to (query, params), values only as
``$params``, relationship types only from ``vintage.graph.core.labels`` constants; each has a golden
file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vintage.graph.core.asof import holds_at
from vintage.graph.core.labels import (
    CONFLICTS_WITH,
    DERIVATION,
    FACT,
    GENERATED,
    LINEAGE_TYPES,
    SOURCE,
    SUPPORTED_BY,
    UNINDEXED,
    USED,
)
from vintage.graph.neo4j.cypher import LOCKED_READ, Query, fact_map, seek, source_map
from vintage.graph.neo4j.params import grouped
from vintage.graph.store.protocol import Direction

WALKABLE = (*LINEAGE_TYPES, CONFLICTS_WITH)  # a conflict set is walked like lineage
# The labels a walk can start from, named in its MATCH: the planner then seeks each label's
# (tenant, id) constraint index (a union of seeks) instead of scanning every node.
_STARTS = f"{FACT}|{SOURCE}|{DERIVATION}"
_AND = "\n  AND "  # holds_at's clauses, one a line


def _types(types: Sequence[str]) -> str:
    unknown = set(types) - set(WALKABLE)
    if unknown or not types:
        raise ValueError(f"not walkable relationship types: {sorted(unknown) or 'none given'}")
    return "|".join(t for t in WALKABLE if t in types)


def _step(direction: Direction, a: str, r: str, b: str) -> str:
    """Which way each edge type is walked: upstream follows edges forward, except GENERATED
    (derivation -> output), which it follows backwards; downstream is the mirror image."""
    tail = b if direction is Direction.UPSTREAM else a
    return f"(type({r}) = '{GENERATED}') = (startNode({r}) = {tail}) AND {holds_at(r, '$at')}"


def walk_reach(
    tenant: str, ids: Sequence[str], direction: Direction, at: Any, max_depth: int,
    types: Sequence[str] = LINEAGE_TYPES,
) -> Query:
    """Every node a walk reaches from the starts, with its depth; a start reached from a
    start too, flagged ``start`` (the walk leaves it out): when no row comes back, no edge
    leaves any start in this direction, and the walk asks nothing more."""
    if not isinstance(max_depth, int) or not 1 <= max_depth <= 256:
        raise ValueError("max_depth must be an integer in 1..256")
    # A quantifier bound cannot be a parameter; max_depth is a checked int, never caller text.
    return Query(f"""
MATCH (s:{_STARTS})
WHERE s.tenant = $tenant AND s.id IN $ids
WITH collect(s) AS starts
UNWIND starts AS s
MATCH p = (s) ((a)-[r:{_types(types)}]-(b)
  WHERE b.tenant = $tenant AND {_step(direction, "a", "r", "b")}){{1,{max_depth}}} (x)
RETURN elementId(x) AS element, x.id AS id, head(labels(x)) AS label,
       min(length(p)) AS depth, x IN starts AS start
ORDER BY depth, label, id""", {"tenant": tenant, "ids": list(ids), "at": at})


def input_sources(tenant: str, ids: Sequence[str], known_at: Any, at: Any,
                  max_depth: int) -> Query:
    """``StoreTx.input_sources``: each fact walked up through the derivations that generated
    it (one quantified path: ``GENERATED`` backwards, then ``USED``, edges holding at ``at``),
    then the supports of every input it reaches, public by ``known_at`` and holding at ``at``,
    with their sources, earliest first. One round trip for every item of a pack."""
    if not isinstance(max_depth, int) or not 1 <= max_depth <= 256:
        raise ValueError("max_depth must be an integer in 1..256")
    return Query(f"""
MATCH (f:{FACT})
{seek("f", FACT)}
WHERE f.tenant = $tenant AND f.id IN $ids
MATCH (f) ((a)<-[g:{GENERATED}]-(d:{DERIVATION})-[u:{USED}]->(b:{FACT})
  WHERE d.tenant = $tenant AND {holds_at("g", "$at", _AND)}
  AND {holds_at("u", "$at", _AND)}){{1,{max_depth}}} (p)
WITH DISTINCT f.id AS item, p
MATCH (p)-[r:{SUPPORTED_BY}]->(s:{SOURCE})
WHERE r.available_at <= $known_at AND {holds_at("r", "$at", _AND)}
WITH DISTINCT item, s
ORDER BY item, s.available_at, s.id
RETURN item, collect({source_map("s")}) AS sources
ORDER BY item""", {"tenant": tenant, "ids": list(dict.fromkeys(ids)), "known_at": known_at,
                   "at": at})


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
    # The same edge test as a walk's (the embedded reference's ``live``), gaps included. No
    # write gives USED or GENERATED edges a gap or even an end today (only support edges are
    # retracted and restored, only facts reopened), so the gap clause changes no answer; it
    # is here so that the two backends cannot drift apart when one does.
    return Query(f"""
MATCH (d:{DERIVATION})-[g:{GENERATED}]->(f:{FACT})
{seek("f", FACT)}
WHERE f.tenant = $tenant AND f.id IN $ids AND d.tenant = $tenant
  AND {holds_at("g", "$at", _AND)}
OPTIONAL MATCH (d)-[u:{USED}]->(i:{FACT})
WHERE {holds_at("u", "$at", _AND)}
RETURN f.id AS output, properties(d) AS derivation,
       collect([i.id, u.role]) AS inputs
ORDER BY output, derivation.id""", {"tenant": tenant, "ids": list(fact_ids), "at": at})


def _micros(x: str, prop: str) -> str:
    # An instant as integer microseconds since the epoch: exact for what Python writes, and
    # 110,000 of them decode as ints instead of DATETIME values (vintage.graph.writes.reach).
    return f"{x}.{prop}.epochSeconds * 1000000 + {x}.{prop}.microsecond"


def downstream_level(tenant: str, frontier: Sequence[str], at: Any) -> Query:
    """One level of a cascade's walk: the facts derived from ``frontier`` (live ``USED`` then
    ``GENERATED``), each with the fields a report names, its ends, and its live
    justifications as ``[derivation id, [[input id, knowledge end, system end], ...]]``."""
    return Query(f"""
UNWIND $frontier AS fid
MATCH (s:{FACT} {{tenant: $tenant, id: fid}})<-[u:{USED}]-(d:{DERIVATION})
      -[g:{GENERATED}]->(f:{FACT})
{seek("s", FACT)}
WHERE d.tenant = $tenant AND f.tenant = $tenant
  AND {holds_at("u", "$at", _AND)}
  AND {holds_at("g", "$at", _AND)}
WITH DISTINCT f
CALL (f) {{
  MATCH (j:{DERIVATION})-[h:{GENERATED}]->(f)
  WHERE j.tenant = $tenant AND {holds_at("h", "$at", _AND)}
  OPTIONAL MATCH (j)-[v:{USED}]->(x:{FACT})
  WHERE {holds_at("v", "$at", _AND)}
  WITH j, collect(DISTINCT x) AS xs
  RETURN collect([j.id, [x IN xs | [x.id, {_micros("x", "superseded_at")},
                                    {_micros("x", "invalidated_at")}]]]) AS justs
}}
RETURN f.id AS id, f.subject AS subject, f.predicate AS predicate, f.value AS value,
       f.unit AS unit, f.ciphertext IS NOT NULL AS sealed,
       {_micros("f", "superseded_at")} AS knowledge, {_micros("f", "invalidated_at")} AS system,
       justs""", {"tenant": tenant, "frontier": list(frontier), "at": at})


def generated_by(tenant: str, derivation_ids: Sequence[str]) -> Query:
    return Query(f"""
MATCH (d:{DERIVATION})-[:{GENERATED}]->(f:{FACT})
{seek("d", DERIVATION)}
WHERE d.tenant = $tenant AND d.id IN $ids
RETURN d.id AS derivation, {fact_map("f")} AS f""",
                 {"tenant": tenant, "ids": list(derivation_ids)})


def erase_facts(tenant: str, rows: list[dict[str, Any]]) -> Query:
    # The value, retention reason, owner and a sealed fact's ciphertext go, and its search
    # entry with them (terms and vector derive from the text); the node stays (invisible to
    # reads) so that lineage and the tombstone event have something to point at.
    return Query(f"""
UNWIND $rows AS row
MATCH (f:{FACT} {{tenant: $tenant, id: row.fact_id}}) {seek("f", FACT)}
SET f.value = '', f.content_hash = 'erased', f.retention_reason = null, f.owner = null,
    f.ciphertext = null, f.search_terms = null, f.embedding = null, f.embedding_model = null,
    f.erased_at = row.at, f.invalidated_at = coalesce(f.invalidated_at, row.at)
REMOVE f:{UNINDEXED}""",
                 {"tenant": tenant, "rows": rows})


def erased_among(tenant: str, ids: Sequence[str]) -> Query:
    """Which of these facts are erased, and when: the keys an interrupted erasure left to
    destroy (``Neo4jStore.finish_destruction``)."""
    return Query(f"""
MATCH (f:{FACT})
{seek("f", FACT)}
WHERE f.tenant = $tenant AND f.id IN $ids AND f.erased_at IS NOT NULL
RETURN f.id AS id, toString(f.erased_at) AS at""", {"tenant": tenant, "ids": list(ids)})


def invalidate_facts(tenant: str, rows: list[dict[str, Any]]) -> Query:
    # Grouped by instant (vintage.graph.neo4j.params). The first invalidation stays (LOCKED_READ).
    return Query(f"""
UNWIND $groups AS g
UNWIND g.members AS fact_id
MATCH (f:{FACT} {{tenant: $tenant, id: fact_id}}) {seek("f", FACT)}
{LOCKED_READ}
WITH f, g
WHERE f.invalidated_at IS NULL
SET f.invalidated_at = g.at""", {"tenant": tenant,
                                 "groups": grouped(rows, ("at",), lambda r: r["fact_id"])})


def retract_support(tenant: str, source_id: str, at: Any) -> Query:
    # Each fact's write lock (LOCKED_READ, in id order) before asking what support it has left:
    # a retraction of its other source sets only its own edge, so two at once each saw the
    # other's edge live, and the fact stayed current on none (tests/test_retraction_race.py).
    # Callers that lock the facts' subjects first (retract, forget) are ordered by those too;
    # the statement does not rely on it.
    return Query(f"""
MATCH (f:{FACT})-[r:{SUPPORTED_BY}]->(s:{SOURCE} {{tenant: $tenant, id: $source}})
WHERE r.invalidated_at IS NULL
SET r.invalidated_at = $at
WITH DISTINCT f ORDER BY f.id
{LOCKED_READ}
WITH f
WHERE NOT EXISTS {{ MATCH (f)-[live:{SUPPORTED_BY}]->() WHERE live.invalidated_at IS NULL }}
RETURN f.id AS id
ORDER BY id""", {"tenant": tenant, "source": source_id, "at": at})


def retracted_at(tenant: str, source_id: str) -> Query:
    return Query(f"""
MATCH (:{FACT})-[r:{SUPPORTED_BY}]->(s:{SOURCE} {{tenant: $tenant, id: $source}})
WHERE r.invalidated_at IS NOT NULL
RETURN max(r.invalidated_at) AS at""", {"tenant": tenant, "source": source_id})


def ever_supported_by(tenant: str, source_id: str) -> Query:
    # Every edge, live or retracted: no time filter on purpose (what erasure must reach).
    return Query(f"""
MATCH (f:{FACT})-[:{SUPPORTED_BY}]->(s:{SOURCE} {{tenant: $tenant, id: $source}})
RETURN DISTINCT f.id AS id
ORDER BY id""", {"tenant": tenant, "source": source_id})


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
MATCH (f:{FACT} {{tenant: $tenant, id: row.fact_id}}) {seek("f", FACT)}
{LOCKED_READ}
WITH f, row
WHERE f.invalidated_at IS NOT NULL
SET f.gaps_from = coalesce(f.gaps_from, []) + [f.invalidated_at],
    f.gaps_to = coalesce(f.gaps_to, []) + [row.at],
    f.invalidated_at = null""", {"tenant": tenant, "rows": rows})


def set_knowledge_ends(tenant: str, rows: list[dict[str, Any]]) -> Query:
    # The closure a row replaces is appended to the past closures, with the system-time
    # stretch it held; a null superseded_at removes the closure (the interval is open again).
    # The closure it replaces is read under the fact's write lock (LOCKED_READ).
    return Query(f"""
UNWIND $rows AS row
MATCH (f:{FACT} {{tenant: $tenant, id: row.fact_id}}) {seek("f", FACT)}
{LOCKED_READ}
WITH f, row, f.superseded_at AS old,
     coalesce(f.superseded_recorded_at, f.recorded_at) AS since
SET f.past_superseded_at = CASE WHEN old IS NULL THEN f.past_superseded_at
      ELSE coalesce(f.past_superseded_at, []) + [old] END,
    f.past_superseded_from = CASE WHEN old IS NULL THEN f.past_superseded_from
      ELSE coalesce(f.past_superseded_from, []) + [since] END,
    f.past_superseded_to = CASE WHEN old IS NULL THEN f.past_superseded_to
      ELSE coalesce(f.past_superseded_to, []) + [row.recorded_at] END,
    f.superseded_at = row.superseded_at,
    f.superseded_recorded_at = CASE WHEN row.superseded_at IS NULL THEN null
      ELSE row.recorded_at END""", {"tenant": tenant, "rows": rows})


def start_elements(tenant: str, ids: Sequence[str]) -> Query:
    return Query(f"""
MATCH (s:{_STARTS})
WHERE s.tenant = $tenant AND s.id IN $ids
RETURN elementId(s) AS element""", {"tenant": tenant, "ids": list(ids)})
