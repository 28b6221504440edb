"""What a tenant's facts known now come to, counted by the database (``CountsHeld``, for
``vintage stats``): builders of the SQL and the one function that runs them.

The facts in the clear are counted in SQL, grouped by predicate and kind (a row per concept
and kind, never a row per fact), and each source is asked whether its support of one of them
holds now. A sealed fact (a memory) is read and decoded as ``Store.read`` decodes it: one
sealed under a key since destroyed (a backup restored after its erasure) is the erased shell
it became, not counted, which the columns alone cannot tell. Memories are a tenant's few; its
filings, the many, are in the clear. Golden files in tests/golden/sqlite, plans in
tests/test_sqlite_plans.py."""

from __future__ import annotations

import sqlite3

from vintage.graph.core.asof import AsOf
from vintage.graph.core.labels import SOURCE, SUPPORTED_BY
from vintage.graph.sealing.sealed import Sealer
from vintage.graph.sqlite import reads
from vintage.graph.sqlite.asof import holds_at, to_sql, when
from vintage.graph.sqlite.rows import visible_facts
from vintage.graph.store.capabilities import Held, tallied

Params = dict[str, object]


def clear_sql(spec: AsOf) -> tuple[str, Params]:
    """(predicate, kind, count, earliest and latest available_at) of the facts in the clear
    the resolved ``spec`` admits, a row per predicate and kind."""
    where, params = to_sql(spec, "f")
    return ("SELECT f.predicate, f.kind, COUNT(*), MIN(f.available_at), MAX(f.available_at)\n"
            f"FROM facts f WHERE {where}\n  AND f.sealed = 0\nGROUP BY f.predicate, f.kind",
            params)


def clear_sources_sql(spec: AsOf) -> tuple[str, Params]:
    """(source id) of each source of the tenant whose support of some fact in the clear that
    ``spec`` admits holds at its system instant. Asked per source, which stops at the first
    such fact: its support edges by the edges' index of their ends, each fact by id. (From the
    facts' side it was every fact's edges, 8 s at a million versions; this, 0.01 s: a filing
    mostly supports facts still known.)"""
    where, params = to_sql(spec, "f")
    return ("SELECT s.id FROM records s WHERE s.tenant = :asof_tenant AND s.label = :source\n"
            "  AND EXISTS (SELECT 1 FROM edges e INDEXED BY edges_in\n"
            "    CROSS JOIN facts f INDEXED BY facts_id ON f.tenant = e.tenant AND f.id = e.src\n"
            "    WHERE e.tenant = s.tenant AND e.type = :type AND e.dst = s.id\n"
            f"    AND {holds_at('e', ':asof_system')}\n    AND {where}\n    AND f.sealed = 0)",
            {**params, "type": SUPPORTED_BY, "source": SOURCE})


def sealed_sql(spec: AsOf) -> tuple[str, Params]:
    """(body) of the sealed facts ``spec`` admits, to be decoded."""
    where, params = to_sql(spec, "f")
    return f"SELECT f.body FROM facts f WHERE {where}\n  AND f.sealed = 1", params


def held(conn: sqlite3.Connection, spec: AsOf, sealer: Sealer | None) -> Held:
    """``Held`` of the resolved ``spec`` (every fact known now), inside the caller's read."""
    groups = [(predicate, kind, n, when(first), when(last))
              for predicate, kind, n, first, last in conn.execute(*clear_sql(spec))]
    sources = [s for (s,) in conn.execute(*clear_sources_sql(spec))]
    sealed = visible_facts(conn.execute(*sealed_sql(spec)).fetchall(), spec, sealer)
    sealed_sources = [s.source_id for s in reads.supports(
        conn, spec.scope.tenant, [f.id for f in sealed], spec.system_at)]
    return tallied(groups, sources, sealed, sealed_sources)
