"""The windows a period names for one company, newest (preferred) first: pure, no store.

* ``FY2024`` and ``FY2024Q3`` are the company's fiscal year and quarter
(``vintage.queries.metrics.fiscal``:
  read off its annual spans, or from a declared fiscal year-end).
* ``LTM`` is the latest twelve months whose inputs exist: first the windows of the fiscal
  calendar (ending with each known quarter), and, merged in by end date, every run of four
  consecutive reported quarters ending on a day the calendar names no quarter end. So a
  company that reports quarters alone has LTM windows, and the calendar's windows, where there
  are any, stay exactly what they were.
* ``START..END`` is the fiscal year or quarter it names, else (and as a fallback) the sum of
  the consecutive reported periods that tile it exactly (``vintage.queries.metrics.tiling``); when
none do,
  the window says why (each gap and overlap).

Each window also knows the same window a year earlier, for growth metrics.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date

from vintage.queries.metrics import plans
from vintage.queries.metrics.fiscal import FiscalCalendar, PeriodSpec, Span
from vintage.queries.metrics.periods import ONE_DAY
from vintage.queries.metrics.plans import PlanNode, Series
from vintage.queries.metrics.tiling import quarter_runs, tiling_problems

__all__ = ["Window", "windows"]

LTM_WINDOWS = 8  # how many quarter ends back an LTM question looks for a complete window


@dataclass(frozen=True)
class Window:
    label: str
    plans: Callable[[Series], list[PlanNode]]
    prior: Window | None = None  # the same window a year earlier (growth metrics)
    # Why a role's series has no plan here (the gaps and overlaps of a window by dates).
    why: Callable[[Series], list[str]] | None = None


def windows(cal: FiscalCalendar, spec: PeriodSpec, spans: Iterable[Span] = ()) -> list[Window]:
    """The windows a period names for this company, newest (preferred) first; ``spans`` are
    every period the company reported (LTM looks for runs of quarters among them)."""
    if spec.kind == "fy":
        assert spec.year is not None
        return [_year_window(cal, spec.year)]
    if spec.kind == "quarter":
        assert spec.year is not None and spec.quarter is not None
        return [_quarter_window(cal, spec.year, spec.quarter)]
    if spec.kind == "span":
        assert spec.span is not None
        return [_span_window(cal, spec.span)]
    by_calendar = [(q.end, _ltm_window(cal, label, n))
                   for label, n, q in reversed(cal.quarters())]
    named_ends = {end for end, _ in by_calendar}
    by_runs = [(w.end, _run_window(cal, w)) for w in quarter_runs(spans, limit=LTM_WINDOWS)
               if w.end not in named_ends]
    # A stable sort: the calendar's own order is kept, runs slot in by their last day.
    merged = sorted([*by_calendar, *by_runs], key=lambda pair: pair[0], reverse=True)
    return [w for _, w in merged][:LTM_WINDOWS]


def _year_window(cal: FiscalCalendar, y: int, back: bool = True) -> Window:
    return Window(f"FY{y}", lambda s: plans.year(s, cal, y),
                  _year_window(cal, y - 1, False) if back else None)


def _quarter_window(cal: FiscalCalendar, y: int, n: int, back: bool = True) -> Window:
    return Window(f"FY{y}Q{n}", lambda s: plans.quarter(s, cal, y, n),
                  _quarter_window(cal, y - 1, n, False) if back else None)


def _ltm_window(cal: FiscalCalendar, y: int, n: int, back: bool = True) -> Window:
    return Window(f"LTM to FY{y}Q{n}", lambda s: plans.ltm(s, cal, y, n),
                  _ltm_window(cal, y - 1, n, False) if back else None)


def _run_window(cal: FiscalCalendar, span: Span) -> Window:
    """Twelve months that end where no fiscal quarter is known to end: named by the day."""
    return Window(f"LTM to {span.end}", lambda s: plans.tiled(s, span),
                  _span_window(cal, _year_earlier(span), False),
                  lambda s: tiling_problems(span, s))


def _span_window(cal: FiscalCalendar, span: Span, back: bool = True) -> Window:
    def tiles(s: Series) -> list[PlanNode]:
        return plans.tiled(s, span)

    def why(s: Series) -> list[str]:
        return tiling_problems(span, s)

    named = cal.label_of(span)
    if named is not None:
        y, n = named
        base = _year_window(cal, y, back) if n is None else _quarter_window(cal, y, n, back)
        # The calendar's plans first (they can derive a quarter from year-to-date figures).
        return Window(base.label, lambda s: [*base.plans(s), *tiles(s)], base.prior, why)
    prior = _span_window(cal, _year_earlier(span), False) if back else None
    return Window(str(span), tiles, prior, why)


def _year_earlier(span: Span) -> Span:
    return Span(_day_a_year_earlier(span.start), _day_a_year_earlier(span.end))


def _day_a_year_earlier(day: date) -> date:
    if day.month == 2 and (day + ONE_DAY).month == 3:
        # The last day of February maps to the last day of February, leap year or not.
        return date(day.year - 1, 3, 1) - ONE_DAY
    return day.replace(year=day.year - 1)
