"""Windows from quarterly figures alone: KPIs from earnings releases come as quarters, with no
year-long span. LTM is the latest four consecutive quarters public at the cutoff, per company;
``START..END`` sums the consecutive reported periods that tile it exactly, and names each gap
and overlap when none do; a declared fiscal year-end gives ``FY`` periods from quarters."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from vintage.graph.core.model import FactIn, Scope, SourceIn, Subject
from vintage.graph.core.temporal import parse_instant
from vintage.graph.store.protocol import Store
from vintage.graph.writes.semantics import Batch, record
from vintage.ingest import facts_table
from vintage.queries.metrics.answers import SubjectAnswer
from vintage.queries.metrics.definitions import resolve_metric
from vintage.queries.metrics.fiscal import FISCAL_YEAR_END, FiscalCalendar, Span, YearEnd
from vintage.queries.metrics.periods import PeriodError, parse_period
from vintage.queries.metrics.question import ask
from vintage.queries.metrics.tiling import quarter_runs, tiling_problems, tilings

ONE_DAY = timedelta(days=1)


def span(text: str) -> Span:
    """A span written as it prints: half-open, the end the day after its last day."""
    start, end = text.split("..")
    return Span(date.fromisoformat(start), date.fromisoformat(end) - timedelta(days=1))


def spans(*texts: str) -> list[Span]:
    return [span(t) for t in texts]


CALENDAR_2024 = spans("2024-01-01..2024-04-01", "2024-04-01..2024-07-01",
                      "2024-07-01..2024-10-01", "2024-10-01..2025-01-01")


# Tilings, runs and declared year-ends: pure functions


def test_four_consecutive_quarters_tile_their_twelve_months() -> None:
    assert tilings(span("2024-01-01..2025-01-01"), CALENDAR_2024) == [tuple(CALENDAR_2024)]


def test_a_period_reported_whole_is_its_own_tiling_and_comes_first() -> None:
    half = span("2024-01-01..2024-07-01")
    found = tilings(span("2024-01-01..2025-01-01"), [*CALENDAR_2024, half])
    assert found[0] == (half, *CALENDAR_2024[2:])  # fewest pieces first
    assert tuple(CALENDAR_2024) in found


def test_a_missing_quarter_is_named_as_a_gap() -> None:
    reported = [CALENDAR_2024[0], *CALENDAR_2024[2:]]
    assert tilings(span("2024-01-01..2025-01-01"), reported) == []
    assert tiling_problems(span("2024-01-01..2025-01-01"), reported) == [
        "gap 2024-04-01..2024-07-01"]


def test_periods_that_overlap_without_nesting_are_named_with_both_periods() -> None:
    reported = spans("2024-01-01..2024-04-01", "2024-03-01..2024-07-01",
                     "2024-07-01..2024-10-01", "2024-10-01..2025-01-01")
    assert tilings(span("2024-01-01..2025-01-01"), reported) == []
    assert tiling_problems(span("2024-01-01..2025-01-01"), reported) == [
        "overlap 2024-03-01..2024-04-01 (2024-01-01..2024-04-01 and 2024-03-01..2024-07-01)"]


def test_an_instant_is_never_a_piece_of_a_window() -> None:
    day = span("2024-03-31..2024-04-01")
    assert tilings(span("2024-03-31..2024-04-01"), [day]) == []
    assert tiling_problems(span("2024-01-01..2024-04-01"), [day]) == [
        "gap 2024-01-01..2024-04-01"]


def test_runs_of_four_consecutive_quarters_are_the_ltm_windows_latest_first() -> None:
    reported = [*CALENDAR_2024, span("2025-01-01..2025-04-01"),
                span("2025-07-01..2025-10-01")]  # Q2 2025 is missing: no run ends after it
    assert quarter_runs(reported) == spans("2024-04-01..2025-04-01", "2024-01-01..2025-01-01")


def test_a_declared_year_end_gives_fiscal_years_and_quarters_from_quarters_alone() -> None:
    reported = spans("2024-10-01..2025-01-01", "2025-01-01..2025-04-01",
                     "2025-04-01..2025-07-01", "2025-07-01..2025-10-01",
                     "2025-10-01..2026-01-01")
    assert FiscalCalendar.from_spans(reported).years() == []
    cal = FiscalCalendar.from_spans(reported, YearEnd.parse("09-30"))
    (fy2025,) = cal.years()
    assert (fy2025.label, str(fy2025.span)) == (2025, "2024-10-01..2025-10-01")
    assert [str(q) for q in fy2025.quarters] == [str(s) for s in reported[:4]]
    ongoing = cal.year_in_progress()
    assert ongoing is not None and (ongoing.label, str(ongoing.span)) == (
        2026, "2025-10-01..2026-01-01")


def test_a_declared_year_end_before_any_year_is_complete_gives_the_year_in_progress() -> None:
    cal = FiscalCalendar.from_spans(spans("2024-10-01..2025-01-01"), YearEnd(9, 30))
    assert cal.years() == []
    assert cal.quarters() == [(2025, 1, span("2024-10-01..2025-01-01"))]


def test_reported_annual_spans_win_over_a_declared_year_end() -> None:
    cal = FiscalCalendar.from_spans([*CALENDAR_2024, span("2024-01-01..2025-01-01")],
                                    YearEnd(9, 30))
    assert [str(y.span) for y in cal.years()] == ["2024-01-01..2025-01-01"]


@pytest.mark.parametrize("text", ["02-29", "13-01", "9/30", "0930", "12-32", ""])
def test_a_declared_year_end_is_a_day_of_every_year_written_mm_dd(text: str) -> None:
    with pytest.raises(PeriodError, match=r"MM-DD|every year"):
        YearEnd.parse(text)


def test_the_ingest_declares_under_the_predicate_the_questions_read() -> None:
    assert facts_table.FISCAL_YEAR_END == FISCAL_YEAR_END


# Questions on a store: both backends

RELEASE_LAG = timedelta(days=25)  # from a quarter's last day to its earnings release
# A calendar-quarter company and one whose quarters end in January, April, July and October.
PAY = [("2024-01-01..2024-04-01", 100), ("2024-04-01..2024-07-01", 110),
       ("2024-07-01..2024-10-01", 120), ("2024-10-01..2025-01-01", 130),
       ("2025-01-01..2025-04-01", 140), ("2025-04-01..2025-07-01", 150)]
SHOP = [("2024-02-01..2024-05-01", 10), ("2024-05-01..2024-08-01", 11),
        ("2024-08-01..2024-11-01", 12), ("2024-11-01..2025-02-01", 13),
        ("2025-02-01..2025-05-01", 14), ("2025-05-01..2025-08-01", 15)]
# Periods that overlap without nesting: March is in two of them.
OVR = [("2024-01-01..2024-04-01", 5), ("2024-03-01..2024-07-01", 6),
       ("2024-07-01..2024-10-01", 7), ("2024-10-01..2025-01-01", 8)]
# A fiscal year ending September 30, declared by a profile published on 2025-11-15.
DEC = [("2024-10-01..2025-01-01", 1000), ("2025-01-01..2025-04-01", 1100),
       ("2025-04-01..2025-07-01", 1200), ("2025-07-01..2025-10-01", 1300)]
DECLARED = "2025-11-15"


def released(subject: str, quarters: list[tuple[str, int]],
             ) -> tuple[list[SourceIn], list[FactIn]]:
    sources, facts = [], []
    for text, value in quarters:
        q = span(text)
        sid = f"{subject}-release-{q.end}"
        sources.append(SourceIn(id=sid, kind="earnings_release",
                                available_at=q.valid_to - ONE_DAY + RELEASE_LAG))
        facts.append(FactIn(subject=subject, predicate="us-gaap:Revenues", value=value,
                            unit="USD", valid_from=q.valid_from, valid_to=q.valid_to,
                            source=sid))
    return sources, facts


@pytest.fixture
def quarterly(store: Store, scope: Scope) -> tuple[Store, Scope]:
    sources: list[SourceIn] = [SourceIn(id="DEC-profile", kind="document",
                                        available_at=parse_instant(DECLARED))]
    facts: list[FactIn] = [FactIn(subject="DEC", predicate=FISCAL_YEAR_END, value="09-30",
                                  valid_from=facts_table.DECLARED_FROM, source="DEC-profile")]
    for subject, quarters in (("PAY", PAY), ("SHOP", SHOP), ("OVR", OVR), ("DEC", DEC)):
        more_sources, more_facts = released(subject, quarters)
        sources += more_sources
        facts += more_facts
    record(store, scope, Batch(
        subjects=[Subject(id=s, kind="company") for s in ("PAY", "SHOP", "OVR", "DEC")],
        sources=sources, facts=facts), actor="test")
    return store, scope


def revenue(at: tuple[Store, Scope], subjects: list[str], cutoff: str,
            period: str) -> list[SubjectAnswer]:
    store, scope = at
    return ask(store, scope, resolve_metric("revenue"), subjects, parse_instant(cutoff),
               parse_period(period)).answers


def test_ltm_is_the_latest_four_consecutive_quarters_public_at_the_cutoff_per_company(
    quarterly: tuple[Store, Scope],
) -> None:
    # 2025-08-10: PAY's June quarter is out (2025-07-25), SHOP's July quarter is not
    # (2025-08-25): at one cutoff, each company's twelve months end in another quarter.
    pay, shop = revenue(quarterly, ["PAY", "SHOP"], "2025-08-10", "LTM")
    assert (pay.period, pay.span, pay.value) == (
        "LTM to 2025-06-30", "2024-07-01..2025-07-01", 120 + 130 + 140 + 150)
    assert (shop.period, shop.span, shop.value) == (
        "LTM to 2025-04-30", "2024-05-01..2025-05-01", 11 + 12 + 13 + 14)
    assert pay.method == shop.method == "sum of four quarters"
    assert shop.periods_used == [s for s, _ in SHOP[1:5]]
    assert all(i.available_at <= parse_instant("2025-08-10") for i in shop.inputs)


def test_a_window_by_dates_is_the_sum_of_the_quarters_that_tile_it(
    quarterly: tuple[Store, Scope],
) -> None:
    (pay,) = revenue(quarterly, ["PAY"], "2025-08-10", "2024-07-01..2025-07-01")
    assert (pay.value, pay.period, pay.refused) == (540, "2024-07-01..2025-07-01", None)
    assert pay.periods_used == [s for s, _ in PAY[2:6]]
    assert pay.derivation_id is not None


def test_a_window_with_a_quarter_not_yet_public_is_refused_naming_the_gap(
    quarterly: tuple[Store, Scope],
) -> None:
    # 2025-01-10: the December quarter is released on 2025-01-25.
    (pay,) = revenue(quarterly, ["PAY"], "2025-01-10", "2024-01-01..2025-01-01")
    assert pay.value is None and pay.refused is not None
    assert "gap 2024-10-01..2025-01-01" in pay.refused


def test_a_window_over_periods_that_overlap_is_refused_naming_the_overlap(
    quarterly: tuple[Store, Scope],
) -> None:
    (ovr,) = revenue(quarterly, ["OVR"], "2025-06-30", "2024-01-01..2025-01-01")
    assert ovr.value is None and ovr.refused is not None
    assert ("overlap 2024-03-01..2024-04-01 (2024-01-01..2024-04-01 and "
            "2024-03-01..2024-07-01)") in ovr.refused


def test_a_declared_fiscal_year_end_gives_fiscal_years_from_quarters_once_it_is_public(
    quarterly: tuple[Store, Scope],
) -> None:
    (before,) = revenue(quarterly, ["DEC"], "2025-11-01", "FY2025")
    assert before.value is None and before.refused is not None
    assert "declared no fiscal year-end" in before.refused
    (fy,) = revenue(quarterly, ["DEC"], "2025-11-20", "FY2025")
    assert (fy.value, fy.period, fy.span) == (4600, "FY2025", "2024-10-01..2025-10-01")
    assert fy.method == "sum of the four fiscal quarters"
    (q4,) = revenue(quarterly, ["DEC"], "2025-11-20", "FY2025Q4")
    assert (q4.value, q4.span, q4.method) == (1300, "2025-07-01..2025-10-01", "reported")
    (ltm,) = revenue(quarterly, ["DEC"], "2025-11-20", "LTM")
    assert (ltm.period, ltm.value) == ("LTM to FY2025Q4", 4600)
