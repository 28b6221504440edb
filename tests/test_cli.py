"""The ``vintage`` command line, end to end on both backends: what a person types and reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.factories import run


def test_demo_answers_each_cutoff_with_the_value_public_then(
    store_args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, _ = run([*store_args, "demo"], capsys, monkeypatch)
    assert code == 0
    assert "as of 2018-04-23  nothing public yet" in out
    assert "as of 2018-06-30  7,001M USD" in out
    assert "as of 2019-06-30  7,633M USD" in out
    assert "as of 2016-06-30  2,146M USD" in out
    assert "as of 2025-06-30  1.19 USD/shares" in out
    code, again, _ = run([*store_args, "demo"], capsys, monkeypatch)
    assert code == 0
    assert "(0 new fact versions this run" in again


def test_asof_json_names_the_value_its_interval_and_its_filing(
    store_args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    run([*store_args, "demo"], capsys, monkeypatch)
    code, out, _ = run([*store_args, "facts", "us-gaap:OperatingIncomeLoss", "--subject", "GOOGL",
                        "--cutoff", "2018-06-30", "--valid-at", "2018-02-15", "--json"],
                       capsys, monkeypatch)
    assert code == 0
    (answer,) = [a for a in json.loads(out) if a["valid"][1].startswith("2018-04-01")]
    assert answer["value"] == 7001000000
    # Its knowledge end, 2019-04-30, lies after the cutoff: hindsight, shown as open.
    assert answer["knowledge"] == ["2018-04-24T00:00:00+00:00", None]
    assert [s["id"] for s in answer["sources"]] == ["0001652044-18-000016"]


def test_a_command_that_reads_facts_without_a_tenant_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("VINTAGE_TENANT", raising=False)
    code, out, err = run(["--store", str(tmp_path), "facts", "x", "--subject", "GOOGL"],
                         capsys, monkeypatch)
    assert code == 2
    assert "--tenant" in err
    assert out == ""


def test_malformed_file_names_row_and_field_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = tmp_path / "kpis.csv"
    table.write_text(
        "subject,predicate,value,unit,period_start,period_end,source_id,available_at\n"
        "PYPL,TPV,1,USD,2025-01-01,2025-03-31,r1,2025-04-29\n"
        "PYPL,TPV,abc,USD,2025-04-01,2025-06-30,r2,2025-07-29\n"
    )
    store = ["--store", str(tmp_path / "store"), "--tenant", "acme"]
    code, _, err = run([*store, "ingest", "facts", str(table)], capsys, monkeypatch)
    assert code == 2
    assert "row 3, field 'value': not a number" in err
    code, _, err = run([*store, "facts", "TPV", "--subject", "PYPL", "--json"], capsys,
                       monkeypatch)
    assert code == 2 and "unknown subject 'PYPL'" in err  # not even the subject was written


def test_bad_cutoff_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, _, err = run(["--store", str(tmp_path), "--tenant", "a", "facts", "x", "--subject", "S",
                        "--cutoff", "31/12/2018"], capsys, monkeypatch)
    assert code == 2
    assert "cutoff" in err


def test_demo_recomputes_the_operating_margin_and_leaves_the_net_margin(
    store_args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, _ = run([*store_args, "demo"], capsys, monkeypatch)
    assert code == 0
    assert "as of 2018-06-30  22.48 percent" in out  # 7,001 / 31,146, public 2018-04-24
    assert "as of 2019-06-30  24.51 percent" in out  # 7,633 / 31,146 after the recast
    assert "as of 2019-06-30  30.18 percent" in out  # net margin: untouched by the recast
    assert "2 changed, 8 kept by other sources, 1 downstream" in out


def test_explain_json_walks_a_derived_fact_down_to_its_filings(
    store_args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    run([*store_args, "demo"], capsys, monkeypatch)
    _, out, _ = run([*store_args, "facts", "metric:operating_margin", "--subject", "GOOGL",
                     "--json"], capsys, monkeypatch)
    (margin,) = json.loads(out)
    code, out, _ = run([*store_args, "explain", margin["id"], "--json"], capsys, monkeypatch)
    assert code == 0
    root = json.loads(out)["root"]
    (how,) = root["derived_by"]
    assert how["derivation"]["formula"] == "100 * operating_income / revenue"
    roles = {i["role"]: i["step"] for i in how["inputs"]}
    assert roles["operating_income"]["fact"]["value"] == 7633000000
    assert [s["id"] for s in roles["operating_income"]["sources"]] == ["0001652044-19-000015"]
    assert len(root["supersedes"]) == 1


def test_impact_of_an_unknown_source_is_a_clear_error(
    store_args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, _, err = run([*store_args, "impact", "--source", "nope"], capsys, monkeypatch)
    assert code == 2
    assert "unknown source: nope" in err


def test_explain_exports_prov_json_and_graphml(
    store_args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    run([*store_args, "demo"], capsys, monkeypatch)
    _, out, _ = run([*store_args, "facts", "metric:net_margin", "--subject", "GOOGL", "--json"],
                    capsys, monkeypatch)
    fact_id = json.loads(out)[0]["id"]
    code, out, _ = run([*store_args, "explain", fact_id, "--prov"], capsys, monkeypatch)
    assert code == 0
    document = json.loads(out)
    assert len(document["activity"]) == 1
    assert len(document["used"]) == 2
    code, out, _ = run([*store_args, "explain", fact_id, "--graphml"], capsys, monkeypatch)
    assert code == 0
    assert out.startswith("<graphml")


def test_retract_and_undo_from_the_command_line(
    store_args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    run([*store_args, "demo"], capsys, monkeypatch)
    recast = ["--source", "0001652044-19-000015", "--reason", "test"]
    code, out, _ = run([*store_args, "retract", *recast, "--json"], capsys, monkeypatch)
    assert code == 0
    retracted = json.loads(out)
    # Only the recast Q1-2018 operating income and Q1-2019 revenue rest on it alone.
    assert len(retracted["facts"]) == 2
    assert [c["fate"] for c in retracted["cascade"]] == ["closed"]
    code, out, err = run([*store_args, "retract", *recast], capsys, monkeypatch)
    assert (code, out) == (2, "") and err.startswith(
        "error: source '0001652044-19-000015' supports no fact now: retracted already at ")
    code, out, _ = run([*store_args, "audit", "--json"], capsys, monkeypatch)
    assert [e["action"] for e in json.loads(out)].count("retract") == 1  # nothing logged again
    code, out, _ = run([*store_args, "retract", *recast, "--undo", "--json"], capsys,
                       monkeypatch)
    assert code == 0
    assert [c["fate"] for c in json.loads(out)["cascade"]] == ["reopened"]
