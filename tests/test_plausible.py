"""Implausible filings are refused before anything of their file is written, naming the rows
(ingest/plausible.py; docs/semantics.md, "Implausible sources")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.factories import PinnedClock, run
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import from_to, parse_instant
from vintage.graph.store.protocol import Store
from vintage.ingest.facts_table import IngestError, ingest_table
from vintage.ingest.sec.companyfacts import ingest_companyfacts, plan, read_companyfacts
from vintage.ingest.sec.revisions import classify, revisions

HEADER = "subject,predicate,value,unit,period_start,period_end,source_id,available_at\n"
Q1 = "PYPL,TPV,417,USD,2024-01-01,2024-03-31,q1-release,2024-04-30\n"


def table(tmp_path: Path, *rows: str) -> Path:
    path = tmp_path / "kpis.csv"
    path.write_text(HEADER + "".join(rows))
    return path


def refused(store: Store, scope: Scope, path: Path) -> list[tuple[int, str, str]]:
    with pytest.raises(IngestError) as raised:
        ingest_table(store, scope, path, actor="t")
    assert store.events(scope.tenant) == []  # nothing of the file was written
    return raised.value.problems


def test_a_source_public_a_century_before_the_period_it_reports_on_is_refused(
    store: Store, scope: Scope, tmp_path: Path,
) -> None:
    path = table(tmp_path, Q1, "PYPL,TPV,430,USD,2024-04-01,2024-06-30,q2-release,1900-01-01\n")
    ((row, field, message),) = refused(store, scope, path)
    assert (row, field) == (3, "available_at")
    assert "more than 92 days before the period it reports on starts (2024-04-01)" in message


def test_a_source_public_up_to_a_quarter_before_its_period_is_accepted(
    store: Store, scope: Scope, tmp_path: Path,
) -> None:
    # A forward-dated figure, as real filings carry (a settlement scheduled 67 days ahead).
    path = table(tmp_path, "PYPL,Settlement,750,USD,,2024-07-28,q1-10q,2024-05-22\n")
    assert ingest_table(store, scope, path, actor="t").created == 1


def test_a_source_public_after_now_is_refused_and_one_within_the_clock_skew_is_not(
    store: Store, scope: Scope, tmp_path: Path, clock: PinnedClock,
) -> None:
    clock.now = parse_instant("2026-06-01T12:00:00Z")
    late = "PYPL,TPV,430,USD,2026-04-01,2026-06-30,q2-release,2026-06-02\n"
    ((row, field, message),) = refused(store, scope, table(tmp_path, Q1, late))
    assert (row, field) == (3, "available_at")
    assert "later than now (2026-06-01T12:00:00+00:00)" in message
    skewed = "PYPL,TPV,430,USD,2026-04-01,2026-06-30,q2-release,2026-06-01T12:04:00Z\n"
    assert ingest_table(store, scope, table(tmp_path, skewed), actor="t").created == 1


def test_one_source_giving_two_values_for_one_assertion_is_refused_naming_both_rows(
    store: Store, scope: Scope, tmp_path: Path,
) -> None:
    again = Q1.replace("417", "418")
    ((row, field, message),) = refused(store, scope, table(tmp_path, Q1, Q1, again))
    assert (row, field) == (4, "value")
    assert "source q1-release already gave 417" in message and "at row 2" in message
    assert "gives 418 here" in message


# --- companyfacts ---

ROW: dict[str, Any] = {"start": "2024-01-29", "end": "2025-01-26", "val": 2.94,
                       "accn": "0001045810-25-000023", "form": "10-K", "filed": "2025-02-26"}


def companyfacts(tmp_path: Path, *rows: dict[str, Any]) -> Path:
    path = tmp_path / "CIK0001045810_NVDA.json"
    path.write_text(json.dumps({"cik": 1045810, "entityName": "NVIDIA", "facts": {"us-gaap": {
        "EarningsPerShareDiluted": {"units": {"USD/shares": list(rows)}}}}}))
    return path


def test_one_filing_giving_two_values_for_one_fact_is_refused_not_called_a_split(
    tmp_path: Path,
) -> None:
    path = companyfacts(tmp_path, ROW, {**ROW, "val": 29.4})
    with pytest.raises(IngestError) as raised:
        read_companyfacts(path)
    ((row, field, message),) = raised.value.problems
    assert (row, field) == (2, "facts.us-gaap.EarningsPerShareDiluted.units[USD/shares][1].val")
    assert "source 0001045810-25-000023 already gave 2.94" in message and "row 1" in message
    rows = read_companyfacts(companyfacts(tmp_path, ROW, ROW)).rows  # a repeat is no clash
    assert classify(revisions(rows)) == {}


def test_a_filing_dated_a_century_before_its_period_is_refused(tmp_path: Path) -> None:
    with pytest.raises(IngestError) as raised:
        read_companyfacts(companyfacts(tmp_path, {**ROW, "filed": "1900-02-26"}))
    ((row, field, message),) = raised.value.problems
    assert (row, field) == (1, "facts.us-gaap.EarningsPerShareDiluted.units[USD/shares][0].filed")
    assert "implausible" in message


def test_a_filing_from_the_future_is_refused_unless_the_replay_leaves_it_out(
    store: Store, scope: Scope, tmp_path: Path, clock: PinnedClock,
) -> None:
    clock.now = parse_instant("2025-02-25T12:00:00Z")  # the day before the 10-K was filed
    path = companyfacts(tmp_path, ROW)
    with pytest.raises(IngestError, match="0001045810-25-000023: public at 2025-02-26"):
        ingest_companyfacts(store, scope, path, actor="t")
    assert store.events(scope.tenant) == []
    window = from_to(parse_instant("2000-01-01"), parse_instant("2025-01-01"))
    assert plan(read_companyfacts(path), available=window, now=clock.now).facts == []


def test_the_command_line_names_the_file_and_row_of_an_implausible_source(
    store_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = table(tmp_path, Q1, "PYPL,TPV,430,USD,2024-04-01,2024-06-30,q2-release,1900-01-01\n")
    code, out, err = run([*store_args, "ingest", "facts", str(path)], capsys, monkeypatch)
    assert code == 2 and out == ""
    said = " ".join(err.split())  # the console wraps a long line
    assert f"{path}: row 3, field 'available_at': public on 1900-01-01" in said
    assert said.endswith("nothing from this file was written")
