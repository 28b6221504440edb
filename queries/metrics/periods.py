"""Periods as SEC filings and users name them: spans of whole days, and period specs.

SEC filings describe durations as ``start..end`` with ``end`` inclusive; Vintage stores them as
half-open UTC intervals ``[start, end + 1 day)``. :class:`Span` is the SEC-style view of one,
and converts both ways. :func:`parse_period` reads what a user types after ``--period``
(``FY2024``, ``FY2024Q3``, ``LTM``, ``2024-01-01..2024-03-31``); a company's fiscal calendar
(``vintage.queries.metrics.fiscal``) then turns fiscal names into spans. :class:`YearEnd` is a
fiscal year-end declared as a day of the year (``09-30``), for companies that report no year-long
span.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Literal

from vintage.graph.core.errors import UserError
from vintage.graph.core.temporal import day_start, require_utc

__all__ = [
    "DURATIONS",
    "ONE_DAY",
    "YEARS",
    "PeriodError",
    "PeriodKind",
    "PeriodSpec",
    "Span",
    "SpanKind",
    "YearEnd",
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
_ECHO = 40


class PeriodError(UserError, ValueError):
    """A period that cannot be built or parsed; the message says what is accepted."""


@dataclass(frozen=True, order=True)
class Span:
    """An SEC period: ``start`` and ``end`` are dates, both inclusive (as filings state them).
    It is written half-open, as every interval of the contract and every ``--period``:
    ``2018-01-01..2018-04-01`` is the quarter whose last day is 2018-03-31."""

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
        return f"{self.start.isoformat()}..{(self.end + ONE_DAY).isoformat()}"


def kind_of(span: Span) -> SpanKind | None:
    """Quarter, six months, nine months or year, by length; None for anything else."""
    for kind, (lo, hi) in DURATIONS.items():
        if lo <= span.days <= hi:
            return kind
    return None


PeriodKind = Literal["fy", "quarter", "ltm", "span"]
_FY = re.compile(r"FY([1-9][0-9]{3})(?:Q([1-4]))?", re.ASCII | re.IGNORECASE)
_DATES = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})\.\.([0-9]{4}-[0-9]{2}-[0-9]{2})", re.ASCII)
ACCEPTED = ("FY2024 (fiscal year), FY2024Q3 (fiscal quarter 1..4), LTM (latest twelve months) "
            "or 2024-01-01..2024-04-01 (dates, half-open: the end is the day after the last)")


# The years a period may name: the fiscal arithmetic around one (the years before it and after
# it that a company's calendar and the read's reach touch) stays inside the calendar's 1-9999.
YEARS = (1000, 9990)
_WHY_YEARS = " (the years around a period must stay inside the calendar)"


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
        if self.year is not None and not YEARS[0] <= self.year <= YEARS[1]:
            raise PeriodError(f"fiscal year {self.year} is not between {YEARS[0]} and "
                              f"{YEARS[1]}{_WHY_YEARS}")
        if self.span is not None and not (YEARS[0] <= self.span.start.year
                                          and self.span.end.year <= YEARS[1]):
            raise PeriodError(f"period {self.span} does not lie between the years {YEARS[0]} "
                              f"and {YEARS[1]}{_WHY_YEARS}")
        if self.quarter is not None and not 1 <= self.quarter <= 4:
            raise PeriodError(f"quarter must be 1..4, not {self.quarter}")

    def __str__(self) -> str:
        if self.kind == "fy":
            return f"FY{self.year}"
        if self.kind == "quarter":
            return f"FY{self.year}Q{self.quarter}"
        return "LTM" if self.kind == "ltm" else str(self.span)


def parse_period(text: str) -> PeriodSpec:
    """``FY2009``, ``FY2009Q4``, ``LTM`` or ``START..END`` (half-open: END is the day after
    the last); anything else is a PeriodError."""
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
        if end <= start:
            raise PeriodError(f"period {_echo(text)}: end {end} is not after start {start} "
                              "(the end is excluded: the day after the last)")
        return PeriodSpec("span", span=Span(start, end - ONE_DAY))
    raise PeriodError(f"period {_echo(text)} is not one of: {ACCEPTED}")


def _echo(text: str) -> str:
    # User input is echoed, but never more than a short prefix of it.
    return repr(text[:_ECHO] + ("…" if len(text) > _ECHO else ""))



_YEAR_END = re.compile(r"([0-9]{2})-([0-9]{2})", re.ASCII)


@dataclass(frozen=True)
class YearEnd:
    """A fiscal year-end declared as a fixed day of the year (September 30: ``09-30``)."""

    month: int
    day: int

    def __post_init__(self) -> None:
        try:
            date(2001, self.month, self.day)  # not a leap year: February 29 is not every year's
        except ValueError:
            raise PeriodError(f"fiscal year-end {self.month:02}-{self.day:02} is not a day of "
                              "every year (MM-DD, such as 12-31 or 09-30)") from None

    @classmethod
    def parse(cls, text: str) -> YearEnd:
        m = _YEAR_END.fullmatch(text.strip())
        if m is None:
            raise PeriodError(f"fiscal year-end {_echo(text)} is not MM-DD (such as 12-31)")
        return cls(int(m.group(1)), int(m.group(2)))

    def __str__(self) -> str:
        return f"{self.month:02}-{self.day:02}"

    def year_ending(self, year: int) -> Span:
        """The fiscal year that ends on this day of calendar year ``year``."""
        return Span(date(year - 1, self.month, self.day) + ONE_DAY,
                    date(year, self.month, self.day))

    def years_over(self, first: date, last: date) -> tuple[list[Span], Span]:
        """The complete years that periods from ``first`` to ``last`` reach (a period ends on
        or after the year's end), and the year before the first year they touch (an anchor
        for the year in progress when no year is complete)."""
        years = [y for y in map(self.year_ending, range(first.year, last.year + 2))
                 if y.end >= first]
        return [y for y in years if y.end <= last], self.year_ending(years[0].end.year - 1)
