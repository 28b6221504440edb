"""Cascade: what a change to some facts does to every derived fact downstream of them.

Found by one traversal (``USED``/``GENERATED`` edges live now), then decided by justification-
based truth maintenance over that subgraph, in topological order, written once for both
backends. A derived fact holds while at least one of its derivations holds, and a derivation
holds while all of its inputs do. With interval ends instead of booleans the same rule serves
both axes:

    end(fact) = max over its derivations of (min over that derivation's inputs of end(input))

where ``None`` is "open" (never ends). On the knowledge axis an end is ``superseded_at``; on the
system axis it is the instant the input was invalidated or lost its last source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from graphlib import TopologicalSorter

from graph.labels import FACT, GENERATED, USED
from graph.model import Fact
from graph.store import Direction, Justification, StoreTx, Walk

MAX_DEPTH = 256


class Axis(StrEnum):
    KNOWLEDGE = "knowledge"  # a supersede: the fact stops being current at superseded_at
    SYSTEM = "system"  # an invalidation or retraction: the engine stops holding the fact


class Fate(StrEnum):
    SURVIVES = "survives"  # another justification still holds it
    CLOSED = "closed"  # its interval ends (or now ends elsewhere); not recomputed
    UNCHANGED = "unchanged"  # recomputed to the same value: stays current, cascade stops
    RECOMPUTED = "recomputed"  # recomputed to a new value: a new version supersedes it
    REOPENED = "reopened"  # held again after the retraction that closed it was undone
    REINSTATED = "reinstated"  # current again: the version that closed it left the engine


@dataclass(frozen=True)
class Outcome:
    """What a change did to one fact (``graph.corrections``, ``graph.reinstate``)."""

    fact: Fact
    depth: int
    path: tuple[str, ...]
    fate: Fate
    ends_at: datetime | None
    replacement: Fact | None = None


@dataclass(frozen=True)
class Affected:
    fact: Fact
    depth: int  # derivation steps from the nearest changed input (1: derived from it directly)
    path: tuple[str, ...]  # fact ids, changed input first, this fact last
    ends_at: datetime | None  # None: another justification still holds it


@dataclass
class Plan:
    changed: dict[str, datetime]
    affected: list[Affected] = field(default_factory=list)
    justifications: dict[str, list[Justification]] = field(default_factory=dict)
    facts: dict[str, Fact] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    paths: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def closing(self) -> list[Affected]:
        return [a for a in self.affected if a.ends_at is not None]


def downstream(
    tx: StoreTx, starts: Sequence[str], now: datetime, also: Sequence[str] = (),
) -> Plan:
    """Every fact derived downstream of ``starts`` (live ``USED``/``GENERATED`` edges), and
    the facts of ``also`` (starts that must be decided too), with their live justifications
    and the facts those use, in topological order; no end decided yet."""
    result = Plan({})
    if not starts:
        return result
    walk = tx.walk(sorted(starts), Direction.DOWNSTREAM, now, MAX_DEPTH, (USED, GENERATED))
    derived = sorted((walk.ids(FACT) - set(starts)) | set(also))
    result.paths = _paths(walk, set(starts))
    if not derived:
        return result
    justs = tx.justifications(derived, now)
    for j in justs:
        result.justifications.setdefault(j.output_id, []).append(j)
    inputs = {fid for j in justs for fid, _ in j.inputs}
    result.facts = tx.get_facts(sorted(set(derived) | inputs))
    reached = set(derived)  # a set: membership is tested once per input edge
    graph = {fid: {i for j in result.justifications.get(fid, []) for i, _ in j.inputs
                   if i in reached}
             for fid in derived}
    result.order = list(TopologicalSorter(graph).static_order())
    return result


def plan(tx: StoreTx, changed: Mapping[str, datetime], axis: Axis, now: datetime) -> Plan:
    """Decide, without writing, which downstream derived facts end, and when."""
    result = downstream(tx, sorted(changed), now)
    result.changed = dict(changed)
    ends: dict[str, datetime | None] = dict(changed)
    paths = result.paths
    for fid in result.order:
        fact = result.facts[fid]
        already = _end(fact, axis)
        if already is not None:
            ends[fid] = already
            continue
        ends[fid] = justified_until(result.justifications.get(fid, []), ends, result.facts,
                                     axis)
        path = paths.get(fid, (fid,))
        result.affected.append(Affected(fact, (len(path) - 1) or 1, path, ends[fid]))
    return result


def _end(fact: Fact, axis: Axis) -> datetime | None:
    return fact.superseded_at if axis is Axis.KNOWLEDGE else fact.invalidated_at


def justified_until(
    justs: list[Justification], ends: Mapping[str, datetime | None],
    facts: Mapping[str, Fact], axis: Axis,
) -> datetime | None:
    if not justs:
        return None  # no live derivation: nothing here for the cascade to decide
    latest: datetime | None = None
    for j in justs:
        stops = [ends[i] if i in ends else _end(facts[i], axis) for i, _ in j.inputs]
        finite = [s for s in stops if s is not None]
        if not finite:
            return None  # every input of this justification holds: so does the fact
        first = min(finite)  # a justification ends with the first of its inputs to end
        latest = first if latest is None or first > latest else latest
    return latest


def _paths(walk: Walk, starts: set[str]) -> dict[str, tuple[str, ...]]:
    """Shortest fact-to-fact path from a changed input to each reached fact."""
    fed: dict[str, list[str]] = {}  # input fact -> derivations that used it
    made: dict[str, list[str]] = {}  # derivation -> facts it generated
    for e in walk.edges:
        if e.type == USED:
            fed.setdefault(e.end, []).append(e.start)
        elif e.type == GENERATED:
            made.setdefault(e.start, []).append(e.end)
    paths: dict[str, tuple[str, ...]] = {s: (s,) for s in sorted(starts)}
    frontier = sorted(starts)
    while frontier:
        nxt = []
        for fid in frontier:
            for d in sorted(fed.get(fid, [])):
                for out in sorted(made.get(d, [])):
                    if out not in paths:
                        paths[out] = (*paths[fid], out)
                        nxt.append(out)
        frontier = nxt
    return paths
