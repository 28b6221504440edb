"""Quarterly KPIs from the command line: ``vintage ingest facts`` of quarters alone (one company
declaring its fiscal year-end in the table), then ``vintage asof`` over LTM, a fiscal year and
windows by dates, on both backends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.factories import run

HEADER = ("subject,predicate,value,unit,period_start,period_end,source_id,available_at,form,"
          "source_kind,fiscal_year_end\n")
# PAY reports calendar quarters and declares nothing. SHOP's quarters end in January, April,
# July and October, and its rows declare a fiscal year ending January 31.
ROWS = """\
PAY,us-gaap:Revenues,120,USD,2024-07-01,2024-09-30,pay-q3,2024-10-24,8-K,earnings_release,
PAY,us-gaap:Revenues,130,USD,2024-10-01,2024-12-31,pay-q4,2025-01-25,8-K,earnings_release,
PAY,us-gaap:Revenues,140,USD,2025-01-01,2025-03-31,pay-q1,2025-04-25,8-K,earnings_release,
PAY,us-gaap:Revenues,150,USD,2025-04-01,2025-06-30,pay-q2,2025-07-25,8-K,earnings_release,
SHOP,us-gaap:Revenues,10,USD,2024-02-01,2024-04-30,shop-1,2024-05-25,8-K,earnings_release,01-31
SHOP,us-gaap:Revenues,11,USD,2024-05-01,2024-07-31,shop-2,2024-08-25,8-K,earnings_release,01-31
SHOP,us-gaap:Revenues,12,USD,2024-08-01,2024-10-31,shop-3,2024-11-25,8-K,earnings_release,01-31
SHOP,us-gaap:Revenues,13,USD,2024-11-01,2025-01-31,shop-4,2025-02-25,8-K,earnings_release,01-31
SHOP,us-gaap:Revenues,14,USD,2025-02-01,2025-04-30,shop-5,2025-05-25,8-K,earnings_release,01-31
SHOP,us-gaap:Revenues,15,USD,2025-05-01,2025-07-31,shop-6,2025-08-25,8-K,earnings_release,01-31
"""


@pytest.fixture
def ingested(store_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
             monkeypatch: pytest.MonkeyPatch) -> list[str]:
    table = tmp_path / "quarters.csv"
    table.write_text(HEADER + ROWS)
    code, out, err = run([*store_args, "ingest", "facts", str(table)], capsys, monkeypatch)
    assert code == 0, err
    assert "10 rows" in out  # a declared year-end is stored as a fact, but it is not a row
    return store_args


def revenue(store_args: list[str], subjects: list[str], period: str,
            capsys: pytest.CaptureFixture[str],
            monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    named = [arg for s in subjects for arg in ("--subject", s)]
    code, out, err = run([*store_args, "asof", "revenue", *named, "--cutoff", "2025-08-10",
                          "--period", period, "--json"], capsys, monkeypatch)
    assert code == 0, err
    answers: list[dict[str, Any]] = json.loads(out)["answers"]
    return answers


def test_quarters_alone_answer_ltm_fiscal_years_and_windows_by_dates(
    ingested: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    pay, shop = revenue(ingested, ["PAY", "SHOP"], "LTM", capsys, monkeypatch)
    # 2025-08-10: PAY's June quarter is public, SHOP's July quarter is not (2025-08-25).
    assert (pay["period"], pay["span"], pay["value"]) == (
        "LTM to 2025-06-30", "2024-07-01..2025-07-01", 540)
    assert (shop["period"], shop["span"], shop["value"]) == (
        "LTM to FY2026Q1", "2024-05-01..2025-05-01", 50)
    (fy,) = revenue(ingested, ["SHOP"], "FY2025", capsys, monkeypatch)
    assert (fy["span"], fy["value"]) == ("2024-02-01..2025-02-01", 46)
    (window,) = revenue(ingested, ["PAY"], "2024-07-01..2025-07-01", capsys, monkeypatch)
    assert (window["value"], window["method"]) == (540, "sum of four quarters")
    (gap,) = revenue(ingested, ["PAY"], "2024-04-01..2025-04-01", capsys, monkeypatch)
    assert gap["value"] is None
    assert "gap 2024-04-01..2024-07-01" in gap["refused"]


def test_a_fiscal_year_end_that_is_not_a_day_of_every_year_refuses_the_file(
    store_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = tmp_path / "quarters.csv"
    table.write_text(HEADER + ROWS.replace(",01-31\n", ",02-29\n", 1))
    code, _, err = run([*store_args, "ingest", "facts", str(table)], capsys, monkeypatch)
    assert code == 2
    assert "row 6, field 'fiscal_year_end'" in err and "nothing from" in err
    # Nothing was written: the whole good file then creates every fact afresh.
    table.write_text(HEADER + ROWS)
    code, out, err = run([*store_args, "ingest", "facts", str(table), "--json"], capsys,
                         monkeypatch)
    assert code == 0, err
    (summary,) = json.loads(out)  # one summary per file
    # Ten figures and one declared year-end; SHOP's five other rows repeat the declaration.
    assert (summary["rows"], summary["facts_created"], summary["support_repeats"]) == (10, 11, 5)


def test_one_file_declaring_two_year_ends_for_a_subject_is_refused(
    store_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = tmp_path / "quarters.csv"
    table.write_text(HEADER + ROWS.replace("shop-2,2024-08-25,8-K,earnings_release,01-31",
                                           "shop-2,2024-08-25,8-K,earnings_release,07-31"))
    code, _, err = run([*store_args, "ingest", "facts", str(table)], capsys, monkeypatch)
    assert code == 2
    assert "row 7, field 'fiscal_year_end': 07-31 differs from 01-31" in err
