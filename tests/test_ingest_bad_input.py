"""Bad input files get one clear line, never a traceback, and change nothing (issue 12, points 6
and 7): dates at the calendar's edges, fields of megabytes, nesting 100,000 deep, ``1_000``,
bytes that are not UTF-8. Every case goes through the command line and names the file, the row
and the field, says what to do, exits 2 and leaves the tenant empty. A UTF-8 byte-order mark is
not bad input: it is read past."""

from __future__ import annotations

import codecs
import json
from collections.abc import Callable
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from tests.factories import run
from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import Status
from vintage.graph.core.limits import MAX_NAME_CHARS, MAX_TEXT_BYTES, MAX_URI_CHARS
from vintage.graph.core.model import DerivationIn, FactIn, Scope, SourceIn, Subject
from vintage.graph.store.backends import open_store
from vintage.ingest.facts_table import IngestError
from vintage.ingest.sec.companyfacts import read_companyfacts

HEADER = "subject,predicate,value,unit,period_start,period_end,source_id,available_at"
GOOD = {"subject": "ACME", "predicate": "kpi:Volume", "value": "7", "unit": "USD",
        "period_start": "2024-01-01", "period_end": "2024-03-31", "source_id": "s1",
        "available_at": "2024-05-01"}
MB10 = "x" * 10_000_000
CF_ROW = {"start": "2020-01-01", "end": "2020-03-31", "val": 5, "accn": "0000000001-20-000001",
          "form": "10-Q", "filed": "2020-04-30"}
CF_WHERE = "facts.us-gaap.Revenues.units[USD][0]"
Made = tuple[str, Path, list[str]]  # command, the file, further arguments


def csv_text(**row: str) -> str:
    values = {**GOOD, **row}
    header = HEADER + "".join(f",{k}" for k in values if k not in GOOD)
    return header + "\n" + ",".join(values.values()) + "\n"


def jsonl_text(**row: Any) -> str:
    return json.dumps({**GOOD, **row}) + "\n"


def companyfacts_doc(row: dict[str, Any] | None = None, concept: str = "Revenues",
                     name: str = "Acme") -> str:
    return json.dumps({"cik": 1, "entityName": name,
                       "facts": {"us-gaap": {concept: {"units": {"USD": [row or CF_ROW]}}}}})


def write(tmp: Path, name: str, content: str | bytes) -> Path:
    path = tmp / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def facts(name: str, content: str | bytes) -> Callable[[Path], Made]:
    return lambda tmp: ("facts", write(tmp, name, content), [])


def companyfacts(content: str | bytes) -> Callable[[Path], Made]:
    return lambda tmp: ("companyfacts", write(tmp, "acme.json", content), [])


def accepted(content: str) -> Callable[[Path], Made]:
    def made(tmp: Path) -> Made:
        times = write(tmp, "accepted.csv", content)
        return "companyfacts", write(tmp, "acme.json", companyfacts_doc()), [
            "--accepted", str(times)]
    return made


def companyfacts_named(name: str, *more: str) -> Callable[[Path], Made]:
    return lambda tmp: ("companyfacts", write(tmp, name, companyfacts_doc()), list(more))


