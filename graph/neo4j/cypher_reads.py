"""Cypher for as-of reads: facts by the compiled predicate, and what cites and confirms them
(support edges holding at a system instant, public by a cutoff). Pure builders, like
``vintage.graph.neo4j.cypher``; ``vintage.graph.neo4j.store`` runs them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from vintage.graph.core.asof import AsOf, holds_at, to_cypher
from vintage.graph.core.labels import DERIVATION, EVENT, FACT, SOURCE, SUBJECT, SUPPORTED_BY, USED
from vintage.graph.neo4j.cypher import FACT_ORDER, Query, fact_map, seek, source_map
from vintage.graph.store.capabilities import SETTINGS_TENANT

_SEP = "\n    AND "  # holds_at's clauses, one a line
# A subject as ``subjects`` returns its rows (``vintage.graph.neo4j.rows.subject_from``).
_SUBJECT_MAP = "s {.id, .kind, .name, identifiers: coalesce(s.identifiers, [])}"


def read_facts(spec: AsOf, limit: int | None) -> Query:
    where, params = to_cypher(spec, "f")
    # Order (and limit) on the stored values, before instants become text.
    limit_clause = ""
    if limit is not None:
        limit_clause = " LIMIT $limit"
        params["limit"] = limit
    # With subjects and predicates named, the (tenant, subject, predicate) index narrows to a
    # handful of versions per assertion; left alone, the planner may prefer the knowledge-time
    # range index, which for an early cutoff still scans most of the tenant.
    hint = ""
    if spec.ids is not None:
        # Named versions (a search re-reading its ranked ids): one seek of the (tenant, id)
        # key each; left alone, the planner scanned the tenant by knowledge time.
        hint = "\n" + seek("f", FACT)
    elif spec.subjects is not None:
        hint = "\n" + seek("f", FACT, "tenant, subject, predicate")
        if spec.predicates is None:  # the index's prefix: every predicate of those subjects
            where += "\n  AND f.predicate IS NOT NULL"
    return Query(f"""
MATCH (f:{FACT}){hint}
WHERE {where}
WITH f ORDER BY {FACT_ORDER}{limit_clause}
RETURN {fact_map("f")} AS f""", params)


def replaced_premises(spec: AsOf) -> Query:
    """The versions a derivation used that a later version of theirs, legal for ``spec``, replaced
    by the cutoff (``StoreTx.replaced_premises``): ids only, chosen in the server. It starts from
    the tenant's derivations, by their key's tenant prefix, and their used versions superseded by
    the cutoff, then seeks each one's assertion for a legal later revision: its cost follows what
    derivations used, not the size of the legal set (walking the legal set first read a 100k
    tenant's facts on every search, 0.2 s of a memory search's 0.3 s)."""
    where, params = to_cypher(spec, "f")
    return Query(f"""
MATCH (d:{DERIVATION})-[:{USED}]->(p:{FACT})
{seek("d", DERIVATION, "tenant, id")}
WHERE d.tenant = $asof_tenant AND d.id IS NOT NULL AND p.tenant = $asof_tenant
  AND p.invalidated_at IS NULL AND p.superseded_at <= $asof_known
WITH DISTINCT p
WHERE EXISTS {{
  MATCH (f:{FACT})
  {seek("f", FACT, "tenant, key")}
  WHERE f.tenant = $asof_tenant AND f.key = p.key AND f.revision > 1
    AND {where}
}}
RETURN p.id AS id ORDER BY id""", params)


def read_cited_facts(spec: AsOf, limit: int | None = None) -> Query:
    """``read_facts`` with, per fact, the sources it cites: supports public by the cutoff and
    holding at the system instant, earliest first. One round trip where an answer with its
    citations took three (facts, supports, sources)."""
    return _with_supports(spec, limit, f"""
  WITH s ORDER BY s.available_at, s.id
  RETURN collect({source_map('s')}) AS sources""", "sources")


def read_cited_with_subjects(spec: AsOf) -> Query:
    """``read_cited_facts`` in one row, with the subjects its facts name: ``rows`` (each fact
    with the ids of the sources it cites, in the same orders), ``sources`` (each of those
    once) and ``subjects`` (by id). A search re-reads its candidates so: it counts the query's
    identifiers on each one's subject (a read of its own was a round trip per round), and a
    filing cited by a hundred candidates is sent and decoded once."""
    cited = _with_supports(spec, None, """
  WITH s ORDER BY s.available_at, s.id
  RETURN collect(s) AS cited""", "cited")
    head, _ = cited.text.rsplit("\nRETURN ", 1)
    return Query(f"""{head}
WITH collect({{f: {fact_map("f")}, sources: [s IN cited | s.id]}}) AS rows,
     collect(DISTINCT f.subject) AS names, collect(cited) AS cites
CALL (cites) {{
  UNWIND cites AS cited
  UNWIND cited AS s
  WITH DISTINCT s
  RETURN collect({source_map("s")}) AS sources
}}
CALL (names) {{
  OPTIONAL MATCH (s:{SUBJECT})
  {seek("s", SUBJECT)}
  WHERE s.tenant = $asof_tenant AND s.id IN names
  WITH s ORDER BY s.id
  RETURN collect({_SUBJECT_MAP}) AS subjects
}}
RETURN rows, sources, subjects""", cited.params)


def read_confirmed_facts(spec: AsOf) -> Query:
    """``read_facts`` with each fact's supports public by the cutoff and holding at the system
    instant summed up beside it (what ``confirmations`` returns), in the same query: a metric
    question needs both, and a second round trip per company was a sixth of its time."""
    return _with_supports(spec, None, """
  WITH r.available_at AS at, s.id AS source_id
  ORDER BY at, source_id
  RETURN collect(source_id)[0] AS first_source, toString(min(at)) AS first_at,
         toString(max(at)) AS last_at""", "first_source, first_at, last_at")


def _with_supports(spec: AsOf, limit: int | None, per_fact: str, columns: str) -> Query:
    """``read_facts``, then per fact its support edges public by the cutoff and holding at the
    system instant, folded by ``per_fact`` into ``columns``."""
    read = read_facts(spec, limit)
    head, _ = read.text.rsplit("\nRETURN ", 1)
    return Query(f"""{head}
