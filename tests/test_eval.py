"""`vintage eval`: scenarios replayed through the engine, scored layer by layer (docs/eval.md).

The harness must be able to fail: a wrong expectation fails its check, a rung that hands over
another user's memory is a governance failure, and a malformed file is one line that names it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.factories import PinnedClock, run
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.retrieval.embedder import Embedder, embedder_from_env
from vintage.graph.store.protocol import Store
from vintage.queries.eval import files
from vintage.queries.eval import scenario as sc
from vintage.queries.eval.naive import NaiveRag
from vintage.queries.eval.run import Evaluation, evaluate
from vintage.queries.eval.rungs import EngineRung, Handed, NoMemory, Shown, ladder
from vintage.queries.eval.written import Replay, Settable
from vintage.queries.search.fusion import Mode

TWO_USERS = """
- id: two-users
  family: isolation
  language: en
  steps:
    - {name: alice-city, op: remember, as: {user: alice}, subject: "user:alice", key: home.city,
       value: Lisbon, expect: {decision: active}}
    - {name: bob-city, op: remember, as: {user: bob}, subject: "user:bob", key: home.city,
       value: Oslo, expect: {decision: active}}
  asks:
    - id: alice-asks
      as: {user: alice}
      query: which city does the user live in
      subject: "user:alice"
      key: home.city
      expect: {value: %s, include: [alice-city], exclude: [bob-city]}
