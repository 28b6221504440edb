"""No look-ahead (docs/contract.md, "No look-ahead"): an answer as of a cutoff carries nothing
that became known after it, not a value, a date, an accession, a count or a warning. What
happened afterwards is hindsight: shown only when asked for, in a field of its own, and never
in an agent's context."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from tests.factories import ACTOR, PinnedClock, batch, fact, memory, mine, run, source
from tests.sec_files import GOOGL_RECAST, data_file
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import parse_instant
from vintage.graph.memory.remember import remember
from vintage.graph.store.backends import open_store
from vintage.graph.store.protocol import Store
from vintage.graph.writes.semantics import record
from vintage.ingest.sec.companyfacts import ingest_companyfacts
from vintage.queries.lineage.asof import facts_as_of
from vintage.queries.lineage.explain import explain
from vintage.queries.memory.recall import recall
from vintage.queries.metrics.definitions import resolve_metric
from vintage.queries.search.context import build_context

FIRST, RESTATED = source("10-Q", "2018-04-24"), source("10-K/A", "2019-04-30")


def _googl_q1_2018(store_args: list[str], capsys: pytest.CaptureFixture[str],
                   monkeypatch: pytest.MonkeyPatch, *extra: str) -> tuple[str, dict[str, object]]:
    code, out, err = run([*store_args, "asof", "operating_income", "--subject", "GOOGL",
                          "--period", "FY2018Q1", "--cutoff", "2018-06-30", "--json", *extra],
                         capsys, monkeypatch)
    assert code == 0, err
    (answer,) = json.loads(out)["answers"]
    return out, answer


def test_an_asof_answer_holds_nothing_from_after_its_cutoff_and_hindsight_only_when_asked(
    store_args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The bundled GOOGL file as `vintage ingest companyfacts` writes it, the metric's concepts
    # only (the whole file takes half a minute on Neo4j).
    written = open_store(store_args[1])
    try:
        ingest_companyfacts(written, Scope(tenant=store_args[3]), data_file("GOOGL"),
                            actor=ACTOR, concepts=resolve_metric("operating_income")
                            .predicates_for("GOOGL"))
    finally:
        written.close()
    out, answer = _googl_q1_2018(store_args, capsys, monkeypatch)
    assert answer["value"] == 7_001_000_000
    for later in ("2019", "7633000000", GOOGL_RECAST, "-19-"):  # a date, the value, accessions
        assert later not in out
    assert answer["warnings"] == [] and answer["hindsight"] is None
    out, answer = _googl_q1_2018(store_args, capsys, monkeypatch, "--hindsight")
    assert answer["value"] == 7_001_000_000 and answer["warnings"] == []
    hindsight = answer["hindsight"]
    assert isinstance(hindsight, list)
    (revision,) = hindsight
    assert revision.startswith("a later reclassification exists: ")  # the change's own class
    assert "2019-04-30" in revision and "7633000000" in revision and GOOGL_RECAST in revision


def test_facts_as_of_a_cutoff_show_a_later_knowledge_end_as_open_unless_hindsight_is_asked(
    store: Store, scope: Scope,
) -> None:
    record(store, scope, batch(fact(7001, FIRST.id), sources=(FIRST,)), actor=ACTOR)
    record(store, scope, batch(fact(7633, RESTATED.id), sources=(RESTATED,)), actor=ACTOR)
    cutoff = parse_instant("2018-06-30")
    (then,) = facts_as_of(store, scope, known_at=cutoff)
    assert (then.fact.value, then.fact.superseded_at) == (7001, None)
    assert then.fact.superseded_recorded_at is None
    (seen,) = facts_as_of(store, scope, known_at=cutoff, hindsight=True)
    assert seen.fact.superseded_at == RESTATED.available_at


KNOWN_TWICE = """\
subject,predicate,value,unit,period_start,period_end,source_id,available_at,form
ACME,us-gaap:OperatingIncomeLoss,7001,USD,2018-01-01,2018-03-31,q1,2018-04-24,10-Q
ACME,us-gaap:OperatingIncomeLoss,7633,USD,2018-01-01,2018-03-31,q1-recast,2019-04-30,10-Q
"""


def test_vintage_facts_as_of_a_cutoff_shows_until_as_open_and_the_end_with_hindsight(
    store_args: list[str], tmp_path: Path,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = tmp_path / "acme.csv"
    table.write_text(KNOWN_TWICE)
    code, _, err = run([*store_args, "ingest", "facts", str(table)], capsys, monkeypatch)
    assert code == 0, err
    ask = [*store_args, "facts", "us-gaap:OperatingIncomeLoss", "--subject", "ACME",
           "--cutoff", "2018-06-30"]
    code, out, err = run([*ask, "--json"], capsys, monkeypatch)
    assert code == 0, err
    (shown,) = json.loads(out)
    assert shown["knowledge"] == ["2018-04-24T00:00:00+00:00", None]
    assert "2019" not in out
    code, out, _ = run(ask, capsys, monkeypatch)
    assert "2019" not in out and "open" in out
    code, out, _ = run([*ask, "--json", "--hindsight"], capsys, monkeypatch)
    (shown,) = json.loads(out)
    assert shown["knowledge"] == ["2018-04-24T00:00:00+00:00", "2019-04-30T00:00:00+00:00"]


def test_a_memory_recalled_as_of_an_instant_shows_no_later_correction_unless_asked(
    store: Store, scope: Scope,
) -> None:
    remember(store, memory(scope), actor=ACTOR)  # observed 2026-05-01
    remember(store, memory(scope, value="ship to my home", source_id="msg-2",
                           observed_at="2026-05-15T09:00:00Z"), actor=ACTOR)
    at = parse_instant("2026-05-10")
    (then,) = recall(store, mine(scope), "user:42", "shipping.preference", at=at)
    assert (then.value, then.known_until) == ("ship to the office", None)
    (seen,) = recall(store, mine(scope), "user:42", "shipping.preference", at=at,
                     hindsight=True)
    assert seen.known_until == parse_instant("2026-05-15T09:00:00Z")


def test_a_context_for_an_agent_never_carries_hindsight(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    # A correction observed a second from now is not known yet: the context built now holds
    # the current memory with its knowledge end open, never the correction's time.
    remember(store, memory(scope), actor=ACTOR)
    soon = clock.now + timedelta(seconds=1)
    remember(store, memory(scope, value="ship to my home", source_id="msg-2",
                           observed_at=soon.isoformat()), actor=ACTOR)
    built = build_context(store, mine(scope), "user:42", thread="t-1", actor=ACTOR)
    (only,) = built.memories
    assert (only.value, only.known_until) == ("ship to the office", None)


def test_explain_as_the_engine_held_it_before_a_correction_shows_no_later_end_or_source(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    record(store, scope, batch(fact(7001, FIRST.id), sources=(FIRST,)), actor=ACTOR)
    before = clock.advance(minutes=1)
    clock.advance(minutes=1)
    record(store, scope, batch(fact(7001, RESTATED.id), fact(7633, RESTATED.id,
                                                             period=("2018-04-01", "2018-07-01")),
                               sources=(RESTATED,)), actor=ACTOR)  # a repeat: more support
    record(store, scope, batch(fact(7700, "10-K", period=("2018-01-01", "2018-04-01")),
                               sources=(source("10-K", "2020-02-04"),)), actor=ACTOR)
    (first,) = facts_as_of(store, scope, known_at=parse_instant("2018-06-30"))
    then = explain(store, scope, first.fact.id, system_at=before).root
    assert then.fact.knowledge == (FIRST.available_at, None)
    assert [s.id for s in then.sources] == [FIRST.id] and then.superseded_by == ()
    now = explain(store, scope, first.fact.id).root
    assert now.fact.knowledge == (FIRST.available_at, parse_instant("2020-02-04"))
    assert [s.id for s in now.sources] == [FIRST.id, RESTATED.id] and now.superseded_by != ()
