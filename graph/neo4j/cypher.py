"""Cypher builders for the Neo4j backend: pure functions from arguments to (query, params).

Values travel only as ``$params``. Labels and relationship types are interpolated, but only from
``vintage.graph.core.labels`` constants (checked here), never from caller strings. Each builder is
covered by a golden file in ``tests/golden/`` and by an integration test that runs it on a real
server.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from vintage.graph.core.kinds import FactKind
from vintage.graph.core.labels import (
    ABOUT,
    CONFLICTS_WITH,
    DERIVATION,
    EVENT,
    FACT,
    GENERATED,
    LABELS,
    SOURCE,
    SUBJECT,
    SUPERSEDES,
    SUPPORTED_BY,
    UNINDEXED,
    USED,
)
from vintage.graph.core.model import Fact, Scope
from vintage.graph.neo4j.params import (
    FACT_INSTANTS,
    grouped,
    instants_as_text,
    parsed_instants,
    with_text,
)
from vintage.graph.sealing.sealed import CIPHERTEXT

FACT_ORDER = "f.subject, f.predicate, f.valid_from, f.revision, f.id"


# Named, not ``.*``: a fact node also holds its search entry (terms, a vector of hundreds of
# floats), which no read of facts wants decoded.
FACT_PROPERTIES = (*(k for k in Fact.model_fields
                      if k not in (*FACT_INSTANTS, "gaps_from", "gaps_to")), CIPHERTEXT)


def fact_map(alias: str) -> str:
    """A fact's properties with its instants as ISO text: the Python driver decodes DATETIME
    values several times slower than strings, and bulk reads (versions, cascades) are
    dominated by that decoding. ``vintage.graph.neo4j.rows.fact_from`` parses them back to UTC
    datetimes."""
    a = alias
    stored = ", ".join(f".{k}" for k in FACT_PROPERTIES)
    instants = ", ".join(f"{k}: toString({a}.{k})" for k in FACT_INSTANTS)
    gaps = ", ".join(f"{k}: [t IN coalesce({a}.{k}, []) | toString(t)]"
                     for k in ("gaps_from", "gaps_to"))
    return f"{a} {{{stored}, {instants}, {gaps}}}"


def source_map(alias: str) -> str:
    """A source's properties with its instants as text, for the reason ``fact_map`` gives."""
    a = alias
    return f"{a} {{.*, available_at: toString({a}.available_at), " \
           f"recorded_at: toString({a}.recorded_at)}}"


class Query(NamedTuple):
    text: str
    params: dict[str, Any]


def seek(alias: str, label: str, props: str = "tenant, id") -> str:
    """Pins a lookup by key to its index seek. Planned while an index's sample still described
    it near empty (a young store's first bulk load), an unhinted lookup per ``UNWIND`` row
    became a scan of the whole index: 30 s for one cascade level that seeks in 0.4 s."""
    return f"USING INDEX SEEK {alias}:{label}({props})"


def _label(label: str) -> str:
    if label not in LABELS:
        raise ValueError(f"not a Vintage label: {label!r}")
    return label


def existing(tenant: str, label: str, ids: Sequence[str]) -> Query:
    return Query(f"""
MATCH (n:{_label(label)})
{seek("n", label)}
WHERE n.tenant = $tenant AND n.id IN $ids
RETURN n.id AS id""", {"tenant": tenant, "ids": list(ids)})


def nodes_by_id(tenant: str, label: str, ids: Sequence[str]) -> Query:
    # Instants as text, for the reason fact_map gives (a question cites a handful of sources,
    # and decoding their DATETIMEs cost more than the seek).
    projection = (fact_map("n") if label == FACT else
                  source_map("n") if label == SOURCE else "properties(n)")
    return Query(f"""
MATCH (n:{_label(label)})
{seek("n", label)}
WHERE n.tenant = $tenant AND n.id IN $ids
RETURN {projection} AS n""", {"tenant": tenant, "ids": list(ids)})


def live_versions(tenant: str, keys: Sequence[str]) -> Query:
    return Query(f"""
MATCH (f:{FACT})
{seek("f", FACT, "tenant, key")}
WHERE f.tenant = $tenant AND f.key IN $keys AND f.invalidated_at IS NULL
WITH f ORDER BY f.key, f.revision
RETURN {fact_map("f")} AS f""", {"tenant": tenant, "keys": list(keys)})