"""


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return embedder_from_env()


def scenarios(tmp_path: Path, text: str, name: str = "cases.yaml") -> list[sc.Scenario]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return files.load([path])


@pytest.fixture
def evaluated(store: Store, clock: PinnedClock, tenant: str) -> Iterator[Any]:
    """Run an evaluation on the parametrised store; its tenants are removed afterwards."""
    made: list[int] = []

    def go(found: list[sc.Scenario], rungs: list[Any], embedder: Embedder,
           **more: Any) -> Evaluation:
        made.append(len(found))
        return evaluate(store, clock, embedder, found, rungs, backend="test", prefix=tenant,
                        ingest=_ingest, **more)

    yield go
    if isinstance(store, Neo4jStore):
        for n in range(1, max(made, default=0) + 1):
            store.purge_tenant(f"{tenant}-{n}")


def _ingest(store: Store, scope: Any, path: Path, actor: str, recompute: bool) -> object:
    from vintage.ingest.facts_table import ingest_table

    return ingest_table(store, scope, path, actor, recompute=recompute)


def row(result: Evaluation, rung: str) -> dict[str, Any]:
    return next(r for r in result.summary()["rungs"] if r["rung"] == rung)


def failed(result: Evaluation, rung: str) -> set[tuple[str, str]]:
    return {(f["layer"], f["check"]) for f in row(result, rung)["failures"]}


def test_a_right_expectation_passes_and_a_wrong_one_fails(
        evaluated: Any, tmp_path: Path, embedder: Embedder) -> None:
    right = evaluated(scenarios(tmp_path, TWO_USERS % "Lisbon"),
                      [EngineRung("engine", Mode.HYBRID, embedder, as_of=True)], embedder)
    assert row(right, "engine")["outcomes"] == {"right": 1}
    assert ("task", "answer") not in failed(right, "engine")
    wrong = evaluated(scenarios(tmp_path, TWO_USERS % "Porto", "wrong.yaml"),
                      [EngineRung("engine", Mode.HYBRID, embedder, as_of=True)], embedder)
    assert row(wrong, "engine")["outcomes"] == {"wrong": 1}
    assert ("task", "answer") in failed(wrong, "engine")
    assert row(wrong, "engine")["layers"]["task"]["passed"] < \
        row(wrong, "engine")["layers"]["task"]["total"]


class Leaky:
    """A peer that hands over every memory the tenant holds, whoever asks: another user's
    included. The harness must count it as a governance failure."""

    name = "leaky"

    def load(self, replay: Replay) -> None:
        self.items = tuple(Shown(id=w.ids[-1], subject=w.subject, key=w.key, value=w.value,
                                 status="active", sources=1)
                           for w in replay.written if w.ids)

    def ask(self, store: Store, clock: Settable, replay: Replay, a: sc.Ask) -> Handed:
        return Handed(self.items, tuple(i.id for i in self.items), "", 0, a.budget,
                      nothing_relevant=False, seconds=0.0)


def test_a_rung_that_leaks_another_users_memory_is_a_governance_failure(
        evaluated: Any, tmp_path: Path, embedder: Embedder) -> None:
    result = evaluated(scenarios(tmp_path, TWO_USERS % "Lisbon"),
                       [EngineRung("engine", Mode.HYBRID, embedder, as_of=True), Leaky()],
                       embedder)
    assert ("task", "governance: excluded item not handed over") in failed(result, "leaky")
    assert ("task", "governance: excluded item not handed over") not in failed(result, "engine")


def test_the_no_memory_rung_refuses_and_the_naive_peer_reads_across_users(
        evaluated: Any, tmp_path: Path, embedder: Embedder) -> None:
    result = evaluated(scenarios(tmp_path, TWO_USERS % "Lisbon"),
                       [NoMemory(), NaiveRag(embedder)], embedder)
    assert row(result, "none")["outcomes"] == {"refused": 1}
    assert row(result, "none")["layers"]["retrieval"] is None
    assert ("retrieval", "excluded item never a candidate") in failed(result, "naive-rag")


def test_every_write_is_checked_against_what_it_was_given(
        evaluated: Any, tmp_path: Path, embedder: Embedder) -> None:
    result = evaluated(scenarios(tmp_path, TWO_USERS % "Lisbon"), ladder(embedder)[-1:],
                       embedder)
    write = row(result, "engine")["layers"]["write"]
    assert write == {"passed": 6, "total": 6, "score": 1.0}  # replayed, decision, faithful x2


@pytest.mark.parametrize(("text", "message"), [
    ("- id: x\n  family: f\n  language: fr\n  asks: []\n", "language"),
    ("- [1, 2\n", "not a YAML scenario file"),
    ("- id: x\n  family: f\n  language: en\n  steps: [{op: teleport}]\n  asks: "
     "[{id: a, query: q, expect: {}}]\n", "steps.0"),
    ("- id: x\n  family: f\n  language: en\n  asks: [{id: a, query: q, expect: "
     "{include: [ghost]}}]\n", "names 'ghost'"),
])
def test_a_malformed_scenario_file_is_one_line_naming_file_and_field(
        tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        scenarios(tmp_path, text)
    assert message in str(refused.value) and "cases.yaml" in str(refused.value)
    assert "\n" not in str(refused.value)


def test_the_command_prints_the_ladder_as_json_and_refuses_an_unknown_rung(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "one.yaml"
    path.write_text(TWO_USERS % "Lisbon", encoding="utf-8")
    code, out, _ = run(["eval", "--scenarios", str(path), "--rung", "none", "--rung", "engine",
                        "--store", str(tmp_path / "store"), "--json"], capsys, monkeypatch)
    assert code == 0
    summary = json.loads(out)
    assert [r["rung"] for r in summary["rungs"]] == ["none", "engine"]
    assert summary["families"] == {"isolation": 1}
    code, _, err = run(["eval", "--scenarios", str(path), "--rung", "oracle"], capsys,
                       monkeypatch)
    assert code == 2 and "oracle" in err and "Traceback" not in err


def test_the_eval_searches_with_the_embedder_the_store_records_and_names_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    path, store = tmp_path / "one.yaml", str(tmp_path / "store")
    path.write_text(TWO_USERS % "Lisbon", encoding="utf-8")
    asked = ["eval", "--scenarios", str(path), "--rung", "engine", "--store", store, "--json"]
    monkeypatch.delenv("VINTAGE_EMBEDDER", raising=False)
    code, out, err = run(asked, capsys, monkeypatch)
    assert code == 0, err
    assert json.loads(out)["embedder"] == "all-MiniLM-L6-v2-int8"  # the default
    code, _, err = run(["--store", store, "config", "embedder", "e5"], capsys, monkeypatch)
    assert code == 0, err
    code, out, err = run(asked, capsys, monkeypatch)
    assert code == 0, err
    assert json.loads(out)["embedder"] == "multilingual-e5-small-q4"
    monkeypatch.setenv("VINTAGE_EMBEDDER", "minilm")  # disagreeing: refused, as any command
    code, out, err = run(asked, capsys, monkeypatch)
    assert (code, out) == (2, "") and err.startswith(
        "error: VINTAGE_EMBEDDER=minilm disagrees with the embedder the store uses (e5")


def test_two_concurrent_deliveries_of_one_message_are_one_memory_both_deliveries_keep(
        tmp_path: Path, embedder: Embedder) -> None:
    from vintage.graph.store.backends import open_store
    from vintage.queries.eval.written import Clock

    found = [s for s in files.load([files.bundled_dir()])
             if s.id.startswith("concurrent-duplicate-delivery-")]
    assert len(found) == 2  # English and Chinese
    clock = Clock(sc.FIRST_STEP)
    store = open_store(str(tmp_path / "store"), clock=clock)
    try:
        result = evaluate(store, clock, embedder, found,
                          [EngineRung("engine", Mode.HYBRID, embedder, as_of=True)],
                          backend="embedded")
    finally:
        store.close()
    kept = [(c.scenario, c.passed, c.detail) for c in result.rungs[0].checks if c.name == "kept"]
    # One delivery writes, the other is absorbed as its duplicate: both answer for the key.
    assert [(s, p) for s, p, _ in kept] == [(s.id, True) for s in found for _ in range(2)], kept


def test_the_report_is_one_page_with_inline_plots_and_no_network(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "one.yaml"
    path.write_text(TWO_USERS % "Porto", encoding="utf-8")
    page = tmp_path / "report.html"
    code, _, _ = run(["eval", "--scenarios", str(path), "--rung", "hybrid",
                      "--report", str(page)], capsys, monkeypatch)
    assert code == 0
    html = page.read_text(encoding="utf-8")
    assert html.count("<svg") == 3 and "two-users" in html
    assert "<script" not in html and "src=\"http" not in html and "href=\"http" not in html


def test_the_harness_asks_ingested_rows_for_the_columns_the_table_ingest_needs() -> None:
    from vintage.ingest.facts_table import REQUIRED
    from vintage.queries.eval import written

    assert written.REQUIRED == REQUIRED


def test_health_names_cold_memories_spending_and_a_drill_that_leaves_nothing(
        store: Store, clock: PinnedClock, tenant: str, embedder: Embedder) -> None:
    from vintage.graph.core.model import Scope
    from vintage.graph.memory.gate import MemoryIn, MemoryKind
    from vintage.graph.memory.remember import remember
    from vintage.queries.eval.health import DRILL_VALUE, health
    from vintage.queries.search.pack import build_pack
    from vintage.queries.search.request import SearchRequest

    scope = Scope(tenant=tenant, keys={"user": "42"})
    for key, value in (("shipping.preference", "ship to the office"),
                       ("pet.name", "a cat called Miso")):
        remember(store, MemoryIn(kind=MemoryKind.PREFERENCE, tenant=tenant, subject="user:42",
                                 key=key, value=value, source_kind="user_message",
                                 source_id=f"m-{key}", observed_at=clock(), owner="u42",
                                 retention_reason="test", user="42"), actor="t")
    clock.advance(minutes=1)
    pack = build_pack(store, embedder, SearchRequest("where should parcels ship", scope),
                      budget=180, for_thread="t1", actor="t")
    assert len(pack.items) == 1  # the budget holds one item: the other one stays cold
    clock.advance(minutes=1)
    h = health(store, scope, days=30, actor="t")
    assert h.injections == 1 and h.memories == 2
    assert [c["key"] for c in h.cold] == ["pet.name"]
    assert sum(h.tokens_by_kind.values()) == sum(pack.item_tokens.values())
    assert h.header_share == pytest.approx(pack.header_tokens / 180, abs=1e-4)
    assert h.drill is not None and h.drill.caught and h.drill.blast_radius == 1
    # The drill's memory is gone: erased, no version readable, its text nowhere in a read.
    again = health(store, scope, days=30, actor="t", drill=False)
    assert again.memories == 2 and again.candidates == []
    from vintage.graph.core.asof import AsOf
    from vintage.graph.core.kinds import Status

    everything = store.read(AsOf(scope, statuses=frozenset(Status)))
    assert everything and all(DRILL_VALUE not in str(f.value) for f in everything)


def test_a_model_can_answer_instead_of_the_rule_through_an_openai_compatible_endpoint(
        evaluated: Any, tmp_path: Path, embedder: Embedder) -> None:
    """The opt-in hook: the endpoint is handed the context and the question, and its reply is
    scored as the rule's answer would be. The endpoint here is a local HTTP server that reads
    the context it was sent and answers with the first city it finds there."""
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    from vintage.queries.eval.chat import ChatAnswerer, read_reply

    asked: list[dict[str, Any]] = []

    class Endpoint(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            asked.append(body)
            context = body["messages"][1]["content"]
            reply = next((c for c in ("Lisbon", "Oslo") if c in context), "UNKNOWN")
            data = json.dumps({"choices": [{"message": {"content": reply}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Endpoint)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        found = scenarios(tmp_path, TWO_USERS % "Lisbon")
        url = f"openai:http://127.0.0.1:{server.server_port}/v1#local-test"
        result = evaluate_with(evaluated, found, embedder, ChatAnswerer.of(url))
    finally:
        server.shutdown()
        server.server_close()
    assert row(result, "engine")["outcomes"] == {"right": 1}
    assert asked and "which city does the user live in" in asked[0]["messages"][1]["content"]
    assert read_reply("  UNKNOWN. ").kind == "refused" and read_reply("不知道").kind == "refused"


def evaluate_with(evaluated: Any, found: list[sc.Scenario], embedder: Embedder,
                  answerer: Any) -> Evaluation:
    result: Evaluation = evaluated(
        found, [EngineRung("engine", Mode.HYBRID, embedder, as_of=True)], embedder,
        answerer=answerer)
    return result


@pytest.mark.parametrize("spec", ["gpt-4", "openai:ftp://x#m", "openai:http://x#"])
def test_an_answerer_is_named_as_openai_url_and_model(spec: str) -> None:
    from vintage.queries.eval.chat import parse_spec

    with pytest.raises(InvalidArgument, match="openai:<base_url>#<model>"):
        parse_spec(spec)


def test_bundled_scenarios_replay_and_keep_scopes_apart_on_every_backend(
        evaluated: Any, embedder: Embedder) -> None:
    """CI's subset of the bundled scenarios, on both backends: every step replays, the whole
    engine hands nothing over that an ask excludes, and it beats no memory on isolation."""
    from vintage.queries.eval.run import select

    found = select(files.load([files.bundled_dir()]), ["isolation", "ltm-windows"])
    result = evaluated(found, [NoMemory(), EngineRung("engine", Mode.HYBRID, embedder,
                                                      as_of=True)], embedder)
    engine = row(result, "engine")
    assert not [f for f in engine["failures"] if f["check"] in (
        "replayed", "governance: excluded item not handed over", "asked")]
    assert engine["outcomes"].get("right", 0) > row(result, "none")["outcomes"].get("right", 0)
    assert engine["memory_caused_errors"] == 0


def _strings(s: sc.Scenario) -> set[str]:
    """What a scenario says in words: its description, its memories' text values, its asks."""
    said = {s.description} if s.description else set()
    said |= {step.value for step in s.steps if isinstance(step, sc.Remember)
             and isinstance(step.value, str)}
    return said | {a.query for a in s.asks}


