"""``vintage ingest companyfacts`` on real SEC files: stored as versions with their change class,
replayed idempotently, refused whole when malformed.

The store tests (embedded and Neo4j) ingest only the concepts they look at, so that the Neo4j
side stays small. The classification itself is tested in ``tests/test_revisions.py``.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.factories import run as cli_run
from tests.sec_files import (
    GOOGL_FIRST,
    GOOGL_NET_INCOME,
    GOOGL_OPERATING_INCOME,
    GOOGL_RECAST,
    NVDA_EPS,
    NVDA_FY2024,
    Q1_2018,
    TSLA_COGS,
    TSLA_FY2014,
    classified,
    data_file,
    period,
)
from vintage.graph.core.kinds import Change
from vintage.graph.core.model import Event, Scope
from vintage.graph.core.temporal import day_start, from_to
from vintage.graph.sqlite.store import SqliteStore
from vintage.graph.store.protocol import Store
from vintage.ingest.batches import Summary
from vintage.ingest.facts_table import IngestError
from vintage.ingest.sec.companyfacts import (
    ParsedFile,
    ingest_companyfacts,
    read_acceptance_times,
    read_companyfacts,
)
from vintage.queries.lineage.asof import Answer, facts_as_of, history

ACTOR = "test ingest companyfacts"




# --- store: both backends, concept-limited ingests ---


def load(store: Store, scope: Scope, ticker: str, *concepts: str, **options: Any) -> Summary:
    return ingest_companyfacts(store, scope, data_file(ticker), actor=ACTOR,
                               concepts=set(concepts), **options)


def versions(store: Store, scope: Scope, subject: str, predicate: str, span: tuple[date, date],
             unit: str) -> list[Answer]:
    return history(store, scope, subject, predicate, *period(*span), unit)


def test_superseding_versions_carry_the_change_class_of_their_revision(
    store: Store, scope: Scope,
) -> None:
    load(store, scope, "GOOGL", GOOGL_OPERATING_INCOME)
    load(store, scope, "NVDA", NVDA_EPS)
    google = versions(store, scope, "GOOGL", GOOGL_OPERATING_INCOME, Q1_2018, "USD")
    assert [(a.fact.revision, a.fact.change) for a in google] == [
        (1, None), (2, Change.RECLASSIFICATION)]
    nvidia = versions(store, scope, "NVDA", NVDA_EPS, NVDA_FY2024, "USD/shares")
    assert [(a.fact.value, a.fact.change) for a in nvidia] == [
        (11.93, None), (1.19, Change.SPLIT_ADJUSTMENT)]
    assert [s.id for s in nvidia[1].sources] == ["0001045810-25-000023", "0001045810-26-000021"]


def test_history_of_alphabets_q1_2018_operating_income_is_7001m_then_7633m(
    store: Store, scope: Scope,
) -> None:
    load(store, scope, "GOOGL", GOOGL_OPERATING_INCOME, GOOGL_NET_INCOME)
    google = versions(store, scope, "GOOGL", GOOGL_OPERATING_INCOME, Q1_2018, "USD")
    assert [a.fact.value for a in google] == [7_001_000_000, 7_633_000_000]
    assert [a.fact.available_at for a in google] == [day_start(date(2018, 4, 24)),
                                                     day_start(date(2019, 4, 30))]
    assert google[0].fact.superseded_at == day_start(date(2019, 4, 30))
    assert google[1].fact.superseded_at is None
    assert google[0].sources[0].id == GOOGL_FIRST
    assert google[1].sources[0].id == GOOGL_RECAST
    net = versions(store, scope, "GOOGL", GOOGL_NET_INCOME, Q1_2018, "USD")
    assert [(a.fact.value, a.fact.revision) for a in net] == [(9_401_000_000, 1)]
    assert len(net[0].sources) > 1  # repeated as a comparative: more support, no new version
    assert versions(store, scope, "GOOGL", GOOGL_OPERATING_INCOME, Q1_2018, "USD/shares") == []


def test_only_the_concepts_asked_for_are_stored_and_revisions_match_the_pure_classes(
    store: Store, scope: Scope, parsed: dict[str, ParsedFile],
) -> None:
    summary = load(store, scope, "GOOGL", GOOGL_OPERATING_INCOME, GOOGL_NET_INCOME)
    rows = [r for r in parsed["GOOGL"].rows
            if r.predicate in (GOOGL_OPERATING_INCOME, GOOGL_NET_INCOME)]
    expected = Counter(change.value for rev, change in classified(parsed["GOOGL"]).items()
                       if rev.row.predicate in (GOOGL_OPERATING_INCOME, GOOGL_NET_INCOME))
    assert summary.rows == len(rows)
    assert summary.created + summary.repeated == len(rows)
    assert summary.revisions == expected
    assert len(summary.superseded) == sum(expected.values()) > 0
    assert summary.sources == len({r.accn for r in rows})
    assert summary.subjects == ["GOOGL"]
    stored = facts_as_of(store, scope, subjects=["GOOGL"])
    assert {a.fact.predicate for a in stored} == {GOOGL_OPERATING_INCOME, GOOGL_NET_INCOME}


def test_running_the_same_ingest_again_writes_nothing(store: Store, scope: Scope) -> None:
    first = load(store, scope, "GOOGL", GOOGL_OPERATING_INCOME)
    events = store.events(scope.tenant)
    facts = facts_as_of(store, scope, subjects=["GOOGL"])
    assert first.created > 0
    assert len(first.events) == 1
    assert [e.id for e in events] == first.events
    again = load(store, scope, "GOOGL", GOOGL_OPERATING_INCOME)
    assert again.created == 0
    assert again.superseded == []
    assert again.events == []
    assert store.events(scope.tenant) == events
    assert facts_as_of(store, scope, subjects=["GOOGL"]) == facts


def test_teslas_fy2014_cost_of_goods_sold_as_known_at_each_cutoff_is_that_windows_value(
    store: Store, scope: Scope,
) -> None:
    load(store, scope, "TSLA", TSLA_COGS)
    valid_from, valid_to = period(*TSLA_FY2014)

    def known(at: datetime) -> list[int | float | bool | str]:
        return [a.fact.value for a in facts_as_of(store, scope, subjects=["TSLA"],
                                                  predicates=[TSLA_COGS], known_at=at)
                if (a.fact.valid_from, a.fact.valid_to) == (valid_from, valid_to)]

    assert known(day_start(date(2015, 2, 25))) == []
    assert known(day_start(date(2015, 2, 26))) == [2_310_011_000]
    assert known(day_start(date(2015, 9, 30))) == [2_310_011_000]
    assert known(day_start(date(2016, 2, 24)) - timedelta(microseconds=1)) == [2_310_011_000]
    assert known(day_start(date(2016, 2, 24))) == [2_145_749_000]
    assert known(day_start(date(2016, 9, 30))) == [2_145_749_000]
    assert known(day_start(date(2017, 3, 1))) == [2_058_344_000]
    assert known(day_start(date(2020, 1, 1))) == [2_058_344_000]


def test_a_dry_run_reports_what_a_real_run_would_do_and_changes_nothing(
    store: Store, scope: Scope,
) -> None:
    recast = day_start(date(2019, 1, 1))
    load(store, scope, "GOOGL", GOOGL_OPERATING_INCOME, available=from_to(None, recast))
    events = store.events(scope.tenant)
    before = facts_as_of(store, scope, subjects=["GOOGL"])
    dry = load(store, scope, "GOOGL", GOOGL_OPERATING_INCOME, dry_run=True)
    assert dry.dry_run
    assert dry.events == []
    assert dry.revisions[Change.RECLASSIFICATION.value] >= 1
    assert len(dry.superseded) == sum(dry.revisions.values()) > 0
    assert store.events(scope.tenant) == events
    assert facts_as_of(store, scope, subjects=["GOOGL"]) == before
    google = versions(store, scope, "GOOGL", GOOGL_OPERATING_INCOME, Q1_2018, "USD")
    assert [a.fact.value for a in google] == [7_001_000_000]
    real = load(store, scope, "GOOGL", GOOGL_OPERATING_INCOME)
    assert (real.created, real.repeated, real.revisions) == (dry.created, dry.repeated,
                                                             dry.revisions)
    assert len(real.superseded) == len(dry.superseded)
    assert len(store.events(scope.tenant)) == len(events) + 1


def test_a_dry_run_into_an_empty_tenant_leaves_it_empty(store: Store, scope: Scope) -> None:
    dry = load(store, scope, "TSLA", TSLA_COGS, dry_run=True)
    assert dry.created > 0
    assert len(dry.superseded) > 0
    assert store.events(scope.tenant) == []
    assert facts_as_of(store, scope, subjects=["TSLA"]) == []


def test_available_replays_only_the_filings_public_in_the_window(
    store: Store, scope: Scope,
) -> None:
    recast = day_start(date(2019, 1, 1))
    early = load(store, scope, "GOOGL", GOOGL_OPERATING_INCOME,
                   available=from_to(None, recast))
    now = facts_as_of(store, scope, subjects=["GOOGL"])
    assert now
    assert all(a.fact.available_at < recast for a in now)
    assert all(s.available_at < recast for a in now for s in a.sources)
    google = versions(store, scope, "GOOGL", GOOGL_OPERATING_INCOME, Q1_2018, "USD")
    assert [a.fact.value for a in google] == [7_001_000_000]
    late = load(store, scope, "GOOGL", GOOGL_OPERATING_INCOME,
                  available=from_to(recast, None))
    assert late.revisions[Change.RECLASSIFICATION.value] >= 1
    google = versions(store, scope, "GOOGL", GOOGL_OPERATING_INCOME, Q1_2018, "USD")
    assert [(a.fact.value, a.fact.change) for a in google] == [
        (7_001_000_000, None), (7_633_000_000, Change.RECLASSIFICATION)]
    whole = load(store, scope, "GOOGL", GOOGL_OPERATING_INCOME)
    assert early.rows + late.rows == whole.rows
    assert (whole.created, whole.events) == (0, [])


def test_an_acceptance_time_makes_a_filing_public_at_that_instant_not_at_midnight(
    store: Store, scope: Scope,
) -> None:
    accepted = datetime(2018, 4, 23, 20, 5, tzinfo=UTC)  # 16:05 ET, the evening before "filed"
    load(store, scope, "GOOGL", GOOGL_OPERATING_INCOME, accepted={GOOGL_FIRST: accepted},
         available=from_to(None, day_start(date(2019, 1, 1))))
    (q1,) = versions(store, scope, "GOOGL", GOOGL_OPERATING_INCOME, Q1_2018, "USD")
    assert q1.fact.available_at == accepted
    assert [s.available_at for s in q1.sources] == [accepted]
    just_before = facts_as_of(store, scope, subjects=["GOOGL"],
                              predicates=[GOOGL_OPERATING_INCOME],
                              known_at=accepted - timedelta(seconds=1))
    assert [a for a in just_before if a.fact.id == q1.fact.id] == []


def test_an_acceptance_time_days_away_from_the_filed_date_is_refused(
    store: Store, scope: Scope,
) -> None:
    with pytest.raises(IngestError, match="not on or the day before its filed date"):
        load(store, scope, "GOOGL", GOOGL_OPERATING_INCOME,
             accepted={GOOGL_FIRST: datetime(2018, 5, 1, tzinfo=UTC)})
    assert store.events(scope.tenant) == []


# --- malformed input: nothing of the file is written ---

GOOD_ROW: dict[str, Any] = {"start": "2020-01-01", "end": "2020-03-31", "val": 5,
                            "accn": "0000000001-20-000001", "form": "10-Q",
                            "filed": "2020-04-30"}
NEXT_ROW: dict[str, Any] = {**GOOD_ROW, "start": "2020-04-01", "end": "2020-06-30", "val": 6,
                            "accn": "0000000001-20-000002", "filed": "2020-07-30"}


def companyfacts(units: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    return {"cik": 1, "entityName": "X", "facts": {"us-gaap": {"Revenues": {"units": units}}}}


def without(row_: dict[str, Any], field: str) -> dict[str, Any]:
    return {k: v for k, v in row_.items() if k != field}


MALFORMED: dict[str, tuple[dict[str, Any], str, str]] = {
    # name: (document, field named, words of the message)
    "missing accn": (companyfacts({"USD": [GOOD_ROW, without(NEXT_ROW, "accn")]}),
                     "facts.us-gaap.Revenues.units[USD][1].accn", "missing"),
    "unknown unit": (companyfacts({"USD": [GOOD_ROW], "US D": [NEXT_ROW]}),
                     "facts.us-gaap.Revenues.units[US D][0].unit", "unknown unit 'US D'"),
    "period ends before it starts": (
        companyfacts({"USD": [GOOD_ROW, {**NEXT_ROW, "start": "2020-07-01"}]}),
        "facts.us-gaap.Revenues.units[USD][1].end", "before it starts"),
    "non-numeric val": (companyfacts({"USD": [GOOD_ROW, {**NEXT_ROW, "val": "6,000"}]}),
                        "facts.us-gaap.Revenues.units[USD][1].val", "not a number"),
    "bad accession number": (
        companyfacts({"USD": [GOOD_ROW, {**NEXT_ROW, "accn": "0000000001-20"}]}),
        "facts.us-gaap.Revenues.units[USD][1].accn", "not an accession number"),
    "bad filed date": (companyfacts({"USD": [GOOD_ROW, {**NEXT_ROW, "filed": "30/07/2020"}]}),
                       "facts.us-gaap.Revenues.units[USD][1].filed", "not an ISO date"),
}


def assert_nothing_stored(store: Store, scope: Scope) -> None:
    assert store.events(scope.tenant) == []
    assert facts_as_of(store, scope) == []
    assert facts_as_of(store, scope, subjects=["CIK0000000001"]) == []


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_row_names_file_row_and_field_and_nothing_of_the_file_is_written(
    store: Store, scope: Scope, tmp_path: Path, case: str,
) -> None:
    document, field, words = MALFORMED[case]
    path = tmp_path / "malformed.json"
    path.write_text(json.dumps(document))
    with pytest.raises(IngestError) as raised:
        ingest_companyfacts(store, scope, path, actor=ACTOR)
    assert raised.value.path == path
    ((number, named, message),) = raised.value.problems
    assert (number, named) == (2, field)
    assert words in message
    assert str(path) in str(raised.value)
    assert f"row 2, field {field!r}" in str(raised.value)
    assert_nothing_stored(store, scope)


def test_the_good_rows_of_those_files_are_accepted(tmp_path: Path) -> None:
    """The counterpart of the malformed cases: without the bad row each file reads fine."""
    path = tmp_path / "good.json"
    path.write_text(json.dumps(companyfacts({"USD": [GOOD_ROW, NEXT_ROW]})))
    parsed_file = read_companyfacts(path)
    assert [r.value for r in parsed_file.rows] == [5, 6]
    assert parsed_file.filer.subject_id == "CIK0000000001"


def test_a_truncated_json_file_is_bad_json_at_the_row_it_stops_in(
    store: Store, scope: Scope, tmp_path: Path,
) -> None:
    text = json.dumps(companyfacts({"USD": [GOOD_ROW, NEXT_ROW]}))
    path = tmp_path / "CIK0000000001_X.json"
    path.write_text(text[:text.index('"2020-06-30"')])
    with pytest.raises(IngestError) as raised:
        ingest_companyfacts(store, scope, path, actor=ACTOR)
    ((number, field, message),) = raised.value.problems
    assert number == 2
    assert field == "-"
    assert message.startswith("bad JSON")
    assert str(path) in str(raised.value)
    assert_nothing_stored(store, scope)


def test_a_truncated_gzip_file_is_bad_json_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "CIK0000000001_X.json.gz"
    path.write_bytes(gzip.compress(json.dumps(companyfacts({"USD": [GOOD_ROW]})).encode())[:-30])
    with pytest.raises(IngestError) as raised:
        read_companyfacts(path)
    assert raised.value.problems[0][2].startswith("bad JSON")


def test_one_accession_with_two_filed_dates_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "twice.json"
    path.write_text(json.dumps(companyfacts({"USD": [
        GOOD_ROW, {**NEXT_ROW, "accn": GOOD_ROW["accn"]}]})))
    with pytest.raises(IngestError) as raised:
        read_companyfacts(path)
    assert raised.value.problems[0][:2] == (2, "accn")


# --- the command line (embedded store) ---


Run = Callable[[list[str]], tuple[int, str, str]]


@pytest.fixture
def vintage(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Run:
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.delenv("VINTAGE_TENANT", raising=False)
    monkeypatch.delenv("VINTAGE_STORE", raising=False)
    return lambda args: cli_run(args, capsys, monkeypatch)


def stored(directory: Path, tenant: str) -> tuple[list[Event], list[Answer]]:
    """Events and current facts of a tenant of the embedded store the command line wrote."""
    store = SqliteStore.open(directory, lambda: datetime.now(UTC))
    try:
        scope = Scope(tenant=tenant)
        return store.events(tenant), facts_as_of(store, scope)
    finally:
        store.close()


def test_cli_ingest_companyfacts_dry_runs_then_stores_then_stores_nothing_more(
    vintage: Run, tmp_path: Path, parsed: dict[str, ParsedFile],
) -> None:
    """One store, one small real file (LPA, 768 rows): --dry-run, then --json, then plain."""
    directory = tmp_path / "store"
    args = ["--store", str(directory), "--tenant", "acme", "ingest", "companyfacts",
            str(data_file("LPA"))]
    expected = Counter(c.value for c in classified(parsed["LPA"]).values())

    code, out, _ = vintage([*args, "--dry-run", "--json"])
    assert code == 0
    (dry,) = json.loads(out)
    assert dry["dry_run"] is True
    assert dry["events"] == []
    assert stored(directory, "acme") == ([], [])

    code, out, _ = vintage([*args, "--json"])
    assert code == 0
    (summary,) = json.loads(out)
    assert summary["file"] == data_file("LPA").name
    assert summary["dry_run"] is False
    assert summary["subjects"] == ["LPA"]
    assert summary["sources"] == len({r.accn for r in parsed["LPA"].rows}) == 3
    assert summary["rows"] == len(parsed["LPA"].rows) == 768
    assert summary["facts_created"] + summary["support_repeats"] == 768
    assert summary["facts_created"] > 0
    assert summary["revisions"] == dict(expected)
    assert summary["superseded"] == sum(expected.values()) > 0
    assert summary["cascade"] == []
    assert len(summary["events"]) == 1
    assert {k: v for k, v in dry.items() if k not in ("dry_run", "events")} == {
        k: v for k, v in summary.items() if k not in ("dry_run", "events")}
    events, facts = stored(directory, "acme")
    assert [e.id for e in events] == summary["events"]
    assert {a.fact.subject for a in facts} == {"LPA"}
    assert {a.fact.predicate for a in facts} == {r.predicate for r in parsed["LPA"].rows}
    assert stored(directory, "other") == ([], [])

    code, out, _ = vintage(args)
    assert code == 0
    assert "ingested: subject LPA; 3 sources; 768 rows -> 0 new fact versions" in " ".join(
        out.split())
    assert stored(directory, "acme") == (events, facts)


def test_cli_ingest_companyfacts_without_a_tenant_is_an_error(
    vintage: Run, tmp_path: Path,
) -> None:
    code, out, err = vintage(["--store", str(tmp_path / "store"), "ingest", "companyfacts",
                              str(data_file("LPA")), "--json"])
    assert code == 2
    assert "--tenant" in err
    assert out == ""


def test_cli_malformed_file_is_an_error_naming_row_and_field_and_writes_nothing(
    vintage: Run, tmp_path: Path,
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(companyfacts({"USD": [GOOD_ROW, without(NEXT_ROW, "accn")]})))
    code, out, err = vintage(["--store", str(tmp_path / "store"), "--tenant", "acme", "ingest",
                              "companyfacts", str(bad), "--json"])
    assert code == 2
    assert out == ""
    flat = " ".join(err.split())
    assert "bad.json" in flat
    assert "row 2" in flat
    assert "accn" in flat
    assert stored(tmp_path / "store", "acme") == ([], [])


def test_acceptance_times_come_from_a_csv_and_a_bad_time_names_its_row(tmp_path: Path) -> None:
    good = tmp_path / "accepted.csv"
    good.write_text("accession,accepted_at\n0001652044-18-000016,2018-04-23T20:05:00Z\n")
    assert read_acceptance_times(good) == {
        GOOGL_FIRST: datetime(2018, 4, 23, 20, 5, tzinfo=UTC)}
    bad = tmp_path / "bad.csv"
    bad.write_text("accession,accepted_at\n0001652044-18-000016,yesterday\n")
    with pytest.raises(IngestError, match="row 2, field 'accepted_at'"):
        read_acceptance_times(bad)
