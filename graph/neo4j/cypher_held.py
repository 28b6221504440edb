"""Cypher for what a tenant's facts known now come to (``CountsHeld``, ``vintage stats``): pure
builders, the twins of ``vintage.graph.sqlite.held``; ``vintage.graph.neo4j.store`` runs them.

Every fact is counted in the server, grouped by predicate and kind (a row per concept and kind,
never a row per fact), and each source of the tenant is asked whether its support of one of
them holds now, which stops at the first. A sealed fact (a memory) whose key was destroyed (a
backup restored after its erasure) is the erased shell it became, not counted, which its
properties cannot tell: the sealed facts' ids come first, the key store says which are gone,
and both counts leave those out (``$gone``). Its predicate, kind and instants are in the
clear, so nothing is decrypted: on the retrieval bench's 100k server, a tenant of 48,088
memories took 9.3 s when each was read whole and decoded and its supports read by id, 1.4-1.6 s
so (docs/CHANGELOG.md, 2026-12-07)."""

from __future__ import annotations

from collections.abc import Sequence

from vintage.graph.core.asof import AsOf, holds_at, to_cypher
from vintage.graph.core.labels import FACT, SOURCE, SUPPORTED_BY
from vintage.graph.neo4j.cypher import Query, seek
from vintage.graph.sealing.sealed import CIPHERTEXT


def held_sealed(spec: AsOf) -> Query:
    """(ids): the ids of the sealed facts the resolved ``spec`` admits, in one row."""
    where, params = to_cypher(spec, "f")
    return Query(f"""
MATCH (f:{FACT})
WHERE {where}
  AND f.{CIPHERTEXT} IS NOT NULL
RETURN collect(f.id) AS ids""", params)


def held_facts(spec: AsOf, gone: Sequence[str]) -> Query:
    """(predicate, kind, n, first, last) of the facts the resolved ``spec`` admits but the
    sealed ones whose key is ``gone``, a row per predicate and kind; the instants as text."""
    where, params = to_cypher(spec, "f")
    return Query(f"""
MATCH (f:{FACT})
WHERE {where}{_but(gone, "  ")}
RETURN f.predicate AS predicate, f.kind AS kind, count(*) AS n,
       toString(min(f.available_at)) AS first, toString(max(f.available_at)) AS last""",
                 {**params, "gone": list(gone)} if gone else params)


def held_sources(spec: AsOf, gone: Sequence[str]) -> Query:
    """(n): how many sources of the tenant support, at its system instant, some fact that
    ``spec`` admits (but the sealed ones whose key is ``gone``)."""
    where, params = to_cypher(spec, "f")
    # The key's (tenant, id) index by its prefix (``s.id IS NOT NULL``): unhinted, the planner
    # scanned every source of every tenant.
    return Query(f"""
MATCH (s:{SOURCE})
{seek("s", SOURCE)}
WHERE s.tenant = $asof_tenant AND s.id IS NOT NULL
  AND EXISTS {{
    MATCH (f:{FACT})-[r:{SUPPORTED_BY}]->(s)
    WHERE {where}{_but(gone, "      ")}
      AND {holds_at('r', '$asof_system', " AND ")}
  }}
RETURN count(s) AS n""", {**params, "gone": list(gone)} if gone else params)


def _but(gone: Sequence[str], indent: str) -> str:
    """The filter that leaves out the facts whose key is gone; none when none is (the usual
    case): a filter on the id leads the planner to the key index on a small tenant."""
    return f"\n{indent}AND NOT f.id IN $gone" if gone else ""
