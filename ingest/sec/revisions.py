"""Why a later filing reports another value for the same fact: the change classes.

Pure functions over the rows of one companyfacts file (no store). A revision is a row whose
value differs from the previous filing's value for the same (taxonomy, concept, unit, period).
Its class, checked in this order:

- **rounding**: the two values differ by no more than half the coarser precision the figures
  show (trailing zeros of integers, decimals of fractions): 2,310,011,000 then 2,310,000,000.
- **split adjustment**: a per-share value (unit ``*/shares``) or a share count (``shares``)
  changed by the one ratio the filing applies to all of its per-share and share revisions
  (NVIDIA's 10:1 in 2024: diluted EPS 11.93 then 1.19), within the precision of the figures.
- **restatement** when the filing is an amendment (``10-K/A``, ``10-Q/A``).
- **reclassification**: lines move while their total stays: in the same filing, period and unit
  another concept moved by the opposite amount, and no bottom line (net income, total assets,
  ...) of that period changed (Alphabet's 2019 recast of Q1-2018 operating income).
- **restatement**: the rest.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from itertools import pairwise

from vintage.graph.core.kinds import Change

BOTTOM_LINES = frozenset({
    "us-gaap:NetIncomeLoss", "us-gaap:ProfitLoss", "us-gaap:Assets",
    "us-gaap:LiabilitiesAndStockholdersEquity", "ifrs-full:ProfitLoss",
    "ifrs-full:ProfitLossAttributableToOwnersOfParent", "ifrs-full:Assets",
    "ifrs-full:EquityAndLiabilities",
})
_MAX_INT_PRECISION = 12  # a figure with more trailing zeros is still "in billions" at most
_RATIO_SLACK = 0.1  # how far a revision's ratio may sit from a whole split ratio to vote for it


@dataclass(frozen=True, slots=True)
class Row:
    """One reported value: a (fact, filing) pair of a companyfacts file."""

    taxonomy: str
    concept: str
    unit: str
    start: date | None  # None: an instant (a balance at the end of ``end``)
    end: date  # inclusive, SEC convention
    value: int | float
    accn: str
    form: str
    filed: date
    # Where the row is in its file (for errors): its ordinal and JSON path. Not part of what
    # the row says, so rows that say the same compare equal.
    number: int = field(default=0, compare=False)
    where: str = field(default="", compare=False)

    @property
    def predicate(self) -> str:
        return f"{self.taxonomy}:{self.concept}"

    @property
    def key(self) -> tuple[str, str, str, date | None, date]:
        return (self.taxonomy, self.concept, self.unit, self.start, self.end)


@dataclass(frozen=True, slots=True)
class ValueChange:
    row: Row  # the row that reported the new value
    previous: int | float

    @property
    def delta(self) -> float:
        return float(self.row.value) - float(self.previous)


def in_filing_order(rows: Iterable[Row]) -> list[Row]:
    """Rows ordered as the world learned them: by filed date, then accession."""
    return sorted(rows, key=lambda r: (r.filed, r.accn))


def revisions(rows: Sequence[Row]) -> list[ValueChange]:
    """Every row whose value differs from the previous filing's value for its fact."""
    by_key: dict[tuple[str, str, str, date | None, date], list[Row]] = defaultdict(list)
    for row in rows:
        by_key[row.key].append(row)
    found = []
    for group in by_key.values():
        ordered = in_filing_order(group)
        found += [ValueChange(new, old.value) for old, new in pairwise(ordered)
                  if new.value != old.value]
    return found


def precision(value: int | float) -> float:
    """The unit of the last significant digit the figure shows: 1000 for 2,310,011,000."""
    if isinstance(value, int):
        if value == 0:
            return 1.0
        zeros = 0
        while zeros < _MAX_INT_PRECISION and value % 10 ** (zeros + 1) == 0:
            zeros += 1
        return float(10**zeros)
    exponent = Decimal(repr(value)).as_tuple().exponent
    assert isinstance(exponent, int)
    return float(10.0**exponent) if exponent < 0 else precision(int(value))


