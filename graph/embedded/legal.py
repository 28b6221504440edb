"""The legal set of a search on the embedded store: the as-of predicate over the tenant's facts
that have a search entry, fast enough to run before every ranking.

``vintage.graph.core.asof.to_predicate`` stays the one judge of what is legal. A Python call per
fact is what costs (microseconds each: a tenant of 100k entries is a fraction of a second), so a
numpy pre-mask over columns of the fields the predicate reads drops first what the predicate would
drop anyway (another scope, a status or kind not asked, erased, not yet public or recorded,
invalidated, closed by the cutoff, outside the valid window), and the predicate runs only on
the rows left. The pre-mask may keep a fact the predicate refuses (gaps and past closures,
subjects, predicates are left to it), never the reverse.

The columns are kept with the tenant's ranking structures and follow its facts: a fact is a
frozen model replaced whole on every change, so each read re-reads the rows whose fact is no
longer the object they were read from (a comparison of identities per row, in C).
"""

from __future__ import annotations

import operator
from datetime import UTC, datetime, timedelta

import numpy as np
import numpy.typing as npt

from vintage.graph.core.asof import AsOf, scope_test, to_predicate
from vintage.graph.core.kinds import FactKind, Status
from vintage.graph.core.model import Fact

Mask = npt.NDArray[np.bool_]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICRO = timedelta(microseconds=1)
NEVER = np.iinfo(np.int64).max  # an absent bound: later than any instant a read names
_STATUS = {s: n for n, s in enumerate(Status)}
_KIND = {k: n for n, k in enumerate(FactKind)}


def micros(t: datetime | None) -> int:
    """An instant as whole microseconds since the epoch (exact: instants are UTC with
    microseconds at most, so the order of the integers is the order of the instants)."""
    return NEVER if t is None else (t - _EPOCH) // _MICRO


class Columns:
    """The fields the as-of predicate reads, one column each, row ``n`` for fact ``ids[n]``."""

    def __init__(self, ids: list[str]) -> None:
        n = len(ids)
        self.ids = ids
        self.row = {i: r for r, i in enumerate(ids)}
        self.facts: list[Fact | None] = [None] * n  # what each row was last read from
        self.present = np.zeros(n, dtype=np.bool_)  # the fact is there
        self.erased = np.zeros(n, dtype=np.bool_)
        self.status = np.zeros(n, dtype=np.int8)
        self.kind = np.zeros(n, dtype=np.int8)
        # Each distinct scope a fact has, by number: a column of numbers stays small where a
        # mask per scope term would not (a tenant of many users).
        self.scope = np.zeros(n, dtype=np.int64)
        self.scopes: dict[tuple[str, ...], int] = {}
        # available, recorded, invalidated, closed (superseded_at, counted from
        # superseded_recorded_at), valid_from, holds_until (valid_to or the expiry, earlier)
        self.instants = {name: np.full(n, NEVER, dtype=np.int64) for name in (
            "available", "recorded", "invalidated", "closed_at", "closed_from", "valid_from",
            "holds_until")}

    def refresh(self, facts: dict[str, Fact]) -> list[Fact | None]:
        """Re-read the rows whose fact changed since; the tenant's facts, row for row."""
        current = list(map(facts.get, self.ids))
        if current == self.facts:  # identical rows compare by identity alone, in C
            return current
        changed = np.fromiter(map(operator.is_not, current, self.facts), dtype=np.bool_,
                              count=len(current))
        for n in np.flatnonzero(changed).tolist():
            self._read(n, current[n])
        return current

    def _read(self, n: int, fact: Fact | None) -> None:
        self.facts[n] = fact
        self.present[n] = fact is not None
        if fact is None:
            return
        self.erased[n] = fact.erased_at is not None
        self.scope[n] = self.scopes.setdefault(fact.scope, len(self.scopes))
        self.status[n] = _STATUS[fact.status]
        self.kind[n] = _KIND[fact.kind]
        closed = fact.superseded_at is not None and fact.superseded_recorded_at is not None
        ends = [t for t in (fact.valid_to, fact.expires_at) if t is not None]
        for name, t in (("available", fact.available_at), ("recorded", fact.recorded_at),
                        ("invalidated", fact.invalidated_at),
                        ("closed_at", fact.superseded_at if closed else None),
                        ("closed_from", fact.superseded_recorded_at if closed else None),
                        ("valid_from", fact.valid_from),
                        ("holds_until", min(ends) if ends else None)):
            self.instants[name][n] = micros(t)

    def in_scope(self, spec: AsOf) -> Mask:
        """The rows whose fact holds every scope term of ``spec`` (exactly the predicate's
        scope clause: a search counts its matches within the scope only)."""
        holds = scope_test(spec)
        if not spec.scope.keys and not spec.shared_only:
            return self.present.copy()
        within = [number for scope, number in self.scopes.items() if holds(scope)]
        return self.present & np.isin(self.scope, within)

    def premask(self, spec: AsOf, in_scope: Mask) -> Mask:
        """The rows ``in_scope`` narrowed by the hard filters that are plain comparisons: a
        superset of the rows the predicate admits."""
        if spec.known_at is None or spec.system_at is None:
            raise ValueError("resolve the as-of spec against a clock before reading")
        known, system = micros(spec.known_at), micros(spec.system_at)
        c = self.instants
        mask = in_scope & ~self.erased
        mask &= np.isin(self.status, [_STATUS[s] for s in spec.statuses])
        if spec.kinds is not None:
            mask &= np.isin(self.kind, [_KIND[k] for k in spec.kinds])
        mask &= (c["available"] <= known) & (c["recorded"] <= system)
        mask &= system < c["invalidated"]
        mask &= ~((c["closed_from"] <= system) & (c["closed_at"] <= known))
        start, end = spec.valid.start, spec.valid.end
        if spec.valid.is_instant:
            at = micros(start)
            mask &= (c["valid_from"] <= at) & (at < c["holds_until"])
        else:
            if end is not None:
                mask &= c["valid_from"] < micros(end)
            if start is not None:
                mask &= micros(start) < c["holds_until"]
        return mask


def legal(columns: Columns, facts: dict[str, Fact], spec: AsOf) -> tuple[Mask, Mask]:
    """The rows the whole as-of predicate admits (only rows of ``spec.ids`` when it names
    some), and the rows within the read's scope."""
    current = columns.refresh(facts)
    in_scope = columns.in_scope(spec)
    candidates = columns.premask(spec, in_scope)
    if spec.ids is not None:
        named = np.zeros(len(columns.ids), dtype=np.bool_)
        named[[columns.row[i] for i in set(spec.ids) if i in columns.row]] = True
        candidates &= named
    rows = np.flatnonzero(candidates)
    visible = to_predicate(spec)
    admitted = np.fromiter((f is not None and visible(f) for f in map(current.__getitem__,
                                                                        rows.tolist())),
                           dtype=np.bool_, count=len(rows))
    found = np.zeros(len(columns.ids), dtype=np.bool_)
    found[rows[admitted]] = True
    return found, in_scope