def test_every_family_is_bundled_five_times_in_english_and_in_chinese_with_strings_of_its_own(
) -> None:
    found = files.load([files.bundled_dir()])
    for family in sc.FAMILIES:
        for language in sc.LANGUAGES:
            count = sum(1 for s in found if (s.family, s.language) == (family, language))
            assert count >= 5, f"{family} has {count} scenarios in {language}"
    for s in found:
        if s.language == "zh":  # Chinese in the words a user types, not only in the file name
            assert any(any("\u4e00" <= ch <= "\u9fff" for ch in a.query) for a in s.asks), s.id
    owner: dict[str, str] = {}
    for s in found:
        for text in _strings(s):
            assert owner.setdefault(text, s.id) == s.id, f"{s.id} repeats {owner[text]}: {text!r}"


def test_a_context_built_mid_scenario_can_be_echoed_and_its_items_marked_used(
        evaluated: Any, tmp_path: Path, embedder: Embedder) -> None:
    found = scenarios(tmp_path, """
- id: used-and-echoed
  family: self-echo
  language: en
  steps:
    - {name: spot, op: remember, as: {user: dana}, subject: "user:dana", key: parking.spot,
       value: the parking spot is B-4417}
    - {name: ctx, op: context, as: {user: dana}, query: which parking spot is hers}
    - {name: marked, op: used, as: {user: dana}, of: ctx, items: [spot]}
    - {name: echoed, op: echo, as: {user: dana}, of: ctx, subject: "user:dana",
       key: parking.spot.note}
  asks:
    - {id: spot, as: {user: dana}, query: parking spot, subject: "user:dana",
       key: parking.spot, expect: {value: the parking spot is B-4417}}
""")
    result = evaluated(found, [EngineRung("engine", Mode.HYBRID, embedder, as_of=True)],
                       embedder)
    engine = row(result, "engine")
    assert not [f for f in engine["failures"] if f["check"] == "replayed"], engine["failures"]
    assert engine["outcomes"] == {"right": 1}
    assert result.summary()["rungs"][0]["layers"]["write"]["passed"] >= 4


