"""Fiscal calendars and period names, derived from the periods a company itself reported.

SEC filings describe durations as ``start..end`` with ``end`` inclusive; Vintage stores them as
half-open UTC intervals ``[start, end + 1 day)``. :class:`Span` is the SEC-style view of one.

A company's fiscal calendar is not configured: it is read off its own year-long spans.

* **Fiscal years** are the distinct year-long spans (350..380 days, so 52/53-week years count).
  When two overlap, the one that chains with other years (the next year starts 1..7 days after it
  ends) and that has reported quarters or year-to-date periods starting on its first day wins;
  the rest are dropped, so the chosen years never overlap.
* **Naming**: a fiscal year is labelled by the calendar year in which it ends, except that a year
  ending in the first 7 days of January takes the previous calendar year's label (a 52/53-week
  year closing "near December 31" belongs to the year it mostly covers). So NVIDIA's FY2024 is
  2023-01-30..2024-01-28, Marvell's FY2024 ends 2024-02-03, Snowflake's FY2024 ends 2024-01-31,
  and Alphabet's and Tesla's fiscal years are calendar years. Labels strictly increase; should
  the rule give two adjacent years one label, the later one takes the next label.
* **Quarters**: Q1 starts on the year's first day and Qn+1 the day after Qn ends; Q4 runs from the
  day after Q3 ends to the year's last day, so it is known even when never reported as such. A
  quarter's end comes, in order of trust, from a year-to-date span starting on the year's first
  day (Q1, six months, nine months), else from a reported quarter inside the year (its end, or
  the day before its start). Each derived quarter must itself be quarter-long.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from itertools import pairwise
from typing import Literal

from graph.temporal import day_start, require_utc

__all__ = [
    "FiscalCalendar",
    "FiscalYear",
    "PeriodError",
    "PeriodSpec",
    "Span",
    "SpanKind",
    "fiscal_label",
    "kind_of",
    "parse_period",
]

SpanKind = Literal["quarter", "half", "nine_months", "year"]
ONE_DAY = timedelta(days=1)
# Inclusive day counts. The ranges are disjoint, so a span has at most one kind.
DURATIONS: dict[SpanKind, tuple[int, int]] = {
    "quarter": (80, 100),
    "half": (170, 190),
    "nine_months": (260, 285),
    "year": (350, 380),
}
_YTD_INDEX: dict[SpanKind, int] = {"quarter": 1, "half": 2, "nine_months": 3}
_CHAIN_GAP_DAYS = 7
_ECHO = 40


class PeriodError(ValueError):
    """A period that cannot be built or parsed; the message says what is accepted."""


@dataclass(frozen=True, order=True)
class Span:
    """An SEC period: ``start`` and ``end`` are dates, both inclusive."""

    start: date
    end: date

    def __post_init__(self) -> None:
        for name, value in (("start", self.start), ("end", self.end)):
            # datetime is a subclass of date; a datetime here would silently carry a time.
            if isinstance(value, datetime) or not isinstance(value, date):
                raise PeriodError(f"span {name} must be a date, not {type(value).__name__}")
        if self.end < self.start:
            raise PeriodError(f"span end {self.end} is before its start {self.start}")

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1

    @property
    def valid_from(self) -> datetime:
        return day_start(self.start)

    @property
    def valid_to(self) -> datetime:
        """The exclusive end of the stored interval: midnight UTC after the last day."""
        return day_start(self.end + ONE_DAY)

    @classmethod
    def from_valid(cls, valid_from: datetime, valid_to: datetime) -> Span:
        """The span a stored half-open ``[valid_from, valid_to)`` of whole UTC days stands for."""
        lo, hi = require_utc(valid_from, "valid_from"), require_utc(valid_to, "valid_to")
        if lo != day_start(lo.date()) or hi != day_start(hi.date()):
            raise PeriodError(f"valid interval [{lo.isoformat()}, {hi.isoformat()}) "
                              "does not fall on UTC midnights")
        if hi <= lo:
            raise PeriodError(f"valid interval [{lo.isoformat()}, {hi.isoformat()}) is empty")
        return cls(lo.date(), hi.date() - ONE_DAY)

    def contains(self, other: Span) -> bool:
        return self.start <= other.start and other.end <= self.end

    def overlaps(self, other: Span) -> bool:
        return self.start <= other.end and other.start <= self.end

    def __str__(self) -> str:
        return f"{self.start.isoformat()}..{self.end.isoformat()}"


def kind_of(span: Span) -> SpanKind | None:
    """Quarter, six months, nine months or year, by length; None for anything else."""
    for kind, (lo, hi) in DURATIONS.items():
        if lo <= span.days <= hi:
            return kind
    return None


def fiscal_label(end: date) -> int:
    """The label of a fiscal year ending on ``end`` (the rule in the module docstring)."""
    return end.year - 1 if end.month == 1 and end.day <= _CHAIN_GAP_DAYS else end.year


Quarters = tuple[Span | None, Span | None, Span | None, Span | None]
_NO_QUARTERS: Quarters = (None, None, None, None)


@dataclass(frozen=True)
class FiscalYear:
    label: int
    span: Span
    quarters: Quarters = _NO_QUARTERS


def _chains(a: Span, b: Span) -> bool:
    """Does ``b`` start within a week after ``a`` ends (consecutive fiscal years)?"""
    return 1 <= (b.start - a.end).days <= _CHAIN_GAP_DAYS


def _choose_years(spans: set[Span]) -> list[Span]:
    years = sorted(s for s in spans if kind_of(s) == "year")
    starts = {s.start for s in spans if s.days < DURATIONS["year"][0]}

    def support(y: Span) -> int:
        chained = sum(_chains(y, o) or _chains(o, y) for o in years)
        return chained + (y.start in starts)

    chosen: list[Span] = []
    # Best-supported first, so a stray trailing-twelve-month span cannot evict a real year.
    for y in sorted(years, key=lambda y: (-support(y), y.start, y.end)):
        if not any(y.overlaps(c) for c in chosen):
            chosen.append(y)
    return sorted(chosen)


def _ytd_index(year_start: date, boundary: date) -> int | None:
    """Which quarter ends on ``boundary``, judged by the length of the year to date."""
    kind = kind_of(Span(year_start, boundary)) if boundary >= year_start else None
    return _YTD_INDEX.get(kind) if kind is not None else None


def _quarters(year: Span, spans: set[Span]) -> Quarters:
    direct: dict[int, list[date]] = {1: [], 2: [], 3: []}
    chained: dict[int, list[date]] = {1: [], 2: [], 3: []}
    for sp in spans:
        if not year.contains(sp) or (kind := kind_of(sp)) is None:
            continue
        if sp.start == year.start and kind in _YTD_INDEX:
            direct[_YTD_INDEX[kind]].append(sp.end)
        if kind == "quarter":
            for boundary in (sp.start - ONE_DAY, sp.end):
                if (k := _ytd_index(year.start, boundary)) is not None:
                    chained[k].append(boundary)
    ends: list[date | None] = [year.start - ONE_DAY]
    for k in (1, 2, 3):
        found = direct[k] or chained[k]
        # Most often reported wins; ties go to the earliest date, so the choice is stable.
        counts = Counter(found)
        ends.append(min(counts, key=lambda d: (-counts[d], d)) if counts else None)
    ends.append(year.end)
    out: list[Span | None] = []
    for lo, hi in pairwise(ends):
        q = Span(lo + ONE_DAY, hi) if lo is not None and hi is not None and hi > lo else None
        out.append(q if q is not None and kind_of(q) == "quarter" else None)
    return out[0], out[1], out[2], out[3]


class FiscalCalendar:
    """One company's fiscal years and quarters, as derived by :meth:`from_spans`."""

    def __init__(self, years: Iterable[FiscalYear]) -> None:
        self._years = tuple(sorted(years, key=lambda y: y.label))
        self._by_label = {y.label: y for y in self._years}
        if len(self._by_label) != len(self._years):
            raise PeriodError("fiscal years must have distinct labels")

    @classmethod
    def from_spans(cls, spans: Iterable[Span]) -> FiscalCalendar:
        """The calendar implied by every duration a company reported (duplicates are fine)."""
        distinct = set(spans)
        years: list[FiscalYear] = []
        for span in _choose_years(distinct):
            label = fiscal_label(span.end)
            if years and label <= years[-1].label:
                label = years[-1].label + 1
            years.append(FiscalYear(label, span, _quarters(span, distinct)))
        return cls(years)

    def years(self) -> list[FiscalYear]:
        return list(self._years)

    def year(self, label: int) -> FiscalYear | None:
        return self._by_label.get(label)

    def quarter(self, label: int, n: int) -> Span | None:
        if not 1 <= n <= 4:
            raise PeriodError(f"quarter must be 1..4, not {n}")
        year = self._by_label.get(label)
        return year.quarters[n - 1] if year is not None else None

    def ytd(self, label: int, n: int) -> Span | None:
        """The fiscal year's first day to the end of quarter ``n`` (n=4: the whole year)."""
        q = self.quarter(label, n)
        year = self._by_label.get(label)
        if year is None:
            return None
        if n == 4:
            return year.span
        return Span(year.span.start, q.end) if q is not None else None

    def year_containing(self, day: date) -> FiscalYear | None:
        return next((y for y in self._years if y.span.start <= day <= y.span.end), None)

    def label_of(self, span: Span) -> tuple[int, int | None] | None:
        """(label, None) for a fiscal year, (label, n) for its quarter n, else None."""
        year = self.year_containing(span.start)
        if year is None:
            return None
        if span == year.span:
            return year.label, None
        if span in year.quarters:
            return year.label, year.quarters.index(span) + 1
        return None