FAR = "9999-12-31T23:00:00-05:00"  # in UTC: year 10000
EARLY = "0001-01-01T00:00:00+05:00"  # in UTC: year 0
ACCN = CF_ROW["accn"]
DEEP = "[" * 100_000 + "]" * 100_000
# id: (the input, the file named, row, field, words that say what is wrong or what to do)
CASES: dict[str, tuple[Callable[[Path], Made], str, int, str, str]] = {
    # point 6: tracebacks before
    "csv period_end 9999-12-31": (
        facts("k.csv", csv_text(period_end="9999-12-31")), "k.csv", 2, "period_end",
        "the calendar's last day"),
    "jsonl period_end 9999-12-31": (
        facts("k.jsonl", jsonl_text(period_end="9999-12-31")), "k.jsonl", 1, "period_end",
        "the calendar's last day"),
    "companyfacts end 9999-12-31": (
        companyfacts(companyfacts_doc({**CF_ROW, "end": "9999-12-31"})), "acme.json", 1,
        f"{CF_WHERE}.end", "the calendar's last day"),
    "available_at past year 9999 in UTC": (
        facts("k.csv", csv_text(available_at=FAR)), "k.csv", 2, "available_at",
        "outside the years 1-9999 in UTC"),
    "available_at before year 1 in UTC": (
        facts("k.csv", csv_text(available_at=EARLY)), "k.csv", 2, "available_at",
        "outside the years 1-9999 in UTC"),
    "accepted_at past year 9999 in UTC": (
        accepted(f"accession,accepted_at\n{ACCN},{FAR}\n"), "accepted.csv", 2, "accepted_at",
        "outside the years 1-9999 in UTC"),
    "accepted_at before year 1 in UTC": (
        accepted(f"accession,accepted_at\n{ACCN},{EARLY}\n"), "accepted.csv", 2,
        "accepted_at", "outside the years 1-9999 in UTC"),
    "a 10 MB csv field": (
        facts("k.csv", csv_text(subject=MB10)), "k.csv", 2, "subject",
        f"longer than {MAX_NAME_CHARS} characters (10,000,000): shorten it"),
    "a 10 MB csv field past the header's columns": (
        facts("k.csv", csv_text().rstrip("\n") + "," + MB10 + "\n"), "k.csv", 2, "-",
        "more fields than the header has columns"),
    "a 200 kB --accepted field": (
        accepted(f"accession,accepted_at\n{ACCN},{'1' * 200_000}\n"), "accepted.csv", 2,
        "accepted_at", "200,000 characters: not an ISO datetime"),
    "a jsonl line nested 100,000 deep": (
        facts("k.jsonl", DEEP + "\n"), "k.jsonl", 1, "-", "nested too deeply"),
    # point 7: stored, or refused without naming the file or the row, before
    "a 10 MB url": (
        facts("k.csv", csv_text(url=MB10)), "k.csv", 2, "url",
        f"longer than {MAX_URI_CHARS} characters"),
    "a 10 MB subject_name": (
        facts("k.jsonl", jsonl_text(subject_name=MB10)), "k.jsonl", 1, "subject_name",
        f"longer than {MAX_NAME_CHARS} characters"),
    "a 10 MB entityName": (
        companyfacts(companyfacts_doc(name=MB10)), "acme.json", 0, "entityName",
        f"longer than {MAX_NAME_CHARS} characters"),
    "a 10 MB companyfacts form": (
        companyfacts(companyfacts_doc({**CF_ROW, "form": MB10})), "acme.json", 1,
        f"{CF_WHERE}.form", "longer than 32 characters: not an SEC form"),
    "1_000 in csv": (
        facts("k.csv", csv_text(value="1_000")), "k.csv", 2, "value",
        "not a number (digits, a point, an exponent): '1_000'"),
    "1_000 in jsonl": (
        facts("k.jsonl", jsonl_text(value="1_000")), "k.jsonl", 1, "value", "not a number"),
    "a csv that is not UTF-8": (
        facts("k.csv", csv_text().encode() + b"ACME,kpi:V,8,USD,,2024-03-31,s1,2024-05-\xff\n"),
        "k.csv", 3, "-", "not UTF-8 (byte 41 of line 3 is b'\\xff'): save the file as UTF-8"),
    "a csv in UTF-16": (
        facts("k.csv", csv_text().encode("utf-16")), "k.csv", 1, "-",
        "UTF-16 text: save the file as UTF-8"),
    "a csv in UTF-16 without its mark": (
        facts("k.csv", csv_text().encode("utf-16-le")), "k.csv", 1, "-",
        "a NUL character: UTF-16 or binary data? save the file as UTF-8"),
    "a jsonl line that is not UTF-8": (
        facts("k.jsonl", jsonl_text().encode() + b'{"subject": "\xff"}\n'), "k.jsonl", 2,
        "-", "not UTF-8"),
    "companyfacts that is not UTF-8": (
        companyfacts(companyfacts_doc().replace("Acme", "Acmé").encode("latin-1")), "acme.json",
        1, "-", "not UTF-8"),
    "companyfacts in UTF-16": (
        companyfacts(companyfacts_doc().encode("utf-16")), "acme.json", 1, "-",
        "UTF-16 text: save the file as UTF-8"),
    "a concept over 512 characters": (
        companyfacts(companyfacts_doc(concept="R" * 600)), "acme.json", 1, "concept",
        f"longer than {MAX_NAME_CHARS} characters"),
    "a predicate over 512 characters": (
        facts("k.csv", csv_text(predicate="kpi:" + "R" * 600)), "k.csv", 2, "predicate",
        f"longer than {MAX_NAME_CHARS} characters"),
    "a jsonl period end given as a number": (
        facts("k.jsonl", jsonl_text(period_end=20240331)), "k.jsonl", 1, "period_end",
        "expected an ISO date as text (YYYY-MM-DD), got the number 20240331"),
    "a csv period end in digits only": (
        facts("k.csv", csv_text(period_end="20240331")), "k.csv", 2, "period_end",
        "not an ISO date (YYYY-MM-DD): '20240331'"),
    "a csv available_at in digits only": (
        facts("k.csv", csv_text(available_at="20240501")), "k.csv", 2, "available_at",
        "'20240501' is not an ISO 8601 date or datetime"),
    # a silent choice before: the last of two columns or keys of one name kept, a column the
    # table does not know dropped, a file named for another company given its ticker
    "a csv header naming a column twice": (
        facts("k.csv", csv_text(url="https://a").replace(",url", ",value")), "k.csv", 1,
        "value", "the header names this column twice"),
    "a csv column the table does not know (a misspelt optional one)": (
        facts("k.csv", csv_text(URL="https://a")), "k.csv", 2, "URL",
        "unknown column: the columns are subject, predicate"),
    "a jsonl field the table does not know": (
        facts("k.jsonl", jsonl_text(period_begin="2024-01-01")), "k.jsonl", 1, "period_begin",
        "unknown column"),
    "a jsonl object naming a field twice": (
        facts("k.jsonl", jsonl_text().replace('"value": "7"', '"value": "7", "value": "8"')),
        "k.jsonl", 1, "value", "the object names this field twice"),
    "a value under a column the header leaves unnamed": (
        facts("k.csv", csv_text().replace("\n", ",\n", 1).rstrip("\n") + ",oops\n"), "k.csv", 2,
        "", "a value under a column the header leaves unnamed"),
    "a companyfacts file named for another CIK": (
        companyfacts_named("CIK0000320193_AAPL.json"), "CIK0000320193_AAPL.json", 0, "cik",
        "CIK0000000001, but the file is named for CIK0000320193"),
    "an empty --ticker": (
        companyfacts_named("acme.json", "--ticker", " "), "acme.json", 0, "ticker",
        "empty: name the company's ticker, or leave it out"),
}