def top_revisions(tenant: str, keys: Sequence[str]) -> Query:
    # Invalidated versions included: a new version must never reuse a revision (its id).
    return Query(f"""
MATCH (f:{FACT})
{seek("f", FACT, "tenant, key")}
WHERE f.tenant = $tenant AND f.key IN $keys
RETURN f.key AS key, max(f.revision) AS revision""", {"tenant": tenant, "keys": list(keys)})


def history(tenant: str, key: str) -> Query:
    return Query(f"""
MATCH (f:{FACT})
WHERE f.tenant = $tenant AND f.key = $key
WITH f ORDER BY f.revision, f.recorded_at
RETURN {fact_map("f")} AS f""", {"tenant": tenant, "key": key})


def facts_in(
    scope: Scope, kinds: Sequence[FactKind] | None = None, keys: Sequence[str] | None = None,
) -> Query:
    # Every version ever recorded, whatever its times or status (erasure must reach them all):
    # only the tenant, scope ⊇ σ (as in the as-of predicate) and the optional narrowings.
    clauses = ["f.tenant = $tenant", "all(term IN $scope WHERE term IN f.scope)"]
    params: dict[str, Any] = {"tenant": scope.tenant, "scope": scope.terms()}
    if kinds is not None:
        clauses.append("f.kind IN $kinds")
        params["kinds"] = [k.value for k in kinds]
    # Through the (tenant, key) index either way: the tenant's facts, never every tenant's.
    if keys is not None:
        clauses.append("f.key IN $keys")
        params["keys"] = list(keys)
    else:
        clauses.append("f.key IS NOT NULL")
    where = "\n  AND ".join(clauses)
    return Query(f"""
MATCH (f:{FACT})
{seek("f", FACT, "tenant, key")}
WHERE {where}
WITH f ORDER BY f.key, f.revision, f.id
RETURN {fact_map("f")} AS f""", params)


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
    # Instants travel as text (vintage.graph.neo4j.params). Born without a search entry: the indexer
    # finds it by the second label (unindexed()).
    return Query(f"""
UNWIND $rows AS row
MATCH (s:{SUBJECT} {{tenant: $tenant, id: row.subject}}) {seek("s", SUBJECT)}
CREATE (f:{FACT}:{UNINDEXED})
SET f = row {{.*, {parsed_instants('row')}}}
CREATE (f)-[:{ABOUT} {{role: 'subject', recorded_at: f.recorded_at}}]->(s)""",
                 {"tenant": tenant, "rows": [instants_as_text(r) for r in rows]})


def add_support(tenant: str, rows: list[dict[str, Any]]) -> Query:
    # Per source: a batch of 10,000 filed rows cites a few dozen filings.
    groups = grouped(rows, ("source_id", "available_at", "recorded_at"), lambda r: r["fact_id"])
    return Query(f"""
UNWIND $groups AS g
MATCH (s:{SOURCE} {{tenant: $tenant, id: g.source_id}}) {seek("s", SOURCE)}
UNWIND g.members AS fact_id
MATCH (f:{FACT} {{tenant: $tenant, id: fact_id}}) {seek("f", FACT)}
MERGE (f)-[r:{SUPPORTED_BY}]->(s)
ON CREATE SET r.available_at = g.available_at, r.recorded_at = g.recorded_at""",
                 {"tenant": tenant, "groups": groups})


# Neo4j reads a property before a later SET takes the node's write lock, so a guard such as
# `WHERE f.superseded_at IS NULL` passes on a value another writer is about to commit, and that
# writer's close is overwritten (a lost update; tests/test_cascade_close_race.py). Writing
# first takes the lock: what is read after it is what the last writer committed. The property
# never survives the statement.
LOCKED_READ = "SET f._vintage_lock = true REMOVE f._vintage_lock"  # lock_subjects's token

# Said when a close finds the fact closed already (a concurrent writer), here and by the
# plugin's procedure (Cascade.java), whose refusal vintage.graph.neo4j.procedures recognises by
# it.
CLOSED_FIRST = "another writer closed one of these facts first"


def close_knowledge(tenant: str, rows: list[dict[str, Any]]) -> Query:
    # Grouped by their two instants (vintage.graph.neo4j.params). The IS NULL guard makes a
    # concurrent second close match nothing; the caller compares the count with the rows it sent and
    # reports a conflict. The guard is read under the fact's write lock (LOCKED_READ).
    return Query(f"""
UNWIND $groups AS g
UNWIND g.members AS fact_id
MATCH (f:{FACT} {{tenant: $tenant, id: fact_id}}) {seek("f", FACT)}
{LOCKED_READ}
WITH f, g
WHERE f.superseded_at IS NULL
SET f.superseded_at = g.superseded_at, f.superseded_recorded_at = g.recorded_at
RETURN count(f) AS closed""", {"tenant": tenant, "groups": grouped(
        rows, ("superseded_at", "recorded_at"), lambda r: r["fact_id"])})


