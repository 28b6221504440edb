"""Reads over the embedded state that both the store and its transactions need: support
edges, records, lineage walks and justifications. Plain functions of ``State``; the caller
holds the store's lock."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

from vintage.graph.core.asof import AsOf, in_gap
from vintage.graph.core.labels import (
    DERIVATION,
    FACT,
    GENERATED,
    LINEAGE_TYPES,
    SOURCE,
    SUBJECT,
    SUPPORTED_BY,
    USED,
)
from vintage.graph.core.model import Fact, Source, Subject
from vintage.graph.embedded.state import Node, State
from vintage.graph.store.protocol import (
    Direction,
    Edge,
    Justification,
    Reached,
    Support,
    Walk,
)


def live(data: dict[str, Any], at: datetime) -> bool:
    """Whether a node's or an edge's system-time stamps hold at ``at``."""
    until = data.get("invalidated_at")
    return bool(data["recorded_at"] <= at and (until is None or at < until)
                and not in_gap(data.get("gaps_from", ()), data.get("gaps_to", ()), at))


def supports(state: State, tenant: str, fact_ids: Sequence[str],
             at: datetime | None) -> list[Support]:
    """Support edges holding at ``at`` (None: every one)."""
    graph = state.graph
    found = []
    for fid in fact_ids:
        node = (FACT, tenant, fid)
        if node not in graph:
            continue
        for _, dst, key, data in graph.out_edges(node, keys=True, data=True):
            if key == SUPPORTED_BY and (at is None or live(data, at)):
                found.append(Support(fid, dst[2], data["available_at"], data["recorded_at"]))
    return sorted(found, key=lambda s: (s.fact_id, s.available_at, s.source_id))


def cited(state: State, spec: AsOf, facts: list[Fact]) -> list[tuple[Fact, tuple[Source, ...]]]:
    """Each fact of a read with the sources it cites at the resolved ``spec``'s cutoff and
    system instant (supports public by then and holding then), earliest first."""
    tenant = spec.scope.tenant
    edges = [e for e in supports(state, tenant, [f.id for f in facts], spec.system_at)
             if spec.known_at is not None and e.available_at <= spec.known_at]
    by_id = {s.id: s for s in records(state, SOURCE, tenant, sorted({e.source_id
                                                                      for e in edges}))}
    found: dict[str, list[Source]] = {}
    for e in edges:
        found.setdefault(e.fact_id, []).append(by_id[e.source_id])
    return [(f, tuple(sorted(found.get(f.id, []), key=lambda s: (s.available_at, s.id))))
            for f in facts]


def records(state: State, label: str, tenant: str, ids: Sequence[str]) -> Iterator[Any]:
    for i in ids:
        node = state.graph.nodes.get((label, tenant, i))
        if node is not None:
            yield node["record"]


def subjects(state: State, tenant: str, names: Sequence[str] | None) -> list[Subject]:
    """``Store.subjects``: the tenant's subjects named by id or identifier, by id."""
    wanted = None if names is None else set(names)
    every = records(state, SUBJECT, tenant, state.subject_ids.get(tenant, []))
    return sorted((s for s in every if isinstance(s, Subject) and (
        wanted is None or s.id in wanted or not wanted.isdisjoint(s.identifiers))),
        key=lambda s: s.id)


def walk(
    state: State, tenant: str, start_ids: Sequence[str], direction: Direction,
    system_at: datetime, max_depth: int = 32, types: Sequence[str] = LINEAGE_TYPES,
) -> Walk:
    starts = [(label, tenant, i) for i in dict.fromkeys(start_ids)
              for label in (FACT, SOURCE, DERIVATION)
              if (label, tenant, i) in state.graph]
    depth: dict[Node, int] = dict.fromkeys(starts, 0)
    edges: list[Edge] = []
    frontier = list(starts)
    for level in range(1, max_depth + 1):
        nxt: list[Node] = []
        for node in frontier:
            for nb, edge in _steps(state, node, direction, system_at, set(types)):
                edges.append(edge)
                if nb not in depth:
                    depth[nb] = level
                    nxt.append(nb)
        frontier = nxt
    reached = tuple(sorted(
        (Reached(n[2], n[0], d) for n, d in depth.items() if d > 0),
        key=lambda r: (r.depth, r.label, r.id),
    ))
    return Walk(reached, tuple(sorted(set(edges), key=_edge_order)))


def _steps(
    state: State, node: Node, direction: Direction, at: datetime, types: set[str],
) -> Iterator[tuple[Node, Edge]]:
    forward = direction is Direction.UPSTREAM
    edges = state.graph.edges
    for key in sorted(types):
        if (key == GENERATED) != forward:
            for dst in sorted(state.out_by_type.get((node, key), ())):
                data = edges[node, dst, key]
                if live(data, at):
                    yield dst, Edge(node[2], key, dst[2], _props(data))
        else:
            for src in sorted(state.in_by_type.get((node, key), ())):
                data = edges[src, node, key]
                if live(data, at):
                    yield src, Edge(src[2], key, node[2], _props(data))


def _props(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


def _edge_order(e: Edge) -> tuple[str, str, str]:
    return (e.type, e.start, e.end)


def justifications(
    state: State, tenant: str, fact_ids: Sequence[str], at: datetime,
) -> list[Justification]:
    g = state.graph
    found = []
    for fid in sorted(set(fact_ids)):
        node = (FACT, tenant, fid)
        if node not in g:
            continue
        for d, _, key, data in g.in_edges(node, keys=True, data=True):
            if key != GENERATED or not live(data, at):
                continue
            inputs = tuple(sorted(
                (dst[2], e["role"]) for _, dst, k, e in g.out_edges(d, keys=True, data=True)
                if k == USED and live(e, at)
            ))
            found.append(Justification(g.nodes[d]["record"], fid, inputs))
    return sorted(found, key=lambda j: (j.output_id, j.derivation.id))

def generated_by(state: State, tenant: str, derivation_ids: Sequence[str]) -> dict[str, Fact]:
    g = state.graph
    found = {}
    for did in derivation_ids:
        node = (DERIVATION, tenant, did)
        if node in g:
            for _, dst, key in g.out_edges(node, keys=True):
                if key == GENERATED:
                    found[did] = g.nodes[dst]["record"]
    return found
