"""A cascade's subgraph read from Neo4j level by level, as ids and instants
(``vintage.graph.writes.reach``).

One query per derivation level (two for the common "inputs, then metrics over them"), each
returning per newly reached fact its report fields, its ends as integer microseconds and its
live justifications as ids. Nothing is decoded that the decision does not use: the full-map
walk this replaces spent 0.3-0.6 ms a fact decoding properties (bench/notes/history.md, "Cascade").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from vintage.graph.core.model import Fact
from vintage.graph.neo4j import cypher_lineage as lineage
from vintage.graph.neo4j.params import instant
from vintage.graph.neo4j.rows import Runner
from vintage.graph.writes.reach import MAX_DEPTH, Downstream, Ends, FactRef, Reach


def read_downstream(tx: Runner, tenant: str, start_ids: Sequence[str],
                    at: datetime, get_facts: Callable[[list[str]], dict[str, Fact]],
                    ) -> Downstream:
    """``get_facts`` reads sealed facts whole, to open their values."""
    seen = set(start_ids)
    reached: dict[str, Reach] = {}
    ends: dict[str, Ends] = {}
    sealed: list[str] = []
    frontier = sorted(seen)
    for _ in range(MAX_DEPTH):
        if not frontier:
            break
        query = lineage.downstream_level(tenant, frontier, at)
        frontier = []
        for fid, subject, predicate, value, unit, is_sealed, k, s, justs in tx.run(
                query.text, query.params):
            if fid in seen:
                continue  # reached at a shallower level, or a start
            seen.add(fid)
            frontier.append(fid)
            ends[fid] = Ends(instant(k), instant(s))
            reached[fid] = Reach(FactRef(fid, predicate, subject, value, unit),
                                 _justifications(justs, ends))
            if is_sealed:
                sealed.append(fid)
        frontier.sort()
    if sealed:  # a sealed fact's value is ciphertext in the node: open it the usual way
        for fid, fact in get_facts(sealed).items():
            reached[fid] = Reach(FactRef.of(fact), reached[fid].justifications)
    return Downstream(reached, ends)


def _justifications(
    justs: list[list[Any]], ends: dict[str, Ends],
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    found = []
    for did, inputs in justs:
        for iid, k, s in inputs:
            if iid not in ends:
                ends[iid] = Ends(instant(k), instant(s))
        found.append((did, tuple(sorted({i[0] for i in inputs}))))
    return tuple(sorted(found))
