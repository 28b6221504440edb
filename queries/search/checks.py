"""A search's checks after ranking: duplicates collapse, the sides of a conflict set go together.

They read only legal items: the ranked ones were re-read through the whole as-of predicate,
and the other sides of a conflict set are read through the same spec
(``vintage.queries.search.run``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import FactKind, Status
from vintage.graph.core.model import Fact, Source
from vintage.graph.store.protocol import Cited, Store
from vintage.queries.lineage.asof import as_known
from vintage.queries.search.fusion import Scored


@dataclass(frozen=True)
class Checked:
    fact: Fact
    sources: tuple[Source, ...]
    scored: Scored
    conflicts_with: tuple[str, ...]


def arrange(store: Store, spec: AsOf, scored: Sequence[Scored],
            read: Mapping[str, Cited]) -> list[Checked]:
    """``scored`` (best first, every id in ``read``) with duplicates collapsed and each
    conflict set's sides together, at the position of its best-ranked side."""
    kept = collapse(scored, {i: f for i, (f, _) in read.items()})
    sides = _conflict_sides(store, spec, [read[s.id][0] for s in kept
                                          if read[s.id][0].status is Status.CONFLICTED])
    by_id = {s.id: s for s in kept}
    out: list[Checked] = []
    placed: set[str] = set()
    for s in kept:
        if s.id in placed:
            continue
        fact, cited = read[s.id]
        others = [(f, c) for f, c in sides.get(_set_key(fact), [])
                  if f.id != s.id and fact.status is Status.CONFLICTED]
        # the other sides as they ranked, then those no leg found (score 0, no signals)
        others.sort(key=lambda fc: (-by_id[fc[0].id].score if fc[0].id in by_id else 1.0,
                                    fc[0].id))
        group = [(fact, cited), *others]
        ids = [f.id for f, _ in group]
        for f, c in group:
            out.append(Checked(f, c, by_id.get(f.id, Scored(f.id, 0.0, {})),
                               tuple(i for i in ids if i != f.id)))
            placed.add(f.id)
    return out


def collapse(scored: Sequence[Scored], facts: Mapping[str, Fact]) -> list[Scored]:
    """One item per assertion value: the versions (or scope echoes) of one subject, predicate,
    period, unit and value collapse to the current one (latest known, then latest recorded),
    which takes the best score and position among them; ``signals["collapsed"]`` counts the
    others."""
    groups: dict[tuple[object, ...], list[Scored]] = {}
    for s in scored:
        groups.setdefault(_same(facts[s.id]), []).append(s)
    kept = []
    for members in groups.values():
        best = members[0]
        current = max(members, key=lambda s: (facts[s.id].available_at,
                                              facts[s.id].recorded_at, facts[s.id].revision))
        signals = dict(current.signals)
        if len(members) > 1:
            signals["collapsed"] = float(len(members) - 1)
        kept.append(Scored(current.id, best.score, signals))
    return kept


def _same(f: Fact) -> tuple[object, ...]:
    """One assertion value. A filing's period is part of what it says (two quarters of one
    concept are two figures); a memory's event time is when it holds, which its echoes in
    other scopes state from their own observed times: they still say one thing."""
    period = (None, None) if f.kind in MEMORY_KINDS else (f.valid_from, f.valid_to)
    return (f.subject, f.predicate, *period, f.unit, type(f.value).__name__, f.value)


MEMORY_KINDS = frozenset(FactKind) - {FactKind.OBSERVATION, FactKind.DERIVED}


def _set_key(f: Fact) -> tuple[str, str, tuple[str, ...]]:
    """A conflict set: the sides of one memory in exactly one scope
    (vintage.graph.memory.conflicts)."""
    return f.subject, f.predicate, tuple(f.scope)


def _conflict_sides(store: Store, spec: AsOf,
                    conflicted: Sequence[Fact]) -> dict[tuple[str, str, tuple[str, ...]],
                                                        list[Cited]]:
    """Every legal side of the conflict sets ``conflicted`` belong to, in one read."""
    if not conflicted:
        return {}
    wanted = {_set_key(f) for f in conflicted}
    sides = replace(spec, ids=None, statuses=frozenset({Status.CONFLICTED}),
                    subjects=tuple(sorted({f.subject for f in conflicted})),
                    predicates=tuple(sorted({f.predicate for f in conflicted})))
    assert spec.known_at is not None and spec.system_at is not None
    found: dict[tuple[str, str, tuple[str, ...]], list[Cited]] = {}
    for f, cited in store.read_cited(sides):
        if _set_key(f) in wanted:
            found.setdefault(_set_key(f), []).append(
                (as_known(f, spec.known_at, spec.system_at), cited))
    return found


