"""Cascade: what a change to some facts does to every derived fact downstream of them.

Found by one traversal (``USED``/``GENERATED`` edges live now), then decided by justification-
based truth maintenance over that subgraph, in topological order, written once for both
backends. A derived fact holds while at least one of its derivations holds, and a derivation
holds while all of its inputs do. With interval ends instead of booleans the same rule serves
both axes:

    end(fact) = max over its derivations of (min over that derivation's inputs of end(input))

where ``None`` is "open" (never ends). On the knowledge axis an end is ``superseded_at``; on the
system axis it is the instant the input was invalidated or lost its last source.

The store answers the subgraph as ids and instants (``vintage.graph.writes.reach``): a cascade over
110,000 derived facts decides on strings and datetimes, never on decoded property maps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from graphlib import CycleError as GraphCycle
from graphlib import TopologicalSorter

from vintage.graph.core.model import Fact
from vintage.graph.derivations.derived import CycleError
from vintage.graph.store.protocol import Closure, Invalidation, StoreTx
from vintage.graph.writes.reach import MAX_DEPTH, Affected, Decides, Downstream, Ends, FactRef

__all__ = ["MAX_DEPTH", "Affected", "Axis", "Chains", "Fate", "Outcome", "Plan", "close",
           "downstream", "justified_until", "plan"]


class Axis(StrEnum):
    KNOWLEDGE = "knowledge"  # a supersede: the fact stops being current at superseded_at
    SYSTEM = "system"  # an invalidation or retraction: the engine stops holding the fact

    def end(self, ends: Ends) -> datetime | None:
        return ends.knowledge if self is Axis.KNOWLEDGE else ends.system


class Fate(StrEnum):
    SURVIVES = "survives"  # another justification still holds it
    CLOSED = "closed"  # its interval ends (or now ends elsewhere); not recomputed
    UNCHANGED = "unchanged"  # recomputed to the same value: stays current, cascade stops
    RECOMPUTED = "recomputed"  # recomputed to a new value: a new version supersedes it
    REOPENED = "reopened"  # held again after the retraction that closed it was undone
    REINSTATED = "reinstated"  # current again: the version that closed it left the engine


@dataclass(frozen=True)
class Outcome:
    """What a change did to one fact (``corrections``, ``reinstate``)."""

    fact: FactRef
    depth: int
    path: tuple[str, ...]
    fate: Fate
    ends_at: datetime | None
    replacement: Fact | None = None


@dataclass
class Plan:
    """The decided cascade of a change: each reached fact still open on the axis, in
    topological order, with the end its justifications give it."""

    changed: dict[str, datetime]
    down: Downstream
    affected: list[Affected] = field(default_factory=list)

    def inputs(self, fid: str) -> list[tuple[str, ...]]:
        """The input ids of each live justification of a reached fact."""
        return [ids for _, ids in self.down.reached[fid].justifications]


def plan(tx: StoreTx, changed: Mapping[str, datetime], axis: Axis, now: datetime) -> Plan:
    """Decide, without writing, which downstream derived facts end, and when."""
    down = tx.downstream(sorted(changed), now)
    result = Plan(dict(changed), down)
    ends: dict[str, datetime | None] = dict(changed)
    paths = _paths(down, set(changed))
    for fid in _topological({fid: result.inputs(fid) for fid in down.reached}):
        already = axis.end(down.ends[fid])
        if already is not None:
            ends[fid] = already
            continue
        ends[fid] = justified_until(result.inputs(fid), _lookup(ends, down, axis))
        path = paths.get(fid, (fid,))
        result.affected.append(Affected(down.reached[fid].fact, (len(path) - 1) or 1, path,
                                        ends[fid]))
    return result


def close(tx: StoreTx, changed: Mapping[str, datetime], axis: Axis,
          now: datetime) -> list[Affected]:
    """``plan(...).affected``, with every fact it ends closed at ``now`` (knowledge: at its end,
    recorded now; system: invalidated now). Decided and written by the store itself where it
    can (``reach.Decides``), in one call and without the subgraph that recompute needs."""
    if isinstance(tx, Decides):
        affected = tx.close_cascade(changed, axis.value, now)
        if affected is not None:
            return affected
    affected = plan(tx, changed, axis, now).affected
    if axis is Axis.KNOWLEDGE:
        tx.close_knowledge([Closure(a.fact.id, a.ends_at, now) for a in affected
                            if a.ends_at is not None])
    else:
        tx.invalidate_facts([Invalidation(a.fact.id, now) for a in affected
                             if a.ends_at is not None])
    return affected


def _lookup(
    ends: Mapping[str, datetime | None], down: Downstream, axis: Axis,
) -> Callable[[str], datetime | None]:
    return lambda i: ends[i] if i in ends else axis.end(down.ends[i])


def justified_until(
    justifications: Iterable[Sequence[str]], end_of: Callable[[str], datetime | None],
) -> datetime | None:
    """The end a fact's justifications (each its input ids) give it; None: it holds."""
    latest: datetime | None = None
    seen = False
    for inputs in justifications:
        seen = True
        finite = [s for s in map(end_of, inputs) if s is not None]
        if not finite:
            return None  # every input of this justification holds: so does the fact
        first = min(finite)  # a justification ends with the first of its inputs to end
        latest = first if latest is None or first > latest else latest
    return latest if seen else None  # no live derivation: nothing for the cascade to decide