CALL (f) {{
  OPTIONAL MATCH (f)-[r:{SUPPORTED_BY}]->(s:{SOURCE})
  WHERE r.available_at <= $asof_known AND {holds_at('r', '$asof_system', _SEP)}{per_fact}
}}
WITH f, {columns} ORDER BY {FACT_ORDER}
RETURN {fact_map("f")} AS f, {columns}""", read.params)


def _edge_live(at: datetime | None, params: dict[str, Any]) -> str:
    """A support edge holding at system instant ``at`` (None: every edge ever written)."""
    if at is None:
        return ""
    params["at"] = at
    return f"\nWHERE {holds_at('r', '$at', _SEP)}"


def supports(tenant: str, fact_ids: Sequence[str], live_at: datetime | None = None) -> Query:
    # One seek of the (tenant, id) constraint per id, not a scan of the tenant; instants as
    # text, as for facts (the driver decodes DATETIME values slowly).
    params: dict[str, Any] = {"tenant": tenant, "ids": list(fact_ids)}
    live = _edge_live(live_at, params)
    return Query(f"""
UNWIND $ids AS fact_id
MATCH (f:{FACT} {{tenant: $tenant, id: fact_id}})-[r:{SUPPORTED_BY}]->(s:{SOURCE})
{seek("f", FACT)}{live}
RETURN f.id AS fact_id, s.id AS source_id, toString(r.available_at) AS available_at,
       toString(r.recorded_at) AS recorded_at
ORDER BY fact_id, r.available_at, source_id""", params)


def confirmations(tenant: str, fact_ids: Sequence[str], known_at: datetime,
                  live_at: datetime) -> Query:
    # Aggregated in the server: a filed fact has a support edge per filing that repeated it.
    params: dict[str, Any] = {"tenant": tenant, "ids": list(fact_ids), "known_at": known_at}
    live = _edge_live(live_at, params)
    return Query(f"""
UNWIND $ids AS fact_id
MATCH (f:{FACT} {{tenant: $tenant, id: fact_id}})-[r:{SUPPORTED_BY}]->(s:{SOURCE})
{seek("f", FACT)}{live}
  AND r.available_at <= $known_at
WITH fact_id, r.available_at AS at, s.id AS source_id
ORDER BY at, source_id
WITH fact_id, collect(source_id)[0] AS first_source, min(at) AS first_at, max(at) AS last_at
RETURN fact_id, first_source, toString(first_at) AS first_at, toString(last_at) AS last_at""",
                 params)


def subjects(tenant: str, names: Sequence[str] | None = None) -> Query:
    """The tenant's subjects whose id or one of whose identifiers is among ``names`` (None:
    all of them), by id. Identifiers are a list, which no index holds, so the query seeks the
    tenant's subjects by the (tenant, id) constraint's prefix and matches them there: it never
    reads another tenant's, and a tenant holds far fewer subjects than facts."""
    params: dict[str, Any] = {"tenant": tenant}
    narrow = ""
    if names is not None:
        narrow = "\n  AND (s.id IN $names OR any(i IN s.identifiers WHERE i IN $names))"
        params["names"] = list(names)
    return Query(f"""
MATCH (s:{SUBJECT})
{seek("s", SUBJECT)}
WHERE s.tenant = $tenant AND s.id IS NOT NULL{narrow}
RETURN s.id AS id, s.kind AS kind, s.name AS name, coalesce(s.identifiers, []) AS identifiers
ORDER BY id""", params)


def tenants() -> Query:
    """Every tenant with an event (every change records one), sorted: its owner's listing
    (``vintage stats --all-tenants``), never a tenant's read; the store's own settings
    (``SETTINGS_TENANT``) are no tenant. It reads every event: an owner's command, not a hot
    path."""
    return Query(f"""
MATCH (e:{EVENT})
WHERE e.tenant <> $settings
RETURN DISTINCT e.tenant AS tenant
ORDER BY tenant""", {"settings": SETTINGS_TENANT})


def events(tenant: str, actions: Sequence[str] | None = None,
           ids: Sequence[str] | None = None) -> Query:
    # Each form names the index it seeks, so that a tenant's events never cost a scan of every
    # tenant's (a bare `e.tenant = $tenant` does not use a composite index by itself).
    params: dict[str, Any] = {"tenant": tenant, "actions": None if actions is None else
                              list(actions)}
    if ids is not None:  # named events (of these actions, if given): a seek of each id
        hint, narrow = seek("e", EVENT), "e.id IN $ids AND coalesce(e.action IN $actions, true)"
        params["ids"] = list(ids)
    elif actions is None:
        hint, narrow = seek("e", EVENT, "tenant, at"), "e.at IS NOT NULL"
    else:
        hint, narrow = seek("e", EVENT, "tenant, action"), "e.action IN $actions"
    return Query(f"""
MATCH (e:{EVENT})
{hint}
WHERE e.tenant = $tenant AND {narrow}
RETURN properties(e) AS e
ORDER BY e.at, e.id""", params)
