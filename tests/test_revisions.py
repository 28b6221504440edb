"""Revisions in the real SEC files: found exactly where the bundled revisions list says, and
classified (rounding, split adjustment, reclassification, restatement), without a store."""

from __future__ import annotations

import csv
import gzip
from collections import Counter
from datetime import date
from decimal import Decimal

import pytest

from tests.sec_files import (
    GOOGL_FIRST,
    GOOGL_RECAST,
    NVDA_FY2024,
    Q1_2018,
    TSLA_FY2014,
    RevisionKey,
    classified,
)
from vintage.graph.core.kinds import Change
from vintage.ingest.bundled import DATA
from vintage.ingest.sec.companyfacts import ParsedFile
from vintage.ingest.sec.revisions import (
    Row,
    ValueChange,
    classify,
    is_rounding,
    precision,
    revisions,
)


def find(found: dict[ValueChange, Change], concept: str, start: date | None, end: date,
         accn: str) -> tuple[ValueChange, Change]:
    (match,) = [(rev, change) for rev, change in found.items()
                if (rev.row.concept, rev.row.start, rev.row.end, rev.row.accn)
                == (concept, start, end, accn)]
    return match



# --- pure: revisions found and classified on the six real files ---


def test_revisions_found_in_the_six_files_are_exactly_the_changed_rows_of_the_revisions_csv(
    parsed: dict[str, ParsedFile],
) -> None:
    with gzip.open(DATA / "companyfacts_revisions.csv.gz", "rt", encoding="utf-8",
                   newline="") as handle:
        expected: set[RevisionKey] = {
            (int(r["cik"]), r["taxonomy"], r["concept"], r["unit"], r["start"], r["end"],
             r["accn"])
            for r in csv.DictReader(handle) if r["changed_vs_previous_filing"] == "1"
        }
    found: list[RevisionKey] = [
        (int(p.filer.cik), rev.row.taxonomy, rev.row.concept, rev.row.unit,
         rev.row.start.isoformat() if rev.row.start else "", rev.row.end.isoformat(),
         rev.row.accn)
        for p in parsed.values() for rev in revisions(p.rows)
    ]
    assert len(found) == len(set(found))  # one revision per (fact, filing)
    assert len(expected) > 2000
    assert set(found) == expected


def test_alphabets_2019_recast_of_q1_2018_operating_income_is_a_reclassification(
    parsed: dict[str, ParsedFile],
) -> None:
    found = classified(parsed["GOOGL"])
    rev, change = find(found, "OperatingIncomeLoss", *Q1_2018, GOOGL_RECAST)
    assert (rev.previous, rev.row.value) == (7_001_000_000, 7_633_000_000)
    assert rev.row.filed == date(2019, 4, 30)
    assert change is Change.RECLASSIFICATION
    first = [r for r in parsed["GOOGL"].rows
             if (r.concept, r.start, r.end, r.accn) == ("OperatingIncomeLoss", *Q1_2018,
                                                        GOOGL_FIRST)]
    assert [(r.value, r.filed) for r in first] == [(7_001_000_000, date(2018, 4, 24))]


def test_alphabets_q1_2018_net_income_is_reported_again_but_never_revised(
    parsed: dict[str, ParsedFile],
) -> None:
    reported = {r.value for r in parsed["GOOGL"].rows
                if (r.concept, r.unit, r.start, r.end) == ("NetIncomeLoss", "USD", *Q1_2018)}
    assert reported == {9_401_000_000}
    assert not [rev for rev in revisions(parsed["GOOGL"].rows)
                if (rev.row.concept, rev.row.start, rev.row.end) == ("NetIncomeLoss", *Q1_2018)]


def test_nvidias_fy2024_diluted_eps_after_the_ten_for_one_split_is_a_split_adjustment(
    parsed: dict[str, ParsedFile],
) -> None:
    found = classified(parsed["NVDA"])
    (rev, change), = [(r, c) for r, c in found.items()
                      if (r.row.concept, r.row.start, r.row.end) == ("EarningsPerShareDiluted",
                                                                     *NVDA_FY2024)]
    assert (rev.previous, rev.row.value) == (11.93, 1.19)
    assert change is Change.SPLIT_ADJUSTMENT


def test_marvells_accounts_payable_shown_in_hundred_thousands_later_is_a_rounding(
    parsed: dict[str, ParsedFile],
) -> None:
    found = classified(parsed["MRVL"])
    (rev, change), = [(r, c) for r, c in found.items()
                      if (r.row.concept, r.row.end) == ("AccountsPayableCurrent",
                                                        date(2022, 1, 29))]
    assert (rev.previous, rev.row.value) == (461_509_000, 461_500_000)
    assert change is Change.ROUNDING


