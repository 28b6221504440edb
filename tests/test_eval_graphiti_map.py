"""Graphiti as a peer of `vintage eval`, without a server: what a replay becomes in Graphiti,
the filters a question is put with, the groups an asker reads, the checks Graphiti cannot
express, and the command's one-line refusals (docs/eval.md, "Graphiti beside the ladder").

The replays run on the embedded store (the engine's own writes); nothing here reaches Neo4j
(tests/test_eval_graphiti.py puts the same peer to the real graphiti-core on a real server).
"""

from __future__ import annotations

import asyncio
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.factories import PinnedClock, make_store, run
from vintage.graph.retrieval.embedder import Embedder, embedder_from_env
from vintage.graph.store.protocol import Store
from vintage.queries.eval import files
from vintage.queries.eval import graphiti as peer
from vintage.queries.eval import graphiti_map as gm
from vintage.queries.eval import scenario as sc
from vintage.queries.eval.replay import replay
from vintage.queries.eval.written import Replay

CORRECTED = """
- id: corrected-and-erased
  family: correction
  language: en
  steps:
    - {name: city, op: remember, as: {user: alice}, subject: "user:alice", key: home.city,
       value: Lisbon, at: 2026-01-05T09:00:00Z}
    - {name: city-fix, op: correct, as: {user: alice}, target: city, value: Porto,
       at: 2026-02-01T09:00:00Z}
    - {name: bob-city, op: remember, as: {user: bob}, subject: "user:bob", key: home.city,
       value: 杭州, at: 2026-02-02T09:00:00Z}
    - {name: bob-team, op: remember, as: {user: bob, project: tianhe}, subject: "user:bob",
       key: team, value: 搜索组, at: 2026-02-03T09:00:00Z}
    - {name: alice-tz, op: remember, as: {user: alice}, subject: "user:alice", key: timezone,
       value: Europe/Lisbon, at: 2026-02-04T09:00:00Z}
    - {op: forget, as: {user: alice}, target: alice-tz, at: 2026-02-05T09:00:00Z}
    - {op: invalidate, as: {user: bob}, target: bob-city, at: 2026-02-06T09:00:00Z}
  asks:
    - {id: now, as: {user: alice}, query: where does the user live, subject: "user:alice",
       key: home.city, expect: {value: Porto}}
    - {id: before, as: {user: alice}, query: where does the user live, subject: "user:alice",
       key: home.city, cutoff: 2026-01-20T00:00:00Z, expect: {value: Lisbon}}
    - {id: nothing, as: {user: carol}, query: where does the user live, subject: "user:carol",
       key: home.city, expect: {refusal: true}}
"""
BACKDATED = """
- id: backdated
  family: not-yet-public
  language: en
  steps:
    - {name: plan, op: remember, as: {user: dan}, subject: "user:dan", key: plan, value: gold,
       observed_at: 2026-01-01T00:00:00Z, at: 2026-03-01T00:00:00Z}
  asks:
    - {id: known-then, as: {user: dan}, query: plan, subject: "user:dan", key: plan,
       cutoff: 2026-02-01T00:00:00Z, expect: {value: gold}}
"""


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return embedder_from_env()


def replayed(tmp_path: Path, text: str, request: pytest.FixtureRequest,
             embedder: Embedder) -> tuple[sc.Scenario, Replay]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "cases.yaml"
    path.write_text(text, encoding="utf-8")
    [scenario] = files.load([path])
    clock = PinnedClock(sc.FIRST_STEP)
    store: Store = make_store("embedded", clock, tmp_path, request)
    try:
        return scenario, replay(store, clock, embedder, scenario, "t-graphiti")
    finally:
        store.close()


def edge(g: gm.Graph, subject: str, key: str, value: object) -> gm.Edge:
    [found] = [e for e in g.edges.values() if (e.subject, e.key, e.value) == (subject, key, value)]
    return found


def test_a_correction_closes_the_earlier_edge_at_its_ingestion_and_keeps_both(
        tmp_path: Path, request: pytest.FixtureRequest, embedder: Embedder) -> None:
    scenario, done = replayed(tmp_path, CORRECTED, request, embedder)
    g = gm.graph_of(scenario, done)
    old, new = edge(g, "user:alice", "home.city", "Lisbon"), edge(g, "user:alice", "home.city",
                                                                  "Porto")
    fixed = datetime(2026, 2, 1, 9, tzinfo=UTC)
    assert old.expired_at == fixed and new.expired_at is None
    assert new.created_at == fixed and old.created_at == datetime(2026, 1, 5, 9, tzinfo=UTC)
    # The items carry the engine's version ids, so the harness's checks read both alike.
    assert old.version == done.by_name["city"].ids[0]
    assert new.version == done.by_name["city-fix"].ids[0]
    assert old.episode != new.episode and set(g.episodes) >= {old.episode, new.episode}


