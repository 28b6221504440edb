"""Reads over the SQLite store that both the store and its transactions need: each builds its
SQL and runs it on the caller's connection, inside the caller's transaction (so a write reads
its own changes, as on Neo4j). Sealed bodies open through ``sealer``."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import FactKind
from vintage.graph.core.labels import (
    DERIVATION,
    EVENT,
    FACT,
    GENERATED,
    LINEAGE_TYPES,
    SOURCE,
    SUBJECT,
    SUPPORTED_BY,
    USED,
)
from vintage.graph.core.model import DerivationIn, Event, Fact, Scope, Source, Subject
from vintage.graph.sealing.sealed import Sealer
from vintage.graph.sqlite.asof import holds_at, micros, to_sql, when
from vintage.graph.sqlite.rows import edge_of, fact_of, visible_facts
from vintage.graph.store.capabilities import SETTINGS_TENANT
from vintage.graph.store.protocol import (
    Cited,
    Direction,
    Edge,
    Justification,
    Reached,
    Support,
    Walk,
)

_MODELS: dict[str, Any] = {SUBJECT: Subject, SOURCE: Source, EVENT: Event,
                           DERIVATION: DerivationIn}
# Lists travel as one JSON parameter: the statement's text never depends on their length.
IN_LIST = "(SELECT value FROM json_each(?))"


def js(values: Sequence[Any]) -> str:
    return json.dumps(list(values))


def read(conn: sqlite3.Connection, spec: AsOf, sealer: Sealer | None,
         limit: int | None = None) -> list[Fact]:
    """The as-of read of a resolved ``spec``, in the order both backends give."""
    where, params = to_sql(spec, "f")
    # A read of named versions (a search re-reading its ranked ids) seeks them by id: left to
    # itself, the planner takes the (tenant, subject, ...) index for the order, and scans.
    seek = " INDEXED BY facts_id" if spec.ids is not None else ""
    sql = (f"SELECT f.body FROM facts f{seek} WHERE {where}\n"
           "ORDER BY f.subject, f.predicate, f.valid_from, f.revision, f.id")
    if limit is not None:
        sql += " LIMIT :asof_limit"
        params["asof_limit"] = limit
    return visible_facts(conn.execute(sql, params).fetchall(), spec, sealer)


def facts(conn: sqlite3.Connection, tenant: str, ids: Sequence[str],
          sealer: Sealer | None) -> dict[str, Fact]:
    rows = conn.execute(f"SELECT body FROM facts WHERE tenant = ? AND id IN {IN_LIST}",
                        (tenant, js(ids))).fetchall()
    found = {f.id: f for f in (fact_of(b, tenant, sealer) for (b,) in rows)}
    return {i: found[i] for i in ids if i in found}


def by_keys(conn: sqlite3.Connection, tenant: str, keys: Sequence[str], sealer: Sealer | None,
            live_only: bool) -> list[Fact]:
    """Every version of these assertion keys (only those not invalidated: ``live_only``), by
    key and revision."""
    live = " AND invalidated_at IS NULL" if live_only else ""
    rows = conn.execute(f"SELECT body FROM facts WHERE tenant = ? AND key IN {IN_LIST}{live}"
                        " ORDER BY key, revision, id", (tenant, js(keys))).fetchall()
    return [fact_of(b, tenant, sealer) for (b,) in rows]


def facts_in(conn: sqlite3.Connection, scope: Scope, kinds: Sequence[FactKind] | None,
             keys: Sequence[str] | None, sealer: Sealer | None) -> list[Fact]:
    """Every version whose scope holds all of ``scope``'s terms (``MemoryTx.facts_in``)."""
    sql = ("SELECT body FROM facts f WHERE tenant = ? AND NOT EXISTS (SELECT 1 FROM "
           "json_each(?) t WHERE t.value NOT IN (SELECT value FROM json_each(f.scope)))")
    params: list[Any] = [scope.tenant, js(scope.terms())]
    if kinds is not None:
        sql += f" AND kind IN {IN_LIST}"
        params.append(js([k.value for k in kinds]))
    if keys is not None:
        sql += f" AND key IN {IN_LIST}"
        params.append(js(keys))
    rows = conn.execute(sql + " ORDER BY key, revision, id", params).fetchall()
    return [fact_of(b, scope.tenant, sealer) for (b,) in rows]