def _shown_precision(value: int | float) -> Decimal:
    """The unit of the last digit a figure shows, computed exactly (an oracle for the tests)."""
    exact = Decimal(repr(value))
    if isinstance(value, float) and exact.as_tuple().exponent != 0 and value != int(value):
        exponent = exact.as_tuple().exponent
    else:
        whole = Decimal(int(value))
        exponent = whole.normalize().as_tuple().exponent if whole else 0
    assert isinstance(exponent, int)
    return Decimal(1).scaleb(exponent)


def _agree_within_half_precision(rev: ValueChange) -> bool:
    old, new = Decimal(repr(rev.previous)), Decimal(repr(rev.row.value))
    coarser = max(_shown_precision(rev.previous), _shown_precision(rev.row.value))
    return abs(old - new) * 2 <= coarser


@pytest.mark.parametrize("ticker", ["MRVL", "NVDA", "TSLA", "GOOGL", "SNOW"])
def test_a_revision_is_a_rounding_exactly_when_its_values_agree_within_half_the_coarser_precision(
    parsed: dict[str, ParsedFile], ticker: str,
) -> None:
    found = classified(parsed[ticker])
    roundings = {rev for rev, change in found.items() if change is Change.ROUNDING}
    agreeing = {rev for rev in found if _agree_within_half_precision(rev)}
    assert len(roundings) > 25
    assert roundings == agreeing


def test_marvell_revisions_are_mostly_roundings(parsed: dict[str, ParsedFile]) -> None:
    classes = Counter(classified(parsed["MRVL"]).values())
    assert classes[Change.ROUNDING] > classes[Change.RESTATEMENT] + classes[
        Change.RECLASSIFICATION]


def test_teslas_fy2014_cost_of_goods_sold_has_three_values_from_three_annual_reports(
    parsed: dict[str, ParsedFile],
) -> None:
    rows = sorted((r for r in parsed["TSLA"].rows
                   if (r.concept, r.unit, r.start, r.end) == ("CostOfGoodsSold", "USD",
                                                              *TSLA_FY2014)),
                  key=lambda r: r.filed)
    assert [(r.value, r.filed) for r in rows] == [
        (2_310_011_000, date(2015, 2, 26)),
        (2_145_749_000, date(2016, 2, 24)),
        (2_058_344_000, date(2017, 3, 1)),
    ]
    found = [rev for rev in revisions(parsed["TSLA"].rows)
             if (rev.row.concept, rev.row.start, rev.row.end) == ("CostOfGoodsSold",
                                                                  *TSLA_FY2014)]
    assert sorted((rev.previous, rev.row.value) for rev in found) == [
        (2_145_749_000, 2_058_344_000), (2_310_011_000, 2_145_749_000)]


def test_the_filer_comes_from_the_header_and_the_ticker_from_the_file_name(
    parsed: dict[str, ParsedFile],
) -> None:
    assert (parsed["LPA"].filer.cik, parsed["LPA"].filer.ticker) == ("0001997711", "LPA")
    assert parsed["LPA"].filer.subject().identifiers == ("cik:0001997711", "ticker:LPA")
    assert (parsed["NVDA"].filer.cik, parsed["NVDA"].filer.name) == ("0001045810", "NVIDIA CORP")
    assert {r.taxonomy for r in parsed["LPA"].rows} >= {"ifrs-full"}


# --- pure: the classifier on small synthetic rows ---


def row(concept: str, value: int | float, accn: str = "0000000001-20-000002", *,
        unit: str = "USD", form: str = "10-Q", filed: date = date(2020, 7, 30),
        start: date | None = date(2020, 1, 1), end: date = date(2020, 3, 31)) -> Row:
    return Row("us-gaap", concept, unit, start, end, value, accn, form, filed)


def revised(*pairs: tuple[Row, int | float]) -> dict[ValueChange, Change]:
    """Classes of revisions built as a file would show them: an earlier filing, then ``row``."""
    rows: list[Row] = []
    for new, old in pairs:
        rows += [Row(new.taxonomy, new.concept, new.unit, new.start, new.end, old,
                     "0000000001-20-000001", "10-Q", date(2020, 4, 30)), new]
    found = revisions(rows)
    assert len(found) == sum(new.value != old for new, old in pairs)
    return classify(found)


def classes_by_concept(found: dict[ValueChange, Change]) -> dict[str, Change]:
    return {rev.row.concept: change for rev, change in found.items()}


@pytest.mark.parametrize(("value", "expected"), [
    (2_310_011_000, 1_000.0),
    (2_310_000_000, 10_000_000.0),
    (461_500_000, 100_000.0),
    (7, 1.0),
    (0, 1.0),
    (-1_200, 100.0),
    (1.19, 0.01),
    (11.93, 0.01),
    (0.5, 0.1),
])
def test_precision_is_the_unit_of_the_last_digit_a_figure_shows(
    value: int | float, expected: float,
) -> None:
    assert precision(value) == pytest.approx(expected)


