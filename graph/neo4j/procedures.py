"""The launcher's optional server-side cascade (``docker/neo4j-embedded/.../Cascade.java``).

A cascade over 110,000 derived facts spends most of its time shipping the subgraph to Python
and deciding it there (bench/RESULTS.md, "Cascade"). The launcher registers ``vintage.cascade``,
a port of ``vintage.graph.writes.cascade.plan`` that finds and decides the subgraph inside the
server and returns only the decided rows, and ``vintage.cascade_close``, which also writes each
close from the node it holds (``vintage.graph.writes.cascade.close``: one statement, not a second
one that seeks every closed fact again by id). A stock Neo4j (the compose file's image, a managed
service) has no such procedure and runs the pure-Cypher path (``vintage.graph.neo4j.downstream``);
both are tested against the embedded reference (tests/test_cascade_equivalence.py).

Whether a server has it is asked once, when the store prepares its schema; nothing asks
before.
"""

from __future__ import annotations

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


def available(session: neo4j.Session) -> bool:
    """Whether the server has the launcher's procedures: this cascade and the ranker
    (vintage.graph.neo4j.ranker), which the launcher registers together."""
    names = [CASCADE, CASCADE_CLOSE, *ranker.NAMES]
    rows = session.run("SHOW PROCEDURES YIELD name WHERE name IN $names RETURN count(*) AS n",
                       {"names": names}).single()
    return bool(rows and rows["n"] == len(names))


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
