"""The Cypher that reads a Graphiti graph: pure builders, one per question, run by the store's
one read runner (``Neo4jStore.run``). Read-only by construction: no builder here writes, so
Graphiti's own nodes and edges are never modified. Every builder but ``groups_present`` (which
returns group ids only) names the groups it reads, so another group's graph is never read.

These are the only builders in Vintage that name Graphiti's labels (``Entity``, ``Episodic``,
``RELATES_TO``); Vintage's own never do (tests/test_cypher_golden.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from vintage.graph.neo4j.cypher import Query

# Properties Graphiti 0.31 writes on a RELATES_TO edge itself; any other property is one of the
# edge's ``attributes`` (Graphiti flattens them onto the edge in Neo4j).
EDGE_FIELDS = ("uuid", "name", "fact", "fact_embedding", "group_id", "episodes", "created_at",
               "expired_at", "valid_at", "invalid_at", "reference_time", "source_uuid",
               "target_uuid")


def groups_present() -> Query:
    """Every group that holds an Entity or an Episodic node, and whether any node at all
    carries Graphiti's labels (a database with no Graphiti graph answers no rows)."""
    return Query(
        "MATCH (n) WHERE n:Entity OR n:Episodic\n"
        "RETURN DISTINCT n.group_id AS group_id\n"
        "ORDER BY group_id",
        {},
    )


def entities(groups: Sequence[str]) -> Query:
    """The groups' entities: uuid, name, group and their labels beside ``Entity``."""
    return Query(
        "MATCH (n:Entity) WHERE n.group_id IN $groups\n"
        "RETURN n.uuid AS uuid, n.name AS name, n.group_id AS group_id,\n"
        "       [l IN labels(n) WHERE l <> 'Entity'] AS labels\n"
        "ORDER BY n.uuid",
        {"groups": list(groups)},
    )


def episodes(groups: Sequence[str]) -> Query:
    """The groups' episodes in the order Graphiti recorded them."""
    return Query(
        "MATCH (e:Episodic) WHERE e.group_id IN $groups\n"
        "RETURN e.uuid AS uuid, e.name AS name, e.group_id AS group_id, e.source AS source,\n"
        "       e.source_description AS source_description, e.content AS content,\n"
        "       e.valid_at AS valid_at, e.created_at AS created_at\n"
        "ORDER BY e.created_at, e.uuid",
        {"groups": list(groups)},
    )


def edges(groups: Sequence[str]) -> Query:
    """The groups' RELATES_TO edges with both ends, in the order Graphiti recorded them; the
    embedding stays in the database (384 or more numbers an edge, never needed here)."""
    return Query(
        "MATCH (s:Entity)-[r:RELATES_TO]->(t:Entity) WHERE r.group_id IN $groups\n"
        "RETURN r.uuid AS uuid, r.group_id AS group_id, r.name AS name, r.fact AS fact,\n"
        "       r.valid_at AS valid_at, r.invalid_at AS invalid_at,\n"
        "       r.created_at AS created_at, r.expired_at AS expired_at,\n"
        "       r.episodes AS episodes, s.uuid AS source_uuid, t.uuid AS target_uuid,\n"
        "       [k IN keys(r) WHERE NOT k IN $fields | [k, r[k]]] AS attributes\n"
        "ORDER BY r.created_at, r.uuid",
        {"groups": list(groups), "fields": list(EDGE_FIELDS)},
    )