PeriodKind = Literal["fy", "quarter", "ltm", "span"]
_FY = re.compile(r"FY([1-9][0-9]{3})(?:Q([1-4]))?", re.ASCII | re.IGNORECASE)
_DATES = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})\.\.([0-9]{4}-[0-9]{2}-[0-9]{2})", re.ASCII)
ACCEPTED = ("FY2024 (fiscal year), FY2024Q3 (fiscal quarter 1..4), LTM (latest twelve months) "
            "or 2024-01-01..2024-03-31 (dates, end inclusive)")


@dataclass(frozen=True)
class PeriodSpec:
    """A period as a user names it, before a company's calendar turns it into a span."""

    kind: PeriodKind
    year: int | None = None
    quarter: int | None = None
    span: Span | None = None

    def __post_init__(self) -> None:
        wants = {"fy": (True, False, False), "quarter": (True, True, False),
                 "ltm": (False, False, False), "span": (False, False, True)}.get(self.kind)
        has = (self.year is not None, self.quarter is not None, self.span is not None)
        if wants is None or has != wants:
            raise PeriodError(f"period kind {self.kind!r} does not fit year={self.year}, "
                              f"quarter={self.quarter}, span={self.span}")
        if self.year is not None and not 1000 <= self.year <= 9999:
            raise PeriodError(f"fiscal year {self.year} is not a four-digit year")
        if self.quarter is not None and not 1 <= self.quarter <= 4:
            raise PeriodError(f"quarter must be 1..4, not {self.quarter}")

    def __str__(self) -> str:
        if self.kind == "fy":
            return f"FY{self.year}"
        if self.kind == "quarter":
            return f"FY{self.year}Q{self.quarter}"
        return "LTM" if self.kind == "ltm" else str(self.span)


def parse_period(text: str) -> PeriodSpec:
    """``FY2009``, ``FY2009Q4``, ``LTM`` or ``START..END``; anything else is a PeriodError."""
    raw = text.strip()
    if m := _FY.fullmatch(raw):
        year, quarter = int(m.group(1)), m.group(2)
        if quarter is None:
            return PeriodSpec("fy", year=year)
        return PeriodSpec("quarter", year=year, quarter=int(quarter))
    if raw.upper() == "LTM":
        return PeriodSpec("ltm")
    if m := _DATES.fullmatch(raw):
        try:
            start, end = date.fromisoformat(m.group(1)), date.fromisoformat(m.group(2))
        except ValueError as exc:
            raise PeriodError(f"period {_echo(text)}: {exc}") from None
        if end < start:
            raise PeriodError(f"period {_echo(text)}: end {end} is before start {start}")
        return PeriodSpec("span", span=Span(start, end))
    raise PeriodError(f"period {_echo(text)} is not one of: {ACCEPTED}")


def _echo(text: str) -> str:
    # User input is echoed, but never more than a short prefix of it.
    return repr(text[:_ECHO] + ("…" if len(text) > _ECHO else ""))