def records(conn: sqlite3.Connection, label: str, tenant: str,
            ids: Sequence[str] | None) -> list[Any]:
    """Records of one label by id (every one of the tenant when ``ids`` is None), by id."""
    sql = "SELECT body FROM records WHERE tenant = ? AND label = ?"
    params: list[Any] = [tenant, label]
    if ids is not None:
        sql += f" AND id IN {IN_LIST}"
        params.append(js(ids))
    rows = conn.execute(sql + " ORDER BY id", params).fetchall()
    return [_MODELS[label].model_validate_json(b) for (b,) in rows]


def subjects(conn: sqlite3.Connection, tenant: str,
             names: Sequence[str] | None) -> list[Subject]:
    """``Store.subjects``: by id or identifier (the ``names`` table holds both), by id."""
    if names is None:
        return records(conn, SUBJECT, tenant, None)
    rows = conn.execute(
        "SELECT body FROM records WHERE tenant = ? AND label = ? AND id IN (SELECT subject FROM"
        f" names WHERE tenant = ? AND name IN {IN_LIST}) ORDER BY id",
        (tenant, SUBJECT, tenant, js(names))).fetchall()
    return [Subject.model_validate_json(b) for (b,) in rows]


def events(conn: sqlite3.Connection, tenant: str, actions: Sequence[str] | None,
           ids: Sequence[str] | None = None) -> list[Event]:
    sql = "SELECT body FROM records WHERE tenant = ? AND label = ?"
    params: list[Any] = [tenant, EVENT]
    if ids is not None:  # the records' key: a seek per id
        sql += f" AND id IN {IN_LIST}"
        params.append(js(ids))
    elif actions is not None:  # the planner would otherwise read every event of the tenant
        sql = sql.replace("FROM records", "FROM records INDEXED BY records_events")
        sql += f" AND action IN {IN_LIST}"
        params.append(js(actions))
    rows = conn.execute(sql + " ORDER BY at, id", params).fetchall()
    found = [Event.model_validate_json(b) for (b,) in rows]
    return found if ids is None or actions is None else [e for e in found
                                                          if e.action in actions]


def tenants_sql() -> tuple[str, dict[str, object]]:
    """Every tenant with an event (every change records one), sorted, read from the events'
    index, which leads with the tenant; the store's own settings (``SETTINGS_TENANT``) are
    no tenant, left out here so that no caller can forget to."""
    return ("SELECT DISTINCT tenant FROM records INDEXED BY records_events\n"
            "WHERE label = :label AND tenant != :settings ORDER BY tenant",
            {"label": EVENT, "settings": SETTINGS_TENANT})


def tenants(conn: sqlite3.Connection) -> list[str]:
    return [t for (t,) in conn.execute(*tenants_sql()).fetchall()]


def existing(conn: sqlite3.Connection, label: str, tenant: str, ids: Sequence[str]) -> set[str]:
    if label == FACT:
        sql, params = f"SELECT id FROM facts WHERE tenant = ? AND id IN {IN_LIST}", [tenant]
    else:
        sql = f"SELECT id FROM records WHERE tenant = ? AND label = ? AND id IN {IN_LIST}"
        params = [tenant, label]
    return {i for (i,) in conn.execute(sql, [*params, js(ids)])}


def supports(conn: sqlite3.Connection, tenant: str, fact_ids: Sequence[str],
             at: datetime | None) -> list[Support]:
    """Support edges holding at ``at`` (None: every one)."""
    sql = ("SELECT src, dst, props, recorded_at FROM edges e WHERE tenant = :tenant AND "
           "type = :type AND src IN (SELECT value FROM json_each(:ids))")
    params: dict[str, Any] = {"tenant": tenant, "type": SUPPORTED_BY, "ids": js(fact_ids)}
    if at is not None:
        sql += " AND " + holds_at("e", ":at")
        params["at"] = micros(at)
    found = [Support(fid, sid, datetime.fromisoformat(json.loads(p)["available_at"]),
                     when(recorded))
             for fid, sid, p, recorded in conn.execute(sql, params)]
    return sorted(found, key=lambda s: (s.fact_id, s.available_at, s.source_id))