def test_erasure_deletes_the_edges_and_episodes_and_invalidation_closes_them(
        tmp_path: Path, request: pytest.FixtureRequest, embedder: Embedder) -> None:
    scenario, done = replayed(tmp_path, CORRECTED, request, embedder)
    g = gm.graph_of(scenario, done)
    assert not [e for e in g.edges.values() if e.key == "timezone"]
    assert not [p for p in g.episodes.values() if "Europe/Lisbon" in p.content]
    bob = edge(g, "user:bob", "home.city", "杭州")
    closed = datetime(2026, 2, 6, 9, tzinfo=UTC)
    assert bob.expired_at == closed and bob.invalid_at == closed


def test_every_instant_handed_to_graphiti_is_aware_utc(
        tmp_path: Path, request: pytest.FixtureRequest, embedder: Embedder) -> None:
    # A naive datetime silently matches nothing in Graphiti's date filters (issue 41).
    scenario, done = replayed(tmp_path, CORRECTED, request, embedder)
    g = gm.graph_of(scenario, done)
    instants = [t for e in g.edges.values()
                for t in (e.created_at, e.valid_at, e.invalid_at, e.expired_at) if t is not None]
    instants += [t for p in g.episodes.values() for t in (p.valid_at, p.created_at)]
    assert instants and all(t.utcoffset() == timedelta(0) for t in instants)


def test_groups_are_graphiti_safe_names_one_per_scope_chinese_included(
        tmp_path: Path, request: pytest.FixtureRequest, embedder: Embedder) -> None:
    scenario, done = replayed(tmp_path, CORRECTED, request, embedder)
    g = gm.graph_of(scenario, done)
    assert len(g.groups) == 3  # alice; bob; bob in the project tianhe
    from graphiti_core.helpers import validate_group_id

    for name in g.groups:
        validate_group_id(name)  # raises on a character Graphiti refuses


def test_an_asker_reads_the_groups_whose_scope_carries_every_key_of_theirs(
        tmp_path: Path, request: pytest.FixtureRequest, embedder: Embedder) -> None:
    scenario, done = replayed(tmp_path, CORRECTED, request, embedder)
    g = gm.graph_of(scenario, done)
    alice = gm.readable_groups(g, done.tenant, sc.Principal(user="alice"))
    bob = gm.readable_groups(g, done.tenant, sc.Principal(user="bob"))
    team = gm.readable_groups(g, done.tenant, sc.Principal(user="bob", project="tianhe"))
    assert len(alice) == 1 and len(bob) == 2 and len(team) == 1
    assert not set(alice) & set(bob) and set(team) < set(bob)
    assert gm.readable_groups(g, done.tenant, sc.Principal(user="carol")) == []
    assert gm.readable_groups(g, "another-tenant", sc.Principal(user="alice")) == []


def test_the_date_filters_bind_one_instant_per_parameter_graphiti_builds() -> None:
    # Graphiti names a date parameter by its place in its AND group: two OR groups that each
    # held an instant would overwrite each other's (issue 41). Built by Graphiti itself here.
    from graphiti_core.driver.driver import GraphProvider
    from graphiti_core.search.search_filters import edge_search_filter_query_constructor

    known, valid = datetime(2026, 1, 20, tzinfo=UTC), datetime(2026, 1, 10, tzinfo=UTC)
    built, params = edge_search_filter_query_constructor(
        peer.search_filters(gm.Window(known=known, valid=valid)), GraphProvider.NEO4J)
    assert params == {"created_at_0": known, "expired_at_0": known, "valid_at_0": valid,
                      "invalid_at_0": valid}
    text = " AND ".join(built)
    assert "(e.expired_at IS NULL) OR (e.expired_at > $expired_at_0)" in text
    assert "(e.invalid_at IS NULL) OR (e.invalid_at > $invalid_at_0)" in text
    assert "(e.created_at <= $created_at_0)" in text and "(e.valid_at <= $valid_at_0)" in text


def test_a_question_is_put_at_its_cutoff_and_valid_instant_which_defaults_to_it() -> None:
    now = datetime(2026, 3, 1, tzinfo=UTC)
    plain = sc.Ask(id="a", query="q", expect=sc.AskExpect())
    timed = sc.Ask(id="b", query="q", expect=sc.AskExpect(),
                   cutoff=datetime(2026, 1, 1, tzinfo=UTC),
                   valid_at=datetime(2025, 6, 1, tzinfo=UTC))
    cut = sc.Ask(id="c", query="q", expect=sc.AskExpect(),
                 cutoff=datetime(2026, 1, 15, tzinfo=UTC))
    assert gm.window(plain, now) == gm.Window(known=now, valid=now)
    assert gm.window(timed, now) == gm.Window(known=datetime(2026, 1, 1, tzinfo=UTC),
                                              valid=datetime(2025, 6, 1, tzinfo=UTC))
    # What held then, as known then: a later restatement's event time does not reach back.
    assert gm.window(cut, now) == gm.Window(known=datetime(2026, 1, 15, tzinfo=UTC),
                                            valid=datetime(2026, 1, 15, tzinfo=UTC))