def test_a_facts_file_beside_the_scenario_is_ingested_and_a_summary_is_a_step(
        evaluated: Any, tmp_path: Path, embedder: Embedder) -> None:
    (tmp_path / "kpis.csv").write_text(
        "subject,predicate,value,unit,period_start,period_end,source_id,available_at\n"
        "ACME,us-gaap:Revenues,100,USD,2025-01-01,2025-03-31,q1,2025-04-20\n",
        encoding="utf-8")
    found = scenarios(tmp_path, """
- id: file-and-summary
  family: erasure
  language: en
  steps:
    - {name: kpis, op: ingest, at: 2025-05-01T00:00:00Z, file: kpis.csv}
    - {name: pet, op: remember, as: {user: eve}, subject: "user:eve", key: pet.name,
       value: a parrot called Kiwi}
    - {name: summary, op: summarise, as: {user: eve}, subject: "user:eve"}
  asks:
    - {id: q1, query: ACME revenue first quarter 2025, subject: ACME, key: us-gaap:Revenues,
       mode: keyword, expect: {value: 100}}
""")
    assert isinstance(found[0].steps[0], sc.Ingest) and found[0].steps[0].file is not None
    assert found[0].steps[0].file.is_absolute()
    result = evaluated(found, [EngineRung("engine", Mode.HYBRID, embedder, as_of=True)],
                       embedder)
    engine = row(result, "engine")
    assert not [f for f in engine["failures"] if f["check"] == "replayed"], engine["failures"]
    assert engine["outcomes"] == {"right": 1}


