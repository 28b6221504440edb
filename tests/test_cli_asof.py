"""``vintage asof METRIC`` from the command line: a user's metric over KPIs from an earnings
release, the JSON answer, and the errors a person can make."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.factories import run
from vintage.graph.store.backends import open_store

# A synthetic payments company: revenue and payment volume for one calendar year, as an earnings
# release would state them (quarters and the year), with one later correction of Q4 volume.
KPI_ROWS = """\
subject,predicate,value,unit,period_start,period_end,source_id,available_at,form,source_kind
PAY,us-gaap:Revenues,100,USD,2024-01-01,2024-03-31,er-q1,2024-04-25,8-K,earnings_release
PAY,us-gaap:Revenues,110,USD,2024-04-01,2024-06-30,er-q2,2024-07-25,8-K,earnings_release
PAY,us-gaap:Revenues,120,USD,2024-07-01,2024-09-30,er-q3,2024-10-24,8-K,earnings_release
PAY,us-gaap:Revenues,130,USD,2024-10-01,2024-12-31,er-q4,2025-02-05,8-K,earnings_release
PAY,us-gaap:Revenues,460,USD,2024-01-01,2024-12-31,er-q4,2025-02-05,8-K,earnings_release
PAY,kpi:TPV,4000,USD,2024-01-01,2024-03-31,er-q1,2024-04-25,8-K,earnings_release
PAY,kpi:TPV,4400,USD,2024-04-01,2024-06-30,er-q2,2024-07-25,8-K,earnings_release
PAY,kpi:TPV,4800,USD,2024-07-01,2024-09-30,er-q3,2024-10-24,8-K,earnings_release
PAY,kpi:TPV,5000,USD,2024-10-01,2024-12-31,er-q4,2025-02-05,8-K,earnings_release
PAY,kpi:TPV,5200,USD,2024-10-01,2024-12-31,er-q4-fix,2025-03-01,8-K,earnings_release
"""
METRICS = """metrics:
  take_rate:
    description: retained revenue per $100 of payment volume
    formula: 100 * revenue / volume
    unit: percent
    window: ltm
    inputs:
      revenue: [us-gaap:Revenues]
      volume: [kpi:PaymentVolume]
    subjects:
      PAY: {volume: [kpi:TPV]}
"""


@pytest.fixture
def kpis(tmp_path: Path) -> tuple[Path, Path]:
    table, metrics = tmp_path / "kpis.csv", tmp_path / "metrics.yaml"
    table.write_text(KPI_ROWS)
    metrics.write_text(METRICS)
    return table, metrics


def test_a_user_metric_over_release_kpis_answers_as_of_each_cutoff(
    store_args: list[str], kpis: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    table, metrics = kpis
    code, _, err = run([*store_args, "ingest", "facts", str(table)], capsys, monkeypatch)
    assert code == 0, err

    def take_rate(cutoff: str) -> dict[str, object]:
        code, out, err = run([*store_args, "asof", "take_rate", "--metrics", str(metrics),
                              "--subject", "PAY", "--cutoff", cutoff, "--period", "FY2024",
                              "--json"], capsys, monkeypatch)
        assert code == 0, err
        answer = json.loads(out)
        assert (answer["metric"], answer["period"]) == ("take_rate", "FY2024")
        (subject,) = answer["answers"]
        return dict(subject)

    before_fix = take_rate("2025-02-10")
    assert before_fix["value"] == pytest.approx(100 * 460 / 18_200)
    assert before_fix["unit"] == "percent"
    assert before_fix["span"] == "2024-01-01..2025-01-01"
    inputs = before_fix["inputs"]
    assert isinstance(inputs, list)
    assert {i["predicate"] for i in inputs} == {"us-gaap:Revenues", "kpi:TPV"}
    warnings = before_fix["warnings"]
    assert isinstance(warnings, list)
    assert not any("5200" in w for w in warnings)  # the fix of 2025-03-01 is not known yet
    after_fix = take_rate("2025-03-02")
    assert after_fix["value"] == pytest.approx(100 * 460 / 18_400)
    assert after_fix["derivation_id"] != before_fix["derivation_id"]
    assert take_rate("2025-02-10") == before_fix  # the earlier answer does not move


def test_asof_needs_a_tenant_a_known_metric_and_a_period_it_understands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("VINTAGE_TENANT", raising=False)
    open_store(str(tmp_path / "s")).close()  # a read refuses a store that does not exist
    base = ["--store", str(tmp_path / "s")]
    ask = ["revenue", "--subject", "GOOGL", "--cutoff", "2020-01-01"]
    code, _, err = run([*base, "asof", *ask], capsys, monkeypatch)
    assert code == 2 and "--tenant" in err
    code, _, err = run([*base, "--tenant", "t", "asof", "revenu", *ask[1:]], capsys, monkeypatch)
    assert code == 2 and "revenue" in err  # the close built-in name is suggested
    code, _, err = run([*base, "--tenant", "t", "asof", *ask, "--period", "2019"], capsys,
                       monkeypatch)
    assert code == 2 and "FY2024" in err  # the accepted forms are named
    code, _, err = run([*base, "--tenant", "t", "asof", *ask, "--period", "FY9999Q4"], capsys,
                       monkeypatch)
    assert code == 2 and "not between 1000 and 9990" in err  # was an internal error


def test_a_latest_twelve_months_asked_in_the_calendars_first_years_is_refused_not_an_error(
    store_args: list[str], kpis: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    # LTM reads five years back from the cutoff: from 0003-01-01 that was before year 1, an
    # internal error; the read now starts at the calendar's beginning and finds nothing.
    table, metrics = kpis
    assert run([*store_args, "ingest", "facts", str(table)], capsys, monkeypatch)[0] == 0
    code, out, err = run([*store_args, "asof", "take_rate", "--metrics", str(metrics),
                          "--subject", "PAY", "--cutoff", "0003-01-01", "--json"],
                         capsys, monkeypatch)
    assert code == 0, err
    (answer,) = json.loads(out)["answers"]
    assert answer["value"] is None and "nothing public by 0003-01-01" in answer["refused"]