@pytest.mark.parametrize(("old", "new", "rounding"), [
    (461_509_000, 461_500_000, True),  # thousands, then hundred thousands
    (2_310_011_000, 2_310_000_000, True),
    (1_000_000, 1_500_000, True),  # exactly half a million apart: the coarser grain
    (1_000_000, 1_500_001, False),  # one dollar more than that
    (2_310_011_000, 2_145_749_000, False),
    (1.19, 1.2, True),
    (1.19, 1.25, False),
    (1_001, 1_002, False),  # two figures in dollars: a dollar is a change
    (1_000, 1_001, True),  # 1,000 may be a figure in thousands: it shows no finer digit
])
def test_is_rounding_accepts_differences_up_to_half_the_coarser_precision(
    old: int | float, new: int | float, rounding: bool,
) -> None:
    assert is_rounding(ValueChange(row("Revenues", new), old)) is rounding


def test_lines_that_move_by_opposite_amounts_under_an_unchanged_bottom_line_are_reclassified(
) -> None:
    found = revised(
        (row("OperatingIncomeLoss", 7_633_000_000), 7_001_000_000),
        (row("GeneralAndAdministrativeExpense", 1_403_000_000), 2_035_000_000),
        (row("NetIncomeLoss", 9_401_000_000), 9_401_000_000),
    )
    assert classes_by_concept(found) == {
        "OperatingIncomeLoss": Change.RECLASSIFICATION,
        "GeneralAndAdministrativeExpense": Change.RECLASSIFICATION,
    }


def test_a_reclassification_pair_whose_bottom_line_moved_is_a_restatement() -> None:
    found = revised(
        (row("OperatingIncomeLoss", 7_633_000_000), 7_001_000_000),
        (row("GeneralAndAdministrativeExpense", 1_403_000_000), 2_035_000_000),
        (row("NetIncomeLoss", 9_500_000_000), 9_401_000_000),
    )
    assert set(classes_by_concept(found).values()) == {Change.RESTATEMENT}
    assert len(found) == 3


def test_a_line_that_moves_alone_is_a_restatement() -> None:
    found = revised(
        (row("OperatingIncomeLoss", 7_633_000_000), 7_001_000_000),
        (row("GeneralAndAdministrativeExpense", 1_500_000_000), 2_035_000_000),
    )
    assert set(classes_by_concept(found).values()) == {Change.RESTATEMENT}


def test_offsetting_lines_in_an_amendment_are_a_restatement() -> None:
    found = revised(
        (row("OperatingIncomeLoss", 7_633_000_000, form="10-K/A"), 7_001_000_000),
        (row("GeneralAndAdministrativeExpense", 1_403_000_000, form="10-K/A"), 2_035_000_000),
    )
    assert set(classes_by_concept(found).values()) == {Change.RESTATEMENT}
    assert len(found) == 2


def test_a_four_for_one_split_adjusts_per_share_values_and_share_counts() -> None:
    found = revised(
        (row("EarningsPerShareDiluted", 1.0, unit="USD/shares"), 4.0),
        (row("EarningsPerShareBasic", 1.03, unit="USD/shares"), 4.12),
        (row("WeightedAverageNumberOfDilutedSharesOutstanding", 2_400_000_000, unit="shares"),
         600_000_000),
    )
    assert set(classes_by_concept(found).values()) == {Change.SPLIT_ADJUSTMENT}
    assert len(found) == 3


def test_a_split_filing_does_not_make_a_dollar_figure_or_an_off_ratio_eps_a_split() -> None:
    found = classes_by_concept(revised(
        (row("EarningsPerShareDiluted", 1.0, unit="USD/shares"), 4.0),
        (row("EarningsPerShareBasic", 1.02, unit="USD/shares"), 4.12),  # 4.12 / 4 is 1.03
        (row("WeightedAverageNumberOfDilutedSharesOutstanding", 2_400_000_000, unit="shares"),
         600_000_000),
        (row("Revenues", 4_000_000_000), 1_000_000_000),  # times four, but in dollars
    ))
    assert found["EarningsPerShareDiluted"] is Change.SPLIT_ADJUSTMENT
    assert found["EarningsPerShareBasic"] is Change.RESTATEMENT
    assert found["Revenues"] is Change.RESTATEMENT


def test_the_same_value_again_is_no_revision_and_order_follows_the_filed_date() -> None:
    early = row("Revenues", 5, "0000000001-20-000001", filed=date(2020, 4, 30))
    late = row("Revenues", 6, "0000000001-21-000001", filed=date(2021, 4, 30))
    again = row("Revenues", 6, "0000000001-22-000001", filed=date(2022, 4, 30))
    (rev,) = revisions([again, late, early])
    assert (rev.previous, rev.row.value, rev.row.accn) == (5, 6, late.accn)
    assert revisions([early, row("Revenues", 5, filed=date(2021, 1, 1))]) == []
