"""The tables still printed only as text are also CSV (issue 39): a trace's considered items, an
ingest's cascade, impact's "already revised", explain's versions, ``tools list`` and ``sources
trusted`` take ``--format csv``: a header row, then a row per line of the table, a cell holding
a comma, a quote or Chinese text quoted as RFC 4180 says and read back whole, no terminal
escape, every id whole (the same as ``--json`` gives it)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from tests.factories import run

OLD = """\
subject,predicate,value,unit,period_start,period_end,source_id,available_at,form
GOOGL,us-gaap:Revenues,31146000000,USD,2018-01-01,2018-03-31,q1-10q,2018-04-24,10-Q
GOOGL,us-gaap:OperatingIncomeLoss,7001000000,USD,2018-01-01,2018-03-31,q1-10q,2018-04-24,10-Q
"""
RECAST = """\
subject,predicate,value,unit,period_start,period_end,source_id,available_at,form
GOOGL,us-gaap:OperatingIncomeLoss,7633000000,USD,2018-01-01,2018-03-31,recast,2019-04-30,10-Q
"""
QUARTER = "2018-01-01..2018-04-01"
# A file name holding a comma and Chinese text: the cascade's ``file`` cell is quoted.
RECAST_FILE = "重述, recast.csv"
SAID = ["--source-kind", "user_message", "--observed-at", "2026-05-01T10:00:00Z",
        "--owner", "user:42", "--reason", "asked", "--user", "42"]


def table(out: str) -> tuple[list[str], list[dict[str, str]]]:
    assert "\x1b" not in out and "│" not in out  # no colour, no table drawing
    reader = csv.DictReader(io.StringIO(out))
    return list(reader.fieldnames or []), list(reader)


@pytest.fixture
def recast(store_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
           monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], str]:
    """Alphabet's FY2018Q1 operating margin derived from the 10-Q, then the 2019 recast of its
    operating income ingested with --recompute as CSV; that CSV."""
    (tmp_path / "q1.csv").write_text(OLD)
    (tmp_path / RECAST_FILE).write_text(RECAST)
    code, _, err = run([*store_args, "ingest", "facts", str(tmp_path / "q1.csv")], capsys,
                       monkeypatch)
    assert code == 0, err
    code, _, err = run([*store_args, "asof", "operating_margin", "--subject", "GOOGL",
                        "--period", QUARTER, "--cutoff", "2018-06-30"], capsys, monkeypatch)
    assert code == 0, err
    code, out, err = run([*store_args, "ingest", "facts", str(tmp_path / RECAST_FILE),
                          "--recompute", "--format", "csv"], capsys, monkeypatch)
    assert code == 0, err
    return store_args, out


def test_an_ingest_as_csv_is_a_row_per_derived_fact_its_corrections_reached(
    recast: tuple[list[str], str],
) -> None:
    _, out = recast
    header, found = table(out)
    assert header == ["file", "fact", "subject", "predicate", "fate", "depth", "old_value",
                      "new_value", "new_fact"]
    (row,) = found
    assert (row["file"], row["subject"], row["predicate"], row["fate"], row["depth"]) == (
        RECAST_FILE, "GOOGL", "metric:operating_margin", "recomputed", "1")
    assert f'"{RECAST_FILE}"' in out  # the comma quoted, the Chinese text as written
    assert round(float(row["old_value"]), 4) == round(7001 / 31146 * 100, 4)
    assert round(float(row["new_value"]), 4) == round(7633 / 31146 * 100, 4)


def test_impact_as_csv_adds_what_the_source_already_revised_after_what_it_reaches(
    recast: tuple[list[str], str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store_args, _ = recast
    code, out, err = run([*store_args, "impact", "--source", "recast", "--format", "csv"],
                         capsys, monkeypatch, columns=80)
    assert code == 0, err
    header, found = table(out)
    assert header[:3] == ["entry", "depth", "id"] and header[-4:] == [
        "new_id", "new_value", "revision", "change"]
    code, as_json, err = run([*store_args, "impact", "--source", "recast", "--json"], capsys,
                             monkeypatch)
    assert code == 0, err
    revised = json.loads(as_json)["revised"]
    assert [(r["entry"], r["id"], r["new_id"], r["revision"]) for r in found
            if r["entry"] == "revised"] == [
        ("revised", r["old"]["id"], r["new"]["id"], r["revision"]) for r in revised]
    assert {r["revision"] for r in found if r["entry"] == "revised"} == {"filed",
                                                                          "recomputed"}
    assert [r["value"] for r in found if r["predicate"] == "us-gaap:OperatingIncomeLoss"] == [
        "7001000000"]  # every digit


def test_explain_as_csv_is_a_row_per_version_of_the_tree_each_input_under_its_fact(
    recast: tuple[list[str], str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store_args, _ = recast
    code, out, err = run([*store_args, "asof", "operating_margin", "--subject", "GOOGL",
                          "--period", QUARTER, "--cutoff", "2019-06-30", "--json"], capsys,
                         monkeypatch)
    assert code == 0, err
    (answer,) = json.loads(out)["answers"]
    code, out, err = run([*store_args, "explain", answer["fact_id"], "--format", "csv"],
                         capsys, monkeypatch, columns=80)
    assert code == 0, err
    header, found = table(out)
    assert header[:6] == ["depth", "parent", "role", "id", "subject", "predicate"]
    root, *inputs = found
    assert (root["depth"], root["parent"], root["id"], root["predicate"]) == (
        "0", "", answer["fact_id"], "metric:operating_margin")
    assert root["derived_by"] == answer["derivation_id"] and root["recipe"]
    assert sorted((i["depth"], i["parent"], i["predicate"], i["value"], i["sources"])
                  for i in inputs) == [
        ("1", answer["fact_id"], "us-gaap:OperatingIncomeLoss", "7633000000", "recast"),
        ("1", answer["fact_id"], "us-gaap:Revenues", "31146000000", "q1-10q")]
    (operating,) = (i for i in inputs if i["predicate"] == "us-gaap:OperatingIncomeLoss")
    assert operating["corrects"]  # the 10-Q's version it corrects, by id
    code, out, err = run([*store_args, "explain", answer["fact_id"], "--prov", "--format",
                          "csv"], capsys, monkeypatch)
    assert (code, out) == (2, "") and "not two" in err


def test_a_trace_as_csv_is_its_considered_items_with_their_signals_as_json(
    store_args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run([*store_args, "remember", "preference", "user:42",
                          "shipping.preference", "寄到公司, \"三楼\"", "--source-id", "msg-1",
                          *SAID, "--json"], capsys, monkeypatch)
    assert code == 0, err
    memory = json.loads(out)["memory"]
    code, out, err = run([*store_args, "context", "--query", "寄到公司", "--budget", "400",
                          "--user", "42", "--for-thread", "th1"], capsys, monkeypatch)
    assert code == 0, err
    named = re.search(r"^injection (e[0-9a-f]+);", out, re.MULTILINE)
    assert named is not None, out
    injection = named.group(1)
    code, out, err = run([*store_args, "trace", injection, "--format", "csv"], capsys,
                         monkeypatch, columns=80)
    assert code == 0, err
    header, found = table(out)
    assert header == ["rank", "id", "score", "signals", "outcome"]
    (item,) = found
    assert (item["rank"], item["id"], item["outcome"]) == ("1", memory, "injected")
    assert isinstance(json.loads(item["signals"]), dict) and '""' in out  # quotes doubled
    assert "三楼" not in out  # ids and scores, never the memory's text


def test_tools_list_and_trusted_sources_as_csv_are_a_header_and_a_row_each(
    store_args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, _ = run([*store_args, "tools", "list", "--format", "csv"], capsys, monkeypatch)
    assert (code, out) == (0, "name,version,reporters,event\n")
    for tool in (["crm-1", "--reporter", "bot-a", "--reporter", "bot-b"],
                 ["billing", "--version", "v2"]):
        code, _, err = run([*store_args, "tools", "register", *tool], capsys, monkeypatch)
        assert code == 0, err
    code, out, err = run([*store_args, "tools", "list", "--format", "csv"], capsys, monkeypatch)
    assert code == 0, err
    _, found = table(out)
    assert sorted((r["name"], r["version"], r["reporters"]) for r in found) == [
        ("billing", "v2", ""), ("crm-1", "", "bot-a bot-b")]
    assert all(r["event"].startswith("e") for r in found)
    code, out, err = run([*store_args, "sources", "trust", "wiki:退货政策"], capsys, monkeypatch)
    assert code == 0, err
    code, out, err = run([*store_args, "sources", "trusted", "--format", "csv"], capsys,
                         monkeypatch)
    assert (code, out) == (0, "kind,source\ndocument,wiki:退货政策\n"), err
    for command in (["tools", "list"], ["sources", "trusted"]):
        code, out, err = run([*store_args, *command, "--json", "--format", "csv"], capsys,
                             monkeypatch)
        assert (code, out) == (2, "") and "not both" in err, command
