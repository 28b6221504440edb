"""Naming the subject of a question (issue 11, points 3 and 4): a company by its id, its CIK in
any common form or its ticker; an unknown name is an error with the closest known ones, never
"nothing public"; and a refusal names the concepts actually tried for that subject."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.factories import ACTOR, batch, fact, run, source
from tests.sec_files import data_file
from vintage.graph.core.model import Scope, Subject
from vintage.graph.core.temporal import parse_instant
from vintage.graph.store.backends import open_store
from vintage.graph.store.protocol import Store
from vintage.graph.writes.semantics import Batch, record
from vintage.ingest.sec.companyfacts import ingest_companyfacts
from vintage.queries.lineage.subjects import UnknownSubject, resolve_in, resolve_subjects
from vintage.queries.metrics.definitions import resolve_metric
from vintage.queries.metrics.metric_files import load_metrics
from vintage.queries.metrics.periods import parse_period
from vintage.queries.metrics.question import ask

APPLE = Subject(id="AAPL", kind="company", name="Apple Inc.",
                identifiers=("cik:0000320193", "ticker:AAPL"))
NO_TICKER = Subject(id="CIK0001997711", kind="company", identifiers=("cik:0001997711",))


def _googl(store_args: list[str]) -> None:
    """Alphabet's revenue as `vintage ingest companyfacts` writes it (subject GOOGL, with its
    CIK and ticker as identifiers), through the store the command line opens."""
    written = open_store(store_args[1])
    try:
        ingest_companyfacts(written, Scope(tenant=store_args[3]), data_file("GOOGL"),
                            actor=ACTOR, concepts=resolve_metric("revenue").predicates_for("x"))
    finally:
        written.close()


def _asof(store_args: list[str], subject: str, cutoff: str, capsys: pytest.CaptureFixture[str],
          monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    return run([*store_args, "asof", "revenue", "--subject", subject, "--cutoff", cutoff,
                "--period", "FY2018", "--json"], capsys, monkeypatch)


def test_a_company_is_found_by_its_id_its_cik_in_any_form_and_its_ticker(
    store_args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    _googl(store_args)
    for name in ("GOOGL", "googl", "1652044", "0001652044", "CIK0001652044", "cik0001652044"):
        code, out, err = _asof(store_args, name, "2019-03-01", capsys, monkeypatch)
        assert code == 0, (name, err)
        (answer,) = json.loads(out)["answers"]
        assert (answer["subject"], answer["value"]) == ("GOOGL", 136_819_000_000), name
    code, out, err = run([*store_args, "facts", "us-gaap:Revenues", "--subject", "1652044",
                          "--cutoff", "2016-06-30", "--json"], capsys, monkeypatch)
    assert code == 0, err
    assert {f["subject"] for f in json.loads(out)} == {"GOOGL"}


def test_an_unknown_subject_is_an_error_naming_it_and_the_closest_known_ones(
    store_args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    _googl(store_args)
    code, out, err = _asof(store_args, "GOOG", "2019-03-01", capsys, monkeypatch)
    assert (code, out) == (2, "")
    assert "unknown subject 'GOOG'" in err and "closest: GOOGL" in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = run([*store_args, "facts", "us-gaap:Revenues", "--subject", "FOO"],
                       capsys, monkeypatch)
    assert code == 2 and "unknown subject 'FOO'" in err


def test_a_known_company_with_nothing_public_yet_is_still_refused_with_exit_0(
    store_args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    _googl(store_args)
    code, out, err = _asof(store_args, "GOOGL", "2005-01-01", capsys, monkeypatch)
    assert code == 0, err
    (answer,) = json.loads(out)["answers"]
    assert answer["value"] is None and "nothing public by 2005-01-01" in answer["refused"]


def test_the_store_finds_subjects_by_id_or_identifier_within_the_tenant_only(
    store: Store, scope: Scope,
) -> None:
    filing = source("f1", "2024-01-01")
    record(store, scope, Batch(subjects=[APPLE, NO_TICKER], sources=[filing], facts=[
        fact(1, "f1", subject="AAPL"), fact(2, "f1", subject=NO_TICKER.id)]), actor=ACTOR)
    assert store.subjects(scope.tenant, ["cik:0000320193"]) == [APPLE]
    assert store.subjects(scope.tenant, ["AAPL", "ticker:NONE"]) == [APPLE]
    assert store.subjects(scope.tenant, ["cik:0001997711", "ticker:AAPL"]) == [APPLE, NO_TICKER]
    assert store.subjects(scope.tenant, ["nobody"]) == []
    assert store.subjects(scope.tenant) == [APPLE, NO_TICKER]
    assert store.subjects("another-tenant") == []
    assert resolve_subjects(store, scope.tenant, ["320193", "aapl", "1997711"]) == [
        "AAPL", "AAPL", "CIK0001997711"]
    with pytest.raises(UnknownSubject, match="closest: AAPL"):
        resolve_subjects(store, scope.tenant, ["AAPX"])
    # The same inside a transaction, as a question resolves its names in the read answering it.
    assert store.reading(scope.tenant, lambda tx: (
        tx.subjects(["cik:0001997711", "ticker:AAPL"]), tx.subjects(),
        resolve_in(tx, ["320193", "1997711"]))) == (
        [APPLE, NO_TICKER], [APPLE, NO_TICKER], ["AAPL", "CIK0001997711"])
    assert store.reading("another-tenant", lambda tx: tx.subjects()) == []
    with pytest.raises(UnknownSubject, match="closest: AAPL"):
        store.reading(scope.tenant, lambda tx: resolve_in(tx, ["AAPX"]))


def test_two_names_of_one_company_in_one_question_are_refused(
    store: Store, scope: Scope,
) -> None:
    filing = source("f1", "2024-01-01")
    record(store, scope, Batch(subjects=[APPLE], sources=[filing],
                               facts=[fact(1, "f1", subject="AAPL")]), actor=ACTOR)
    with pytest.raises(ValueError, match="same subject"):
        ask(store, scope, resolve_metric("revenue"), ["AAPL", "320193"],
            parse_instant("2025-01-01"), parse_period("LTM"))


METRICS = """metrics:
  take_rate:
    formula: 100 * revenue / volume
    unit: percent
    inputs:
      revenue: [us-gaap:Revenues]
      volume: [kpi:PaymentVolume]
    subjects:
      PAY: {volume: [kpi:TPV]}
"""


def test_a_refusal_names_the_concept_mapped_for_that_subject_not_the_default(
    store: Store, scope: Scope, tmp_path: Path,
) -> None:
    (tmp_path / "metrics.yaml").write_text(METRICS)
    take_rate = load_metrics(tmp_path / "metrics.yaml")["take_rate"]
    release = source("er-q4", "2025-02-05", kind="earnings_release")
    revenue = [("2024-01-01", "2024-04-01", 100), ("2024-04-01", "2024-07-01", 110),
               ("2024-07-01", "2024-10-01", 120), ("2024-10-01", "2025-01-01", 130),
               ("2024-01-01", "2025-01-01", 460)]  # the quarters and the year; no volume
    record(store, scope, batch(*(
        fact(v, release.id, subject="PAY", predicate="us-gaap:Revenues", period=(a, b))
        for a, b, v in revenue), sources=(release,), subjects=("PAY",)), actor=ACTOR)
    (answer,) = ask(store, scope, take_rate, ["PAY"], parse_instant("2025-03-01"),
                    parse_period("FY2024")).answers
    assert answer.refused is not None
    assert "kpi:TPV" in answer.refused and "kpi:PaymentVolume" not in answer.refused