def holds_nothing(store_args: list[str]) -> bool:
    tenant = store_args[3]
    with closing(open_store(store_args[1])) as store:
        return (store.events(tenant) == [] and store.subjects(tenant) == []
                and store.read(AsOf(Scope(tenant=tenant), statuses=frozenset(Status))) == [])


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_one_line_naming_file_row_and_field_exit_2_and_nothing_written(
    case: str, store_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    make, file, row, field, words = CASES[case]
    command, path, more = make(tmp_path)
    code, out, err = run([*store_args, "ingest", command, str(path), *more], capsys,
                         monkeypatch, columns=100_000)
    assert (code, out) == (2, "")
    line = err.removesuffix("\n")  # one line: no blank line before it (a progress bar's)
    assert "\n" not in line and "Traceback" not in err and "internal error" not in err
    head = f"error: {tmp_path / file}: row {row}, field '"
    assert line.startswith(head)
    named = line[len(head):].split("': ", 1)[0]
    assert named == field or named.endswith(f".{field}")
    assert words in line
    assert line.endswith("; nothing from this file was written")
    assert holds_nothing(store_args)


def test_a_refused_file_after_an_ingested_one_says_what_the_earlier_files_wrote(
    store_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each file is its own write: "nothing from this file was written" left the user to
    guess that the file before it was."""
    good = write(tmp_path, "good.csv", csv_text())
    bad = write(tmp_path, "bad.csv", csv_text(value="twelve"))
    code, out, err = run([*store_args, "ingest", "facts", str(good), str(bad)], capsys,
                         monkeypatch, columns=100_000)
    assert (code, out) == (2, "") and err.count("\n") == 1, err
    assert err.rstrip().endswith("; nothing from this file was written; the files before it "
                                 "were ingested: good.csv (1 fact)")
    assert not holds_nothing(store_args)


def test_a_csv_header_ending_in_a_comma_is_read_past_its_empty_column(
    store_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Spreadsheets export a trailing comma: an unnamed, empty column is no unknown column.
    table = write(tmp_path, "k.csv", csv_text().replace("\n", ",\n"))
    code, _, err = run([*store_args, "ingest", "facts", str(table)], capsys, monkeypatch)
    assert code == 0, err


def test_a_csv_with_a_utf8_byte_order_mark_is_read_past_it(
    store_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = write(tmp_path, "k.csv", codecs.BOM_UTF8 + csv_text().encode())
    code, out, err = run([*store_args, "ingest", "facts", str(path), "--json"], capsys,
                         monkeypatch)
    assert code == 0, err
    (summary,) = json.loads(out)
    assert (summary["subjects"], summary["facts_created"]) == (["ACME"], 1)


def test_a_companyfacts_file_with_a_utf8_byte_order_mark_is_read_past_it(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "acme.json", codecs.BOM_UTF8 + companyfacts_doc().encode())
    assert [r.value for r in read_companyfacts(path).rows] == [5]


def test_companyfacts_nested_past_a_real_files_depth_is_refused_before_it_is_parsed(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "acme.json", '{"cik": 1, "facts": ' + "[" * 1_000 + "]" * 1_000
                 + "}")
    with pytest.raises(IngestError, match=r"row 1, field '-': nested more than 16 levels"):
        read_companyfacts(path)


NOW = datetime(2024, 1, 1, tzinfo=UTC)
# (model, field, the largest value it takes): one character more is refused
BOUNDED: list[tuple[type[BaseModel], dict[str, Any], str, str]] = [
    (Subject, {"id": "s"}, "name", "n" * MAX_NAME_CHARS),
    (SourceIn, {"id": "s", "kind": "filing", "available_at": NOW}, "uri", "u" * MAX_URI_CHARS),
    (SourceIn, {"id": "s", "kind": "filing", "available_at": NOW}, "form", "f" * MAX_NAME_CHARS),
    (SourceIn, {"id": "s", "kind": "filing", "available_at": NOW}, "title",
     "t" * MAX_NAME_CHARS),
    (SourceIn, {"id": "s", "kind": "filing", "available_at": NOW}, "version",
     "v" * MAX_NAME_CHARS),
    (SourceIn, {"id": "s", "kind": "filing", "available_at": NOW}, "accession",
     "a" * MAX_NAME_CHARS),
    (FactIn, {"subject": "s", "predicate": "p", "value": 1, "valid_from": NOW, "source": "s"},
     "unit", "U" * MAX_NAME_CHARS),
    (FactIn, {"subject": "s", "predicate": "p", "value": 1, "valid_from": NOW, "source": "s"},
     "owner", "o" * MAX_NAME_CHARS),
    (FactIn, {"subject": "s", "predicate": "p", "value": 1, "valid_from": NOW, "source": "s"},
     "retention_reason", "r" * MAX_TEXT_BYTES),
    (DerivationIn, {"id": "d", "recipe": "r", "version": "1"}, "formula", "x" * MAX_TEXT_BYTES),
]


@pytest.mark.parametrize(("model", "rest", "field", "longest"), BOUNDED,
                         ids=[f"{m.__name__}.{f}" for m, _, f, _ in BOUNDED])
def test_every_free_text_field_is_bounded(
    model: type[BaseModel], rest: dict[str, Any], field: str, longest: str,
) -> None:
    assert getattr(model(**rest, **{field: longest}), field) == longest
    with pytest.raises(ValidationError, match=field):
        model(**rest, **{field: longest + longest[0]})
