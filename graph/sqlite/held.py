"""What a tenant's facts known now come to, counted by the database (``CountsHeld``, for
``vintage stats``): builders of the SQL and the one function that runs them.

Every fact is counted in SQL, grouped by predicate and kind (a row per concept and kind, never
a row per fact), and each source is asked whether its support of one of them holds now. A
sealed fact (a memory) whose key was destroyed (a backup restored after its erasure) is the
erased shell it became, not counted, which the columns cannot tell: the sealed facts' ids come
first, the key store says which are gone (``Sealer.gone``), and both counts leave those out
(``:gone``). Predicate, kind and instants are columns, so nothing is decrypted. Golden files in
tests/golden/sqlite, plans in tests/test_sqlite_plans.py."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from vintage.graph.core.asof import AsOf
from vintage.graph.core.labels import SOURCE, SUPPORTED_BY
from vintage.graph.sealing.sealed import Sealer, gone_among
from vintage.graph.sqlite.asof import holds_at, to_sql, when
from vintage.graph.store.capabilities import Held, tallied

Params = dict[str, object]


def sealed_sql(spec: AsOf) -> tuple[str, Params]:
    """(id) of the sealed facts the resolved ``spec`` admits."""
    where, params = to_sql(spec, "f")
    return f"SELECT f.id FROM facts f WHERE {where}\n  AND f.sealed = 1", params


def facts_sql(spec: AsOf, gone: Sequence[str]) -> tuple[str, Params]:
    """(predicate, kind, count, earliest and latest available_at) of the facts the resolved
    ``spec`` admits but the sealed ones whose key is ``gone``, a row per predicate and kind."""
    where, params = to_sql(spec, "f")
    return ("SELECT f.predicate, f.kind, COUNT(*), MIN(f.available_at), MAX(f.available_at)\n"
            f"FROM facts f WHERE {where}{_but(gone, '  ')}\nGROUP BY f.predicate, f.kind",
            _with(params, gone))


def sources_sql(spec: AsOf, gone: Sequence[str]) -> tuple[str, Params]:
    """(count): how many sources of the tenant support, at its system instant, some fact that
    ``spec`` admits (but the sealed ones whose key is ``gone``). Asked per source, which stops
    at the first such fact: its support edges by the edges' index of their ends, each fact by
    id. (From the facts' side it was every fact's edges, 8 s at a million
    versions; this, 0.01 s: a filing mostly supports facts still known.)"""
    where, params = to_sql(spec, "f")
    return ("SELECT COUNT(*) FROM records s WHERE s.tenant = :asof_tenant AND s.label = :source\n"
            "  AND EXISTS (SELECT 1 FROM edges e INDEXED BY edges_in\n"
            "    CROSS JOIN facts f INDEXED BY facts_id ON f.tenant = e.tenant AND f.id = e.src\n"
            "    WHERE e.tenant = s.tenant AND e.type = :type AND e.dst = s.id\n"
            f"    AND {holds_at('e', ':asof_system')}\n    AND {where}{_but(gone, '    ')})",
            _with({**params, "type": SUPPORTED_BY, "source": SOURCE}, gone))


def _but(gone: Sequence[str], indent: str) -> str:
    """The filter that leaves out the facts whose key is gone; none when none is (the usual
    case, and the Neo4j twin's plan needs it so)."""
    return f"\n{indent}AND f.id NOT IN (SELECT value FROM json_each(:gone))" if gone else ""


def _with(params: Params, gone: Sequence[str]) -> Params:
    return {**params, "gone": json.dumps(list(gone))} if gone else params


def held(conn: sqlite3.Connection, spec: AsOf, sealer: Sealer | None) -> Held:
    """``Held`` of the resolved ``spec`` (every fact known now), inside the caller's read."""
    sealed = [i for (i,) in conn.execute(*sealed_sql(spec))]
    gone = gone_among(sealer, spec.scope.tenant, sealed)
    groups = [(predicate, kind, n, when(first), when(last))
              for predicate, kind, n, first, last in conn.execute(*facts_sql(spec, gone))]
    (sources,), = conn.execute(*sources_sql(spec, gone))
    return tallied(groups, sources)