# Said by the reference below and, word for word, by the plugin's procedure (Cascade.java),
# whose refusal vintage.graph.neo4j.procedures recognises by it.
CYCLE = "the derivation graph downstream of the change has a cycle"


def _topological(inputs: Mapping[str, Iterable[Sequence[str]]]) -> list[str]:
    """These facts, each after those of them it is derived from (``inputs``: per fact, the input
    ids of each justification; ties by id, so both backends list a cascade in one order)."""
    graph = {fid: sorted({i for ids in inputs[fid] for i in ids if i in inputs})
             for fid in sorted(inputs)}
    try:
        return list(TopologicalSorter(graph).static_order())
    except GraphCycle as exc:  # Vintage never writes one: a hand-edited store
        raise CycleError(f"{CYCLE} through {', '.join(exc.args[1])}: no cascade can be decided "
                         "over it") from exc


def _paths(down: Downstream, starts: set[str]) -> dict[str, tuple[str, ...]]:
    """Shortest fact-to-fact path from a changed input to each reached fact (ties: the
    smallest derivation id, then the smallest output id)."""
    fed: dict[str, set[str]] = {}  # input fact -> derivations that used it
    made: dict[str, set[str]] = {}  # derivation -> facts it generated
    for fid, reach in down.reached.items():
        for did, ids in reach.justifications:
            made.setdefault(did, set()).add(fid)
            for i in ids:
                fed.setdefault(i, set()).add(did)
    paths: dict[str, tuple[str, ...]] = {s: (s,) for s in sorted(starts)}
    frontier = sorted(starts)
    while frontier:
        nxt = []
        for fid in frontier:
            for d in sorted(fed.get(fid, ())):
                for out in sorted(made[d]):
                    if out not in paths:
                        paths[out] = (*paths[fid], out)
                        nxt.append(out)
        frontier = nxt
    return paths


@dataclass
class Chains:
    """The downstream subgraph with whole facts: what re-ending knowledge
    (``vintage.graph.writes.reinstate``) and reopening need, which compare versions and revisions.
    ``justifications``: per fact,
    the input ids of each of its live justifications."""

    justifications: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)
    facts: dict[str, Fact] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    paths: dict[str, tuple[str, ...]] = field(default_factory=dict)


def downstream(
    tx: StoreTx, starts: Sequence[str], now: datetime, also: Sequence[str] = (),
) -> Chains:
    """Every fact derived downstream of ``starts`` (live ``USED``/``GENERATED`` edges), and
    the facts of ``also`` (starts that must be decided too), with their live justifications
    and the facts those use, in topological order; no end decided yet."""
    result = Chains()
    if not starts:
        return result
    down = tx.downstream(sorted(starts), now)
    result.paths = _paths(down, set(starts))
    result.justifications = {fid: [ids for _, ids in r.justifications]
                             for fid, r in down.reached.items()}
    extra = sorted(set(also) - set(down.reached))  # the subgraph holds the others' already
    for j in tx.justifications(extra, now) if extra else []:
        result.justifications.setdefault(j.output_id, []).append(
            tuple(sorted({i for i, _ in j.inputs})))
    derived = sorted(set(down.reached) | set(also))
    if not derived:
        return result
    inputs = {i for fid in derived for ids in result.justifications.get(fid, []) for i in ids}
    result.facts = tx.get_facts(sorted(set(derived) | inputs))
    result.order = _topological({fid: result.justifications.get(fid, []) for fid in derived})
    return result