GOLDEN = Path(__file__).parent / "golden" / "eval" / "engine-outcomes.json"


def test_the_whole_engine_answers_every_bundled_ask_as_last_recorded(
        tmp_path: Path, embedder: Embedder) -> None:
    """Every bundled ask's outcome on the whole engine, held to a golden file: a change in what
    the engine answers (or a scenario broken by another change: a period read differently, a
    step the engine now refuses) shows as the asks that moved. After an intended change (the
    trust work fixes failures), regenerate with ``UPDATE_GOLDEN=1``."""
    import os

    from vintage.graph.store.backends import open_store
    from vintage.queries.eval.written import Clock

    clock = Clock(sc.FIRST_STEP)
    store = open_store(str(tmp_path / "store"), clock=clock)
    try:
        result = evaluate(store, clock, embedder, files.load([files.bundled_dir()]),
                          [EngineRung("engine", Mode.HYBRID, embedder, as_of=True)],
                          backend="embedded", ingest=_ingest)
    finally:
        store.close()
    engine = result.rungs[0]
    got = {f"{s}/{a}": o.value for (s, a), o in sorted(engine.outcomes.items())}
    # Steps the engine refused with an error are held too.
    got |= {f"{c.scenario}/{c.detail.split(':')[0]}": f"{c.name}: failed" for c in engine.checks
            if c.name in ("replayed", "asked") and not c.passed}
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    want = json.loads(GOLDEN.read_text(encoding="utf-8"))
    moved = {k: (want.get(k), got.get(k)) for k in set(want) | set(got)
             if want.get(k) != got.get(k)}
    assert moved == {}, f"{len(moved)} asks answered otherwise (was, now): {moved}"