def cited(conn: sqlite3.Connection, spec: AsOf, found: list[Fact]) -> list[Cited]:
    """Each fact of a read with the sources it cites at the resolved ``spec``'s cutoff and
    system instant (supports public by then and holding then), earliest first."""
    tenant = spec.scope.tenant
    edges = [e for e in supports(conn, tenant, [f.id for f in found], spec.system_at)
             if spec.known_at is not None and e.available_at <= spec.known_at]
    by_id = {s.id: s for s in records(conn, SOURCE, tenant, sorted({e.source_id
                                                                   for e in edges}))}
    cites: dict[str, list[Source]] = {}
    for e in edges:
        cites.setdefault(e.fact_id, []).append(by_id[e.source_id])
    return [(f, tuple(sorted(cites.get(f.id, []), key=lambda s: (s.available_at, s.id))))
            for f in found]


def input_sources(conn: sqlite3.Connection, tenant: str, fact_ids: Sequence[str],
                  known_at: datetime, system_at: datetime) -> dict[str, tuple[Source, ...]]:
    """``StoreTx.input_sources``: one recursive statement walks each fact up through the
    derivations that generated it (``GENERATED`` backwards, then ``USED``) and joins the
    supports of every fact it reaches, and their sources. UNION keeps each (item, fact) once,
    so a diamond of shared inputs is read once and a cycle would end."""
    live = {a: holds_at(a, ":at") for a in ("g", "u", "s")}
    sql = f"""
WITH RECURSIVE up(item, id) AS (
  SELECT value, value FROM json_each(:ids)
  UNION
  SELECT up.item, u.dst FROM up
  JOIN edges g INDEXED BY edges_in ON g.tenant = :tenant AND g.type = :generated
    AND g.dst = up.id
  JOIN edges u ON u.tenant = :tenant AND u.type = :used AND u.src = g.src
  WHERE {live["g"]} AND {live["u"]}
)
SELECT DISTINCT up.item, s.props, r.body FROM up
JOIN edges s ON s.tenant = :tenant AND s.type = :supported AND s.src = up.id
JOIN records r ON r.tenant = :tenant AND r.label = :source AND r.id = s.dst
WHERE up.item != up.id AND {live["s"]}"""
    params = {"tenant": tenant, "ids": js(list(dict.fromkeys(fact_ids))), "at": micros(system_at),
              "generated": GENERATED, "used": USED, "supported": SUPPORTED_BY, "source": SOURCE}
    found: dict[str, dict[str, Source]] = {}
    for item, props, body in conn.execute(sql, params):
        # Public by the cutoff, as ``cited`` reads a fact's own supports.
        if datetime.fromisoformat(json.loads(props)["available_at"]) <= known_at:
            source = Source.model_validate_json(body)
            found.setdefault(item, {})[source.id] = source
    return {item: tuple(sorted(by_id.values(), key=lambda s: (s.available_at, s.id)))
            for item, by_id in sorted(found.items())}


def walk(conn: sqlite3.Connection, tenant: str, start_ids: Sequence[str], direction: Direction,
         system_at: datetime, max_depth: int = 32,
         types: Sequence[str] = LINEAGE_TYPES) -> Walk:
    """Breadth first, one query per level: each level's live edges of ``types`` in the walk's
    direction (a ``GENERATED`` edge is followed against it: a derivation generated its
    output, so upstream of a fact is the derivation that generated it)."""
    ids = list(dict.fromkeys(start_ids))
    starts = [(label, i) for label in (FACT, SOURCE, DERIVATION)
              for i in sorted(existing(conn, label, tenant, ids))]
    depth: dict[tuple[str, str], int] = dict.fromkeys(starts, 0)
    edges: set[Edge] = set()
    frontier = starts
    forward = direction is Direction.UPSTREAM
    out_types = [t for t in types if (t == GENERATED) != forward]
    in_types = [t for t in types if (t == GENERATED) == forward]
    for level in range(1, max_depth + 1):
        if not frontier:
            break
        nxt: list[tuple[str, str]] = []
        for row, ahead in _level(conn, tenant, [i for _, i in frontier], out_types, in_types,
                                 system_at, set(frontier)):
            edges.add(edge_of(*row))
            if ahead not in depth:
                depth[ahead] = level
                nxt.append(ahead)
        frontier = nxt
    reached = tuple(sorted((Reached(i, label, d) for (label, i), d in depth.items() if d > 0),
                           key=lambda r: (r.depth, r.label, r.id)))
    return Walk(reached, tuple(sorted(edges, key=lambda e: (e.type, e.start, e.end))))


