"""Fiscal calendars: years and quarters, derived from the periods a company itself reported.

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
* **The year in progress**: 10-Qs come before the 10-K that first reports a year, so the year
  after the last complete one is known from its reported quarters: it starts the day after the
  last year ends, and its quarters 1..3 are found as above; its end, and so its Q4, are not.

* **A declared year-end**: a company that reports no year-long span (KPIs from earnings
  releases come as quarters) may declare its fiscal year-end as a fixed day, ``MM-DD``
  (:class:`YearEnd`; ``vintage ingest facts`` stores it as a ``vintage:FiscalYearEnd`` fact, so
  it is public from its source's date like any figure). Its fiscal years then run from the day
  after one year-end to the next, are named by the rule above, and count as complete once a
  reported period ends on or after the year-end; the year after the last complete one is the
  year in progress, as above. Reported year-long spans always win over a declaration.

The period vocabulary (:class:`Span`, :func:`parse_period`) lives in
``vintage.queries.metrics.periods`` and is re-exported here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from itertools import pairwise

from vintage.graph.core.model import Fact
from vintage.queries.metrics.periods import (
    DURATIONS,
    ONE_DAY,
    PeriodError,
    PeriodSpec,
    Span,
    SpanKind,
    YearEnd,
    kind_of,
    parse_period,
)

# The period vocabulary is re-exported: callers think of it as part of the calendar.
__all__ = [
    "FISCAL_YEAR_END",
    "FiscalCalendar",
    "FiscalYear",
    "PeriodError",
    "PeriodSpec",
    "Span",
    "SpanKind",
    "YearEnd",
    "declared_year_end",
    "fiscal_label",
    "kind_of",
    "parse_period",
]

_YTD_INDEX: dict[SpanKind, int] = {"quarter": 1, "half": 2, "nine_months": 3}
_CHAIN_GAP_DAYS = 7
_JANUARY_GRACE_DAYS = 7


def fiscal_label(end: date) -> int:
    """The label of a fiscal year ending on ``end`` (the rule in the module docstring)."""
    return end.year - 1 if end.month == 1 and end.day <= _JANUARY_GRACE_DAYS else end.year


Quarters = tuple[Span | None, Span | None, Span | None, Span | None]
_NO_QUARTERS: Quarters = (None, None, None, None)


@dataclass(frozen=True)
class FiscalYear:
    """A fiscal year by its label (2024 for FY2024), with quarters 1..4, None where unknown."""

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
    """One company's fiscal years and quarters, as derived by :meth:`from_spans`.

    Besides the complete years, a calendar may know the year in progress: the one after the
    last complete year, when quarters starting on its first day were reported (10-Qs come
    before the 10-K that reports the year). Its quarters 1..3 are available through
    :meth:`quarter`, :meth:`ytd` and :meth:`label_of`, but :meth:`year` and :meth:`years`
    return complete years only, since the year's end is not known yet.
    """

    def __init__(self, years: Iterable[FiscalYear], in_progress: FiscalYear | None = None) -> None:
        self._years = tuple(sorted(years, key=lambda y: y.label))
        self._by_label = {y.label: y for y in self._years}
        if len(self._by_label) != len(self._years):
            raise PeriodError("fiscal years must have distinct labels")
        if in_progress is not None and in_progress.label in self._by_label:
            raise PeriodError(f"fiscal year {in_progress.label} is both complete and in progress")
        self._in_progress = in_progress

    @classmethod
    def from_spans(cls, spans: Iterable[Span], year_end: YearEnd | None = None) -> FiscalCalendar:
        """The calendar implied by every duration a company reported (duplicates are fine);
        ``year_end``, when declared, gives the years of a company that reported none."""
        distinct = set(spans)
        chosen = _choose_years(distinct)
        before: FiscalYear | None = None
        if not chosen and year_end is not None and distinct:
            chosen, anchor = year_end.years_over(min(s.start for s in distinct),
                                                 max(s.end for s in distinct))
            before = FiscalYear(fiscal_label(anchor.end), anchor)
        years: list[FiscalYear] = []
        for span in chosen:
            label = fiscal_label(span.end)
            if years and label <= years[-1].label:
                label = years[-1].label + 1
            years.append(FiscalYear(label, span, _quarters(span, distinct)))
        last = years[-1] if years else before
        return cls(years, _in_progress(last, distinct) if last else None)

    def years(self) -> list[FiscalYear]:
        """The complete fiscal years, oldest first."""
        return list(self._years)

    def year(self, label: int) -> FiscalYear | None:
        """A complete fiscal year; None when the company reported no year-long span for it."""
        return self._by_label.get(label)

    def year_in_progress(self) -> FiscalYear | None:
        """The year after the last complete one: span = its first day..end of its last quarter
        known so far, quarter 4 always None."""
        return self._in_progress

    def _any_year(self, label: int) -> FiscalYear | None:
        ip = self._in_progress
        return ip if ip is not None and ip.label == label else self._by_label.get(label)

    def quarter(self, label: int, n: int) -> Span | None:
        if not 1 <= n <= 4:
            raise PeriodError(f"quarter must be 1..4, not {n}")
        year = self._any_year(label)
        return year.quarters[n - 1] if year is not None else None

    def ytd(self, label: int, n: int) -> Span | None:
        """The fiscal year's first day to the end of quarter ``n`` (n=4: the complete year)."""
        q = self.quarter(label, n)  # checks n
        year = self._any_year(label)
        if year is None:
            return None
        if n == 4:
            return year.span if label in self._by_label else None
        return Span(year.span.start, q.end) if q is not None else None

    def quarters(self) -> list[tuple[int, int, Span]]:
        """Every known quarter as (label, n, span), oldest first (the year in progress too)."""
        years = [*self._years, *([self._in_progress] if self._in_progress else [])]
        return [(y.label, n, q) for y in years for n, q in enumerate(y.quarters, 1) if q]

    def year_containing(self, day: date) -> FiscalYear | None:
        """The complete fiscal year that contains ``day``."""
        return next((y for y in self._years if y.span.start <= day <= y.span.end), None)

    def label_of(self, span: Span) -> tuple[int, int | None] | None:
        """(label, None) for a complete fiscal year, (label, n) for quarter n, else None."""
        for year in self._years:
            if span == year.span:
                return year.label, None
        return next(((label, n) for label, n, q in self.quarters() if q == span), None)


def _in_progress(last: FiscalYear, spans: set[Span]) -> FiscalYear | None:
    start = last.span.end + ONE_DAY
    # Wide enough for any year-long span, so every quarter reported so far lies inside it.
    room = Span(start, start + timedelta(days=DURATIONS["year"][1] - 1))
    q1, q2, q3, _ = _quarters(room, spans)
    if q1 is None:
        return None
    # Quarters are known as a prefix: Qn needs the end of Qn-1.
    latest = q3 or q2 or q1
    return FiscalYear(last.label + 1, Span(start, latest.end), (q1, q2, q3, None))


FISCAL_YEAR_END = "vintage:FiscalYearEnd"  # the predicate of a declared year-end ("09-30")


def declared_year_end(facts: Iterable[Fact]) -> YearEnd | None:
    """The fiscal year-end a company declared, from its ``vintage:FiscalYearEnd`` facts as read
    (as known at a cutoff); the latest public one wins."""
    declared = sorted((f for f in facts if f.predicate == FISCAL_YEAR_END),
                      key=lambda f: (f.available_at, f.revision))
    if not declared:
        return None
    latest = declared[-1]
    try:
        return YearEnd.parse(str(latest.value))
    except PeriodError as exc:
        raise PeriodError(f"{latest.subject}: {exc}") from None