def link_supersedes(tenant: str, rows: list[dict[str, Any]]) -> Query:
    groups = grouped(rows, ("source_id", "at", "recorded_at"),
                      lambda r: [r["new_id"], r["old_id"]])
    return Query(f"""
UNWIND $groups AS g
UNWIND g.members AS pair
MATCH (new:{FACT} {{tenant: $tenant, id: pair[0]}}) {seek("new", FACT)}
MATCH (old:{FACT} {{tenant: $tenant, id: pair[1]}}) {seek("old", FACT)}
CREATE (new)-[:{SUPERSEDES} {{source_id: g.source_id, at: g.at,
                             recorded_at: g.recorded_at}}]->(old)""",
                 {"tenant": tenant, "groups": groups})


def link_conflicts(tenant: str, rows: list[dict[str, Any]]) -> Query:
    return Query(f"""
UNWIND $rows AS row
MATCH (a:{FACT} {{tenant: $tenant, id: row.fact_id}}) {seek("a", FACT)}
MATCH (b:{FACT} {{tenant: $tenant, id: row.other_id}}) {seek("b", FACT)}
MERGE (a)-[r:{CONFLICTS_WITH}]->(b)
ON CREATE SET r.recorded_at = row.recorded_at""", {"tenant": tenant, "rows": rows})


def create_derivations(tenant: str, rows: list[dict[str, Any]]) -> Query:
    """Each row ``{props, used: [{fact_id, role}], generated: [fact id]}``; ``recorded_at``
    travels as text (``vintage.graph.neo4j.params``)."""
    return Query(f"""
UNWIND $rows AS row
CREATE (d:{DERIVATION})
SET d = row.props, d.tenant = $tenant, d.recorded_at = datetime(row.props.recorded_at)
WITH d, row
CALL (d, row) {{
  UNWIND row.used AS u
  MATCH (f:{FACT} {{tenant: $tenant, id: u.fact_id}}) {seek("f", FACT)}
  CREATE (d)-[:{USED} {{role: u.role, recorded_at: d.recorded_at}}]->(f)
}}
CALL (d, row) {{
  UNWIND row.generated AS gid
  MATCH (f:{FACT} {{tenant: $tenant, id: gid}}) {seek("f", FACT)}
  CREATE (d)-[:{GENERATED} {{recorded_at: d.recorded_at}}]->(f)
}}""", {"tenant": tenant, "rows": [{**r, "props": with_text(r["props"], ("recorded_at",))}
                                   for r in rows]})


def create_events(tenant: str, rows: list[dict[str, Any]]) -> Query:
    return Query(f"""
UNWIND $rows AS row
CREATE (e:{EVENT})
SET e = row, e.tenant = $tenant, e.at = datetime(row.at)""",
                 {"tenant": tenant, "rows": [with_text(r, ("at",)) for r in rows]})


def lock_subjects(tenant: str, ids: Sequence[str]) -> Query:
    # Setting and removing a property takes the node's write lock and leaves nothing behind.
    return Query(f"""
UNWIND $ids AS id
MATCH (s:{SUBJECT} {{tenant: $tenant, id: id}}) {seek("s", SUBJECT)}
SET s._vintage_lock = true
REMOVE s._vintage_lock""", {"tenant": tenant, "ids": sorted(ids)})


def purge_tenant(tenant: str) -> list[Query]:
    # Administrative, unaudited, Neo4j-only: tests use it to wipe exactly what they wrote.
    # One statement per label: each seeks the (tenant, id) constraint index and streams its
    # deletes in batches (a UNION would first hold every node of the tenant in memory). The
    # index needs a predicate on each of its properties: without `n.id IS NOT NULL` (true of
    # every node) the plan scans the label, every tenant's nodes.
    return [
        Query(f"""
MATCH (n:{label})
WHERE n.tenant = $tenant AND n.id IS NOT NULL
CALL (n) {{ DETACH DELETE n }} IN TRANSACTIONS OF 5000 ROWS""", {"tenant": tenant})
        for label in LABELS
    ]