def _within(a: float, b: float, *precisions: float) -> bool:
    return abs(a - b) <= max(precisions) / 2 + 1e-9 * max(abs(a), abs(b), 1.0)


def is_rounding(rev: ValueChange) -> bool:
    old, new = rev.previous, rev.row.value
    return _within(float(old), float(new), precision(old), precision(new))


def _per_share(unit: str) -> bool:
    return unit.endswith("/shares")


def _ratio(rev: ValueChange) -> float | None:
    """Split ratio this revision suggests (new shares per old share), if any."""
    old, new = float(rev.previous), float(rev.row.value)
    if old == 0 or new == 0 or (old < 0) != (new < 0):
        return None
    return old / new if _per_share(rev.row.unit) else new / old


def _whole(ratio: float) -> float | None:
    """The nearest split ratio (n:1 or 1:n, n >= 2) when ``ratio`` is near one."""
    if ratio >= 1.5:
        n = round(ratio)
        return float(n) if abs(ratio / n - 1) <= _RATIO_SLACK else None
    if 0 < ratio <= 1 / 1.5:
        n = round(1 / ratio)
        return 1 / n if abs(ratio * n - 1) <= _RATIO_SLACK else None
    return None


def _split_ratios(candidates: Iterable[ValueChange]) -> dict[str, float]:
    """Per filing, the one ratio most of its per-share and share revisions agree on."""
    votes: dict[str, Counter[float]] = defaultdict(Counter)
    for rev in candidates:
        ratio = _ratio(rev)
        whole = _whole(ratio) if ratio is not None else None
        if whole is not None:
            votes[rev.row.accn][whole] += 1
    return {accn: counter.most_common(1)[0][0] for accn, counter in votes.items()}


def _is_split(rev: ValueChange, ratio: float) -> bool:
    old, new = float(rev.previous), float(rev.row.value)
    expected = old / ratio if _per_share(rev.row.unit) else old * ratio
    scaled = precision(rev.previous) / ratio if _per_share(rev.row.unit) else (
        precision(rev.previous) * ratio)
    return _within(new, expected, precision(rev.row.value), scaled)


def classify(found: Sequence[ValueChange]) -> dict[ValueChange, Change]:
    """The change class of every revision (see the module docstring for the rules)."""
    classes: dict[ValueChange, Change] = {}
    rest: list[ValueChange] = []
    for rev in found:
        if is_rounding(rev):
            classes[rev] = Change.ROUNDING
        else:
            rest.append(rev)
    shares = [r for r in rest if _per_share(r.row.unit) or r.row.unit == "shares"]
    ratios = _split_ratios(shares)
    for rev in shares:
        ratio = ratios.get(rev.row.accn)
        if ratio is not None and _is_split(rev, ratio):
            classes[rev] = Change.SPLIT_ADJUSTMENT
    groups: dict[tuple[str, date | None, date, str], list[ValueChange]] = defaultdict(list)
    for rev in rest:
        if rev not in classes:
            groups[(rev.row.accn, rev.row.start, rev.row.end, rev.row.unit)].append(rev)
    for group in groups.values():
        for rev, change in _lines_or_restated(group).items():
            classes[rev] = change
    return classes


def _lines_or_restated(group: Sequence[ValueChange]) -> Mapping[ValueChange, Change]:
    """Reclassification or restatement, for the revisions of one filing, period and unit."""
    if group[0].row.form.upper().endswith("/A"):
        return dict.fromkeys(group, Change.RESTATEMENT)
    total_moved = any(r.row.predicate in BOTTOM_LINES for r in group)
    result = {}
    for rev in group:
        partner = any(
            other.row.concept != rev.row.concept and _within(
                rev.delta, -other.delta, *(precision(v) for v in (
                    rev.previous, rev.row.value, other.previous, other.row.value)))
            for other in group
        )
        moved = partner and not total_moved
        result[rev] = Change.RECLASSIFICATION if moved else Change.RESTATEMENT
    return result
