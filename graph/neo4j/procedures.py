"""Vintage's Neo4j plugin, its handshake, and the server-side cascade
(``docker/neo4j-plugin/.../Cascade.java``).

A cascade over 110,000 derived facts spends most of its time shipping the subgraph to Python
and deciding it there (bench/notes/history.md, "Cascade"). The plugin has ``vintage.cascade``,
a port of ``vintage.graph.writes.cascade.plan`` that finds and decides the subgraph inside the
server and returns only the decided rows, and ``vintage.cascade_close``, which also writes each
close from the node it holds (``vintage.graph.writes.cascade.close``: one statement, not a second
one that seeks every closed fact again by id). A Neo4j without the plugin (a managed service, a
server nobody added the jar to) runs the pure-Cypher path (``vintage.graph.neo4j.downstream``);
both are tested against the embedded reference (tests/test_cascade_equivalence.py), and the
procedures are again in the Java build (CascadeTest.java, from tests/golden/cascade_cases.json).

Whether to use the plugin is asked once, when the store prepares its schema (:func:`handshake`):
only a plugin of the version this package expects, built for the Neo4j that runs it, is used;
any other is left alone (one log line) and everything runs in Cypher, so a mismatched jar never
fails a request.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import datetime

import neo4j

from vintage.graph.core.model import Fact
from vintage.graph.derivations.derived import CycleError
from vintage.graph.neo4j import ranker
from vintage.graph.neo4j.cypher import CLOSED_FIRST, Query
from vintage.graph.neo4j.params import instant, micros
from vintage.graph.neo4j.rows import Runner
from vintage.graph.store.protocol import ConflictError
from vintage.graph.writes.cascade import CYCLE
from vintage.graph.writes.reach import Affected, FactRef

CASCADE = "vintage.cascade"  # its instants are integer microseconds (vintage.graph.neo4j.params)
CASCADE_CLOSE = "vintage.cascade_close"  # the same, and it writes the closes


PLUGIN_VERSION = "0.3.0"  # the plugin this package speaks to (docker/pom.xml's version)
VERSION = "vintage.version"  # the handshake: (plugin, neo4j), the Neo4j it was built for
NAMES = (VERSION, CASCADE, CASCADE_CLOSE, *ranker.NAMES)

log = logging.getLogger(__name__)


def handshake(session: neo4j.Session) -> bool:
    """Whether to use the plugin's procedures on this server (:func:`refusal` decides from
    what the server reports); when not, one log line says why and the Cypher paths serve."""
    found = {r["name"] for r in session.run(
        "SHOW PROCEDURES YIELD name WHERE name STARTS WITH 'vintage.' RETURN name")}
    server = plugin = built = None
    if VERSION in found:
        row = session.run(f"""
CALL dbms.components() YIELD name, versions WHERE name = 'Neo4j Kernel'
CALL {VERSION}() YIELD plugin, neo4j
RETURN versions[0] AS server, plugin, neo4j""").single()
        if row is not None:
            server, plugin, built = row["server"], row["plugin"], row["neo4j"]
    why = refusal(found, server, plugin, built)
    if why is not None:
        (log.info if not found else log.warning)("%s: the cascade and search run in Cypher", why)
    return why is None


def refusal(found: set[str], server: str | None, plugin: str | None,
            built: str | None) -> str | None:
    """Why the plugin is not used, or None to use it: every procedure is there, and the plugin
    is :data:`PLUGIN_VERSION`, built for the Neo4j the server runs (``server``)."""
    if not found:
        return "the Neo4j server has no Vintage plugin"
    if VERSION not in found or plugin is None:
        return f"the Neo4j server's Vintage plugin has no {VERSION} (an older jar): not used"
    if plugin != PLUGIN_VERSION:
        return (f"the Neo4j server's Vintage plugin is {plugin}, this package speaks to "
                f"{PLUGIN_VERSION}: not used")
    if built != server:
        return (f"the Neo4j server's Vintage plugin {plugin} was built for Neo4j {built}, the "
                f"server runs {server}: not used")
    missing = sorted(set(NAMES) - found)
    if missing:
        return f"the Neo4j server's Vintage plugin {plugin} lacks {', '.join(missing)}: not used"
    return None


def cascade_call(tenant: str, changed: Mapping[str, datetime | None], axis: str,
                 at: datetime, *, close: bool = False) -> Query:
    return Query(f"""
CALL {CASCADE_CLOSE if close else CASCADE}($tenant, $changed, $axis, $at)
YIELD id, subject, predicate, value, unit, sealed, depth, path, end
RETURN id, subject, predicate, value, unit, sealed, depth, path, end""", {
        "tenant": tenant, "axis": axis, "at": micros(at),
        "changed": {k: None if v is None else micros(v) for k, v in changed.items()}})


# How the server wraps a procedure's refusal (Cascade.java's cycle says
# vintage.graph.writes.cascade.CYCLE, its close guard CLOSED_FIRST).
_CALL_FAILED = "Neo.ClientError.Procedure.ProcedureCallFailed"


def decided(tx: Runner, tenant: str, changed: Mapping[str, datetime | None],
            axis: str, at: datetime, get_facts: Callable[[list[str]], dict[str, Fact]],
            *, close: bool = False) -> list[Affected]:
    """``get_facts`` reads sealed facts whole, to open their values. ``close``: the server
    writes each close too (``vintage.graph.writes.cascade.close``)."""
    query = cascade_call(tenant, changed, axis, at, close=close)
    affected: list[Affected] = []
    sealed: list[int] = []
    ends: dict[int | None, datetime | None] = {}  # a cascade ends its facts at a few instants
    try:
        for columns in tx.run(query.text, query.params):  # a chunk of facts a record, as columns
            for fid, subject, predicate, value, unit, is_sealed, depth, path, end in zip(
                    *columns, strict=True):
                if is_sealed:
                    sealed.append(len(affected))
                if end not in ends:
                    ends[end] = instant(end)
                affected.append(Affected(FactRef(fid, predicate, subject, value, unit), depth,
                                         tuple(path), ends[end]))
    except neo4j.exceptions.ClientError as exc:
        said = (exc.message or "") if exc.code == _CALL_FAILED else ""
        if CYCLE in said:
            raise CycleError(f"{CYCLE} (found by {CASCADE_CLOSE if close else CASCADE}): no "
                             "cascade can be decided over it") from exc
        if CLOSED_FIRST in said:  # the server's guard, as close_knowledge's count check
            raise ConflictError(CLOSED_FIRST) from exc
        raise
    if sealed:  # a sealed fact's value is ciphertext in the node: open it the usual way
        opened = get_facts([affected[i].fact.id for i in sealed])
        for i in sealed:
            a = affected[i]
            affected[i] = Affected(FactRef.of(opened[a.fact.id]), a.depth, a.path, a.ends_at)
    return affected
