"""Cypher for what a tenant's facts known now come to (``CountsHeld``, ``vintage stats``): pure
builders, the twins of ``vintage.graph.sqlite.held``; ``vintage.graph.neo4j.store`` runs them.

The facts in the clear are grouped in the server by predicate and kind (a row per concept and
kind, never a row per fact), and each source of the tenant is asked whether its support of one
of them holds now, which stops at the first. A sealed fact (a memory) is read whole and
decoded as a read decodes it: one sealed under a key since destroyed is the erased shell it
became, not counted, which the properties alone cannot tell."""

from __future__ import annotations

from vintage.graph.core.asof import AsOf, holds_at, to_cypher
from vintage.graph.core.labels import FACT, SOURCE, SUPPORTED_BY
from vintage.graph.neo4j.cypher import Query, fact_map, seek
from vintage.graph.sealing.sealed import CIPHERTEXT


def held_clear(spec: AsOf) -> Query:
    """(predicate, kind, n, first, last) of the facts in the clear the resolved ``spec``
    admits, a row per predicate and kind; the instants as text."""
    where, params = to_cypher(spec, "f")
    return Query(f"""
MATCH (f:{FACT})
WHERE {where}
  AND f.{CIPHERTEXT} IS NULL
RETURN f.predicate AS predicate, f.kind AS kind, count(*) AS n,
       toString(min(f.available_at)) AS first, toString(max(f.available_at)) AS last""",
                 params)


def held_sources(spec: AsOf) -> Query:
    """(id) of each source of the tenant whose support of some fact in the clear that ``spec``
    admits holds at its system instant."""
    where, params = to_cypher(spec, "f")
    # The key's (tenant, id) index by its prefix (``s.id IS NOT NULL``): unhinted, the planner
    # scanned every source of every tenant.
    return Query(f"""
MATCH (s:{SOURCE})
{seek("s", SOURCE)}
WHERE s.tenant = $asof_tenant AND s.id IS NOT NULL
  AND EXISTS {{
    MATCH (f:{FACT})-[r:{SUPPORTED_BY}]->(s)
    WHERE {where}
      AND f.{CIPHERTEXT} IS NULL
      AND {holds_at('r', '$asof_system', " AND ")}
  }}
RETURN s.id AS id""", params)


def held_sealed(spec: AsOf) -> Query:
    """The sealed facts ``spec`` admits, whole, to be decoded."""
    where, params = to_cypher(spec, "f")
    return Query(f"""
MATCH (f:{FACT})
WHERE {where}
  AND f.{CIPHERTEXT} IS NOT NULL
RETURN {fact_map("f")} AS f""", params)