def _level(conn: sqlite3.Connection, tenant: str, ids: list[str], out_types: list[str],
           in_types: list[str], at: datetime, nodes: set[tuple[str, str]],
           ) -> list[tuple[tuple[Any, ...], tuple[str, str]]]:
    """The live edges leaving the frontier ``nodes`` (out: by start; in: by end), each with
    the node it leads to. An edge is taken only if its frontier end has the right label."""
    live = holds_at("e", ":at")
    cols = "src, type, dst, recorded_at, invalidated_at, gaps, props, src_label, dst_label"
    params = {"tenant": tenant, "ids": js(ids), "out": js(out_types), "in": js(in_types),
              "at": micros(at)}
    sql = (f"SELECT 1, {cols} FROM edges e WHERE tenant = :tenant AND type IN (SELECT value FROM"
           f" json_each(:out)) AND src IN (SELECT value FROM json_each(:ids)) AND {live}"
           f" UNION ALL SELECT 0, {cols} FROM edges e INDEXED BY edges_in WHERE tenant = :tenant"
           " AND type IN (SELECT"
           f" value FROM json_each(:in)) AND dst IN (SELECT value FROM json_each(:ids))"
           f" AND {live} ORDER BY 3, 2, 4")
    found = []
    for out, *row in conn.execute(sql, params):
        src, dst = (row[7], row[0]), (row[8], row[2])
        if (src if out else dst) in nodes:
            found.append((tuple(row[:7]), dst if out else src))
    return found


def justifications(conn: sqlite3.Connection, tenant: str, fact_ids: Sequence[str],
                   at: datetime) -> list[Justification]:
    """The live derivations generating each fact, with their live inputs: one query."""
    params = {"tenant": tenant, "ids": js(sorted(set(fact_ids))), "at": micros(at),
              "gen": GENERATED, "used": USED, "label": DERIVATION}
    rows = conn.execute(
        "SELECT g.dst, d.body, u.dst, json_extract(u.props, '$.role') FROM edges g"
        " INDEXED BY edges_in"
        " JOIN records d ON d.tenant = g.tenant AND d.label = :label AND d.id = g.src"
        " LEFT JOIN edges u ON u.tenant = g.tenant AND u.type = :used AND u.src = g.src AND "
        + holds_at("u", ":at") +
        " WHERE g.tenant = :tenant AND g.type = :gen AND g.dst IN (SELECT value FROM"
        " json_each(:ids)) AND " + holds_at("g", ":at"), params).fetchall()
    found: dict[tuple[str, str], tuple[DerivationIn, list[tuple[str, str]]]] = {}
    for output, body, used, role in rows:
        d = DerivationIn.model_validate_json(body)
        _, inputs = found.setdefault((output, d.id), (d, []))
        if used is not None:
            inputs.append((used, role))
    return sorted((Justification(d, out, tuple(sorted(inputs)))
                   for (out, _), (d, inputs) in found.items()),
                  key=lambda j: (j.output_id, j.derivation.id))


def generated_by(conn: sqlite3.Connection, tenant: str, derivation_ids: Sequence[str],
                 sealer: Sealer | None) -> dict[str, Fact]:
    rows = conn.execute(
        "SELECT e.src, f.body FROM edges e JOIN facts f ON f.tenant = e.tenant AND f.id = e.dst"
        f" WHERE e.tenant = ? AND e.type = ? AND e.src IN {IN_LIST}",
        (tenant, GENERATED, js(derivation_ids))).fetchall()
    return {d: fact_of(b, tenant, sealer) for d, b in rows}
