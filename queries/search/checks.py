"""A search's checks after ranking (duplicates, conflict sets) and its two-stage filter.

Both read only legal items: the ranked ones were re-read through the whole as-of predicate,
and the other sides of a conflict set are read through the same spec
(``vintage.queries.search.run``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from vintage.graph.core.asof import AsOf
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.kinds import Status
from vintage.graph.core.model import Fact, Source
from vintage.graph.store.protocol import Cited, Store
from vintage.queries.lineage.asof import as_known
from vintage.queries.search.fusion import Scored

_PERIOD = re.compile(r"(\d{4})(?:[Qq]([1-4]))?")


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
    return (f.subject, f.predicate, f.valid_from, f.valid_to, f.unit, type(f.value).__name__,
            f.value)


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


def calendar_period(text: str) -> tuple[datetime, datetime]:
    """``2018`` or ``2018Q1`` as a half-open window of UTC instants."""
    m = _PERIOD.fullmatch(text.strip())
    if m is None:
        raise InvalidArgument(f"period {text[:40]!r}: give a calendar year (2018) or quarter "
                              "(2018Q1)")
    year, quarter = int(m.group(1)), m.group(2)
    if quarter is None:
        return datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)
    q = int(quarter)
    start = datetime(year, 3 * q - 2, 1, tzinfo=UTC)
    end = datetime(year + (q == 4), 1 if q == 4 else 3 * q + 1, 1, tzinfo=UTC)
    return start, end


def two_stage_ids(store: Store, spec: AsOf, form: str | None,
                  period: str | None) -> tuple[str, ...]:
    """Stage one of a two-stage search: the legal facts of ``spec`` whose valid period lies in
    ``period`` and that a source of ``form`` supports at the cutoff (case aside). Ranking then
    runs over these ids only."""
    window = calendar_period(period) if period is not None else None
    wanted = form.strip().casefold() if form is not None else None
    keep = []
    for f, cited in store.read_cited(spec):
        if window is not None and not (window[0] <= f.valid_from and f.valid_to is not None
                                       and f.valid_to <= window[1]):
            continue
        if wanted is not None and not any((s.form or "").casefold() == wanted for s in cited):
            continue
        keep.append(f.id)
    return tuple(sorted(keep))
