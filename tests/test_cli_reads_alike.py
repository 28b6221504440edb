"""What the command line prints reads alike from one command to the next (issue 39): one number
format, a change named by its class, counts said in words, the concept that answered, ids
never cut, several cutoffs side by side, and every table also as CSV and a pandas DataFrame."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import pytest

import vintage
from tests.factories import run
from vintage.queries.metrics.definitions import resolve_metric
from vintage.queries.metrics.periods import parse_period

# Alphabet's FY2018Q1 as a table: revenue and operating income from the 10-Q, and the 2019
# recast of operating income.
Q1_2018 = """\
subject,predicate,value,unit,period_start,period_end,source_id,available_at,form,url
GOOGL,us-gaap:Revenues,31146000000,USD,2018-01-01,2018-03-31,q1-10q,2018-04-24,10-Q,{URL}
GOOGL,us-gaap:OperatingIncomeLoss,7001000000,USD,2018-01-01,2018-03-31,q1-10q,2018-04-24,10-Q,{URL}
GOOGL,us-gaap:OperatingIncomeLoss,7633000000,USD,2018-01-01,2018-03-31,recast,2019-04-30,10-Q,
"""
URL = "https://www.sec.gov/Archives/edgar/data/1652044/000165204418000016/0001652044-18-000016-index.htm"
QUARTER = "2018-01-01..2018-04-01"


@pytest.fixture
def googl(store_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
          monkeypatch: pytest.MonkeyPatch) -> list[str]:
    table = tmp_path / "q1.csv"
    table.write_text(Q1_2018.replace("{URL}", URL))
    code, _, err = run([*store_args, "ingest", "facts", str(table)], capsys, monkeypatch)
    assert code == 0, err
    return store_args


def test_asof_names_the_concept_that_answered_a_built_in_metric(
    googl: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run([*googl, "asof", "operating_income", "--subject", "GOOGL", "--cutoff",
                          "2018-06-30", "--period", QUARTER], capsys, monkeypatch)
    assert code == 0, err
    assert "7,001M USD" in out
    assert "GOOGL: from us-gaap:OperatingIncomeLoss" in out


def test_search_prints_figures_as_every_other_command_does(
    googl: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run([*googl, "search", "operating income", "--cutoff", "2018-06-30"],
                         capsys, monkeypatch)
    assert code == 0, err
    assert "7,001M USD" in out and "7001000000" not in out


def test_impact_says_its_counts_in_words_not_as_a_python_dict(
    googl: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, _, err = run([*googl, "asof", "operating_margin", "--subject", "GOOGL", "--cutoff",
                        "2018-06-30", "--period", QUARTER], capsys, monkeypatch)
    assert code == 0, err
    code, out, err = run([*googl, "impact", "--source", "q1-10q"], capsys, monkeypatch)
    assert code == 0, err
    assert "1 downstream (1 at depth 1; 1 derived, 2 observation)" in out
    assert "{" not in out


def test_several_cutoffs_give_one_table_with_a_column_per_cutoff(
    googl: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    ask = [*googl, "asof", "operating_income", "--subject", "GOOGL", "--period", QUARTER,
           "--cutoff", "2018-06-30", "--cutoff", "2019-06-30"]
    code, out, err = run(ask, capsys, monkeypatch)
    assert code == 0, err
    header = next(line for line in out.splitlines() if "as of 2018-06-30" in line)
    assert header.index("as of 2018-06-30") < header.index("as of 2019-06-30")
    row = next(line for line in out.splitlines() if "GOOGL" in line)
    assert row.index("7,001M USD") < row.index("7,633M USD")  # the second cutoff is kept
    code, out, err = run([*ask, "--json"], capsys, monkeypatch)
    assert code == 0, err
    assert [(a["cutoff"][:10], a["answers"][0]["value"]) for a in json.loads(out)] == [
        ("2018-06-30", 7_001_000_000), ("2019-06-30", 7_633_000_000)]


def test_explain_at_80_columns_cuts_no_id_and_no_url(
    googl: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run([*googl, "asof", "operating_margin", "--subject", "GOOGL", "--cutoff",
                          "2018-06-30", "--period", QUARTER, "--json"], capsys, monkeypatch)
    assert code == 0, err
    (answer,) = json.loads(out)["answers"]
    code, out, err = run([*googl, "explain", answer["fact_id"], "--json"], capsys, monkeypatch)
    tree = json.loads(out)["root"]
    ids = [tree["fact"]["id"], tree["derived_by"][0]["derivation"]["id"],
           *(i["step"]["fact"]["id"] for i in tree["derived_by"][0]["inputs"])]
    code, out, err = run([*googl, "explain", answer["fact_id"]], capsys, monkeypatch,
                         columns=80)
    assert code == 0, err
    words = out.split()
    assert all(i in words for i in ids) and URL in words and "…" not in out


def csv_rows(out: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(out)))


def test_every_table_of_facts_is_also_csv_with_every_digit(
    googl: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run([*googl, "asof", "operating_income", "--subject", "GOOGL", "--period",
                          QUARTER, "--cutoff", "2018-06-30", "--cutoff", "2019-06-30",
                          "--format", "csv"], capsys, monkeypatch)
    assert code == 0, err
    assert [(r["cutoff"][:10], r["value"], r["concepts"]) for r in csv_rows(out)] == [
        ("2018-06-30", "7001000000", "us-gaap:OperatingIncomeLoss"),
        ("2019-06-30", "7633000000", "us-gaap:OperatingIncomeLoss")]
    code, out, err = run([*googl, "facts", "us-gaap:OperatingIncomeLoss", "--subject", "GOOGL",
                          "--cutoff", "2018-06-30", "--format", "csv"], capsys, monkeypatch)
    assert code == 0, err
    (row,) = csv_rows(out)
    assert (row["value"], row["valid_to"], row["known_until"], row["sources"]) == (
        "7001000000", "2018-04-01T00:00:00+00:00", "", "q1-10q")
    run([*googl, "asof", "operating_margin", "--subject", "GOOGL", "--period", QUARTER,
         "--cutoff", "2018-06-30"], capsys, monkeypatch)  # a derived fact for impact to reach
    for command in (["impact", "--source", "q1-10q"],
                    ["search", "operating income", "--cutoff", "2018-06-30"]):
        code, out, err = run([*googl, *command, "--format", "csv"], capsys, monkeypatch)
        assert code == 0, err
        assert csv_rows(out) and "│" not in out, command
    code, out, err = run([*googl, "facts", "x", "--subject", "GOOGL", "--json", "--format",
                          "csv"], capsys, monkeypatch)
    assert code == 2 and "not both" in err and out == ""


def test_to_pandas_gives_a_table_as_a_data_frame_and_says_when_pandas_is_missing(
    googl: list[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = vintage.open_store(googl[1])
    try:
        answer = vintage.ask(store, vintage.Scope(tenant=googl[3]),
                             resolve_metric("operating_income"), ["GOOGL"],
                             vintage.instant("2018-06-30"), parse_period(QUARTER))
        facts = vintage.facts_as_of(store, vintage.Scope(tenant=googl[3]), subjects=["GOOGL"],
                                    known_at=vintage.instant("2018-06-30"))
    finally:
        store.close()
    frame = vintage.to_pandas(answer)
    assert list(frame["value"]) == [7_001_000_000] and list(frame["subject"]) == ["GOOGL"]
    assert sorted(vintage.to_pandas(facts)["predicate"]) == [
        "us-gaap:OperatingIncomeLoss", "us-gaap:Revenues"]
    monkeypatch.setitem(sys.modules, "pandas", None)  # as if it were not installed
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'vintage\[pandas\]'"):
        vintage.to_pandas(answer)


def test_a_period_is_half_open_in_every_command_and_printed_as_it_is_typed(
    googl: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run([*googl, "asof", "operating_income", "--subject", "GOOGL", "--cutoff",
                          "2018-06-30", "--period", QUARTER, "--json"], capsys, monkeypatch)
    assert code == 0, err
    (answer,) = json.loads(out)["answers"]
    assert answer["span"] == QUARTER and answer["inputs"][0]["period"] == QUARTER
    history = [*googl, "history", "us-gaap:OperatingIncomeLoss", "--subject", "GOOGL",
               "--unit", "USD", "--period"]
    code, out, err = run([*history, QUARTER, "--json"], capsys, monkeypatch)
    assert code == 0, err
    assert [v["value"] for v in json.loads(out)] == [7_001_000_000, 7_633_000_000]
    code, out, err = run([*googl, "facts", "us-gaap:OperatingIncomeLoss", "--subject", "GOOGL",
                          "--cutoff", "2018-06-30"], capsys, monkeypatch)
    assert QUARTER in out  # the table's valid column, as asof's span
    # An inclusive end misses the quarter by a day: said, not an empty table.
    code, out, err = run([*history, "2018-01-01..2018-03-31"], capsys, monkeypatch)
    assert code == 2 and out == ""
    assert "half-open" in err and QUARTER in err and len(err.strip().splitlines()) == 1