def test_checks_graphiti_cannot_express_are_named_with_why(
        tmp_path: Path, request: pytest.FixtureRequest, embedder: Embedder) -> None:
    scenario, done = replayed(tmp_path, CORRECTED, request, embedder)
    g = gm.graph_of(scenario, done)
    asks = {a.id: a for a in scenario.asks}
    assert gm.not_expressible(scenario, asks["now"], g) == {}
    assert gm.not_expressible(scenario, asks["before"], g) == {}  # ingestion = knowledge here
    assert set(gm.not_expressible(scenario, asks["nothing"], g)) == {"says nothing relevant"}
    late, later = replayed(tmp_path / "b", BACKDATED, request, embedder)
    why = gm.not_expressible(late, late.asks[0], gm.graph_of(late, later))
    assert "knowledge time" in why["answer"]


def test_the_handed_items_follow_graphitis_order_cut_to_the_budget(
        tmp_path: Path, request: pytest.FixtureRequest, embedder: Embedder) -> None:
    scenario, done = replayed(tmp_path, CORRECTED, request, embedder)
    g = gm.graph_of(scenario, done)
    order = [edge(g, "user:alice", "home.city", "Porto").uuid,
             edge(g, "user:alice", "home.city", "Lisbon").uuid]
    full = peer.handed(g, order, budget=600, seconds=0.0)
    assert full.item_tokens is not None
    assert [i.value for i in full.items] == ["Porto", "Lisbon"]
    assert full.considered == tuple(i.id for i in full.items)
    assert full.tokens == sum(full.item_tokens.values()) and all(i.sources for i in full.items)
    cut = peer.handed(g, order, budget=full.item_tokens[full.items[0].id], seconds=0.0)
    assert [i.value for i in cut.items] == ["Porto"] and len(cut.considered) == 2


def test_graphitis_model_client_refuses_to_be_called_and_embeds_with_the_engines_model(
        embedder: Embedder) -> None:
    emb, llm, cross = peer._clients(embedder)
    got = asyncio.run(emb.create_batch(["订单寄到里斯本", "ship to Lisbon"]))
    assert len(got) == 2 and len(got[0]) == len(embedder.embed(["x"])[0])
    with pytest.raises(RuntimeError, match="never call a language model"):
        asyncio.run(llm._generate_response([]))
    assert asyncio.run(cross.rank("q", ["a", "b"])) == [("a", 0.0), ("b", 0.0)]


def test_the_graphiti_rungs_refuse_an_embedded_store_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "one.yaml"
    path.write_text(BACKDATED, encoding="utf-8")
    code, _, err = run(["eval", "--scenarios", str(path), "--rung", "graphiti-hybrid",
                          "--store", str(tmp_path / "store")], capsys, monkeypatch)
    assert code == 2 and "Neo4j store" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "store").exists()


def test_the_graphiti_rungs_without_the_extra_say_how_to_install_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "one.yaml"
    path.write_text(BACKDATED, encoding="utf-8")
    monkeypatch.setitem(sys.modules, "graphiti_core", None)  # an import of it fails
    code, _, err = run(["eval", "--scenarios", str(path), "--rung", "graphiti-bm25",
                        "--store", "bolt://127.0.0.1:1"], capsys, monkeypatch)
    assert code == 2 and "vintage[graphiti]" in err and "Traceback" not in err


def test_the_default_ladder_leaves_the_graphiti_rungs_out(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from vintage.cli.eval import _rungs

    assert not set(_rungs([])) & set(peer.PEERS)
    assert _rungs(["graphiti-hybrid"]) == ["graphiti-hybrid"]


def test_checks_not_expressible_are_shown_apart_from_the_failures_in_text_and_report() -> None:
    from rich.console import Console

    from vintage.queries.eval.answer import Outcome
    from vintage.queries.eval.report import html
    from vintage.queries.eval.run import Evaluation, RungResult
    from vintage.render.eval import ladder

    why = "Graphiti's search returns ranked edges, no verdict"
    rung = RungResult("graphiti-hybrid", not_expressible=[
        {"check": "says nothing relevant", "scenario": "s-1", "ask": "a-1", "why": why}],
        outcomes={("s-1", "a-1"): Outcome.REFUSED_RIGHT}, seconds=[0.01], tokens=[0])
    summary = Evaluation("r1", "neo4j", [], [rung]).summary()
    [row] = summary["rungs"]
    assert row["not_expressible"][0]["why"] == why and row["failures"] == []
    out = Console(width=200, record=True)
    ladder(out, summary)
    text = out.export_text()
    assert "1 checks not expressible (not scored): says nothing relevant x1" in text
    page = html(summary)
    assert "<h2>Not expressible</h2>" in page and "s-1" in page
