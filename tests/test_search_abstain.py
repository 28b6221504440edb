"""Abstention (issue 40), on both backends with the real local model: scores are calibrated, so
a poor match scores low whatever else is legal; a search whose best answer is under its mode's
relevance floor says "nothing relevant" and hands nothing over; a context pack says it in its
text and its trace records which best score fell under which floor; an embedder with no floor
of its own is never judged with another model's."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.factories import ACTOR, memory, mine
from vintage.graph.core.model import Scope
from vintage.graph.memory.gate import Decision
from vintage.graph.memory.remember import remember
from vintage.graph.retrieval.embedder import e5, minilm
from vintage.graph.retrieval.multilingual import MultilingualE5
from vintage.graph.store.protocol import Store
from vintage.queries.search import abstain
from vintage.queries.search.abstain import FLOORS, KEYWORD_FLOOR, floor_of, judge
from vintage.queries.search.fusion import Mode
from vintage.queries.search.items import Format
from vintage.queries.search.pack import build_pack
from vintage.queries.search.request import SearchRequest, SearchResult
from vintage.queries.search.run import search
from vintage.queries.search.trace import read_injection

WORDS = [Mode.KEYWORD, Mode.SEMANTIC, Mode.HYBRID]
BERLIN = ("shipping.destination", "ship to the office in Berlin")


@pytest.fixture
def user(scope: Scope) -> Scope:
    return mine(scope)


def said(store: Store, scope: Scope, *notes: tuple[str, str]) -> None:
    for n, (key, value) in enumerate(notes):
        done = remember(store, memory(scope, key=key, value=value, source_id=f"msg-{n}"),
                        actor=ACTOR)
        assert done.decision is Decision.ACTIVE, done.reason


def find(store: Store, query: str, scope: Scope, **options: Any) -> SearchResult:
    return search(store, minilm(), SearchRequest(query, scope, **options))


@pytest.mark.parametrize("mode", [Mode.SEMANTIC, Mode.HYBRID])
def test_a_question_the_memories_never_answer_is_told_nothing_relevant_in_the_modes_that_embed(
        store: Store, user: Scope, mode: Mode) -> None:
    said(store, user, BERLIN)
    found = find(store, "what is the name of the user's cat", user, mode=mode)
    assert found.nothing_relevant and found.results == ()
    assert found.verdict is not None and found.verdict.mode is mode
    # Ranked, and under the floor, by how much.
    assert found.considered and found.verdict.best is not None
    assert found.verdict.floor is not None and found.verdict.best < found.verdict.floor


@pytest.mark.parametrize("mode", [Mode.EXACT, Mode.KEYWORD])
def test_a_text_search_sharing_no_term_with_any_item_says_so_and_does_not_claim_nothing_relevant(
        store: Store, user: Scope, mode: Mode) -> None:
    # A paraphrase shares no word with its answer either: the mode cannot tell the two apart,
    # so it hands nothing over and says why, without the "nothing relevant" verdict.
    said(store, user, BERLIN)
    found = find(store, "what is the name of the user's cat", user, mode=mode)
    assert found.results == () and not found.nothing_relevant
    assert found.verdict is not None and not found.verdict.matched
    assert not found.verdict.judged and not found.verdict.relevant
    assert "shares a term" in found.verdict.reason
    assert found.verdict.document()["matched"] is False


@pytest.mark.parametrize("mode", [Mode.EXACT, Mode.KEYWORD])
def test_a_text_search_over_an_empty_legal_set_is_told_nothing_relevant(
        store: Store, user: Scope, mode: Mode) -> None:
    found = find(store, "what is the name of the user's cat", user, mode=mode)
    assert found.legal == 0 and found.nothing_relevant and found.verdict is not None
    assert found.verdict.matched


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_a_keyword_pack_sharing_no_term_says_so_in_its_own_words_and_hands_no_evidence(
        store: Store, user: Scope, fmt: str) -> None:
    said(store, user, BERLIN)
    pack = build_pack(store, minilm(), SearchRequest("what is the name of the user's cat", user,
                                                     mode=Mode.KEYWORD), budget=400,
                      for_thread="t1", actor=ACTOR, format=Format(fmt))
    assert pack.items == () and not pack.nothing_relevant
    assert "shares a term with the query" in pack.text and "nothing relevant" not in pack.text
    assert "cat" not in pack.text and "Berlin" not in pack.text
    relevance = read_injection(store, user.tenant, pack.injection_id).trace["relevance"]
    assert relevance["matched"] is False and relevance["judged"] is False
    if fmt == "json":
        context = json.loads(pack.text)["context"]
        assert "nothing_relevant" not in context and context["unjudged"].startswith("no legal")


@pytest.mark.parametrize("mode", WORDS)
def test_a_question_the_memory_answers_is_answered_in_the_modes_that_match_words_or_meaning(
        store: Store, user: Scope, mode: Mode) -> None:
    said(store, user, BERLIN)
    query = "where should the shipping go" if mode is Mode.KEYWORD else \
        "where should we send their parcels"
    found = find(store, query, user, mode=mode)
    assert not found.nothing_relevant
    assert [f.value for f in found.results] == [BERLIN[1]]


def test_a_chinese_question_the_memories_never_answer_is_told_nothing_relevant(
        store: Store, user: Scope) -> None:
    said(store, user, BERLIN)
    found = find(store, "用户的猫叫什么名字", user)
    assert found.nothing_relevant and found.results == ()
    keyword = find(store, "用户的猫叫什么名字", user, mode=Mode.KEYWORD)
    assert not keyword.nothing_relevant and keyword.verdict is not None
    assert keyword.verdict.best is None and not keyword.verdict.matched  # no term in any memory


def test_a_poor_match_scores_what_its_cosine_says_not_a_share_of_the_best_hit(
        store: Store, user: Scope) -> None:
    # Alone in the legal set, the Berlin note was scored 0.913 for a cosine of 0.03 (a share of
    # the best hit). Calibrated, its relevance is its cosine, whatever else is legal.
    said(store, user, BERLIN)
    alone = find(store, "what is the name of the user's cat", user, mode=Mode.SEMANTIC)
    (only,) = alone.considered
    assert only.signals["relevance"] == pytest.approx(max(0.0, only.signals["semantic"]))
    assert only.score < 0.3
    said(store, user, ("pet", "has a tabby cat named Luna"))
    beside = find(store, "what is the name of the user's cat", user, mode=Mode.SEMANTIC)
    berlin = next(f for f in beside.considered if f.value == BERLIN[1])
    assert berlin.signals["relevance"] == pytest.approx(only.signals["relevance"], abs=1e-6)
    assert [f.value for f in beside.results][:1] == ["has a tabby cat named Luna"]


def test_an_exact_code_is_relevant_however_little_else_of_the_question_matches(
        store: Store, user: Scope) -> None:
    said(store, user, ("checkout.error", "the payment failed at checkout with error E4031"))
    found = find(store, "E4031", user)
    assert not found.nothing_relevant and found.verdict is not None
    assert found.verdict.exact == 1.0 and found.results[0].signals["exact"] == 1.0


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_a_pack_with_nothing_relevant_says_so_hands_no_evidence_and_its_trace_names_the_floor(
        store: Store, user: Scope, fmt: str) -> None:
    said(store, user, BERLIN)
    pack = build_pack(store, minilm(), SearchRequest("what is the name of the user's cat",
                                                     user), budget=400,
                      for_thread="t1", actor=ACTOR, format=Format(fmt))
    assert pack.nothing_relevant and pack.items == ()
    assert len(pack.considered) == 1  # ranked all the same: what the trace judges against
    assert "nothing relevant is known" in pack.text and "Berlin" not in pack.text
    assert "cat" not in pack.text  # numbers and names only: never the query
    relevance = read_injection(store, user.tenant, pack.injection_id).trace["relevance"]
    assert relevance["relevant"] is False and relevance["mode"] == "hybrid"
    assert relevance["floor"] == floor_of(Mode.HYBRID, minilm().name)
    assert relevance["best"] < relevance["floor"] and relevance["embedder"] == minilm().name
    if fmt == "json":
        assert json.loads(pack.text)["context"]["nothing_relevant"].startswith("nothing")


def test_a_pack_that_finds_something_relevant_hands_it_over_and_records_it(
        store: Store, user: Scope) -> None:
    said(store, user, BERLIN)
    pack = build_pack(store, minilm(), SearchRequest("where should we send their parcels",
                                                     user), budget=400,
                      for_thread="t1", actor=ACTOR)
    assert not pack.nothing_relevant and [i.value for i in pack.items] == [BERLIN[1]]
    trace = read_injection(store, user.tenant, pack.injection_id).trace
    assert trace["relevance"]["relevant"] is True
    assert trace["relevance"]["best"] >= trace["relevance"]["floor"]


def test_every_mode_that_embeds_has_a_floor_for_each_bundled_model_and_keyword_has_its_own() -> \
        None:
    for model in (minilm().name, MultilingualE5.name):
        row = FLOORS[model]
        assert set(row) == {Mode.SEMANTIC, Mode.HYBRID} and all(0 < f < 1 for f in row.values())
    assert KEYWORD_FLOOR == 0.0 and floor_of(Mode.EXACT, minilm().name) is None


def test_the_multilingual_model_is_judged_with_its_own_floors_not_minilms() -> None:
    e5 = MultilingualE5.name
    assert floor_of(Mode.HYBRID, e5) != floor_of(Mode.HYBRID, minilm().name)
    between = (floor_of(Mode.HYBRID, minilm().name) or 0.0) + 0.01
    verdict = judge(Mode.HYBRID, e5, [(0.0, between)])
    assert verdict.judged and not verdict.relevant and verdict.embedder == e5
    assert judge(Mode.HYBRID, minilm().name, [(0.0, between)]).relevant


def test_an_embedder_without_floors_is_not_judged_by_another_models_and_says_so() -> None:
    stranger = "openai:http://localhost:1#other-model"
    assert floor_of(Mode.HYBRID, stranger) is None and floor_of(Mode.SEMANTIC, stranger) is None
    poor = [(0.0, 0.01)]
    verdict = judge(Mode.HYBRID, stranger, poor)
    assert verdict.relevant and not verdict.judged and "no relevance floor" in verdict.reason
    assert not judge(Mode.HYBRID, minilm().name, poor).relevant
    # The keyword floor holds whatever the embedder: that leg never embeds. A keyword search
    # that shares a term is answered; one that shares none is not judged.
    assert floor_of(Mode.KEYWORD, stranger) == KEYWORD_FLOOR
    assert judge(Mode.KEYWORD, stranger, poor).relevant
    assert not judge(Mode.KEYWORD, stranger, []).judged


def test_a_search_with_an_unknown_embedder_answers_as_before_floors_and_says_it_was_not_judged(
        store: Store, user: Scope, monkeypatch: pytest.MonkeyPatch) -> None:
    said(store, user, BERLIN)
    monkeypatch.setattr(abstain, "FLOORS", {})
    found = find(store, "what is the name of the user's cat", user)
    assert found.verdict is not None and not found.verdict.judged
    assert [f.value for f in found.results] == [BERLIN[1]]


def test_a_search_with_the_multilingual_model_is_judged_with_its_floors_both_ways(
        store: Store, user: Scope) -> None:
    # Before e5 had floors its searches were never judged: the cat question got the Berlin note.
    said(store, user, BERLIN)
    refused = search(store, e5(), SearchRequest("what is the name of the user's cat", user))
    assert refused.verdict is not None and refused.verdict.judged
    assert refused.nothing_relevant and refused.results == ()
    assert refused.verdict.floor == FLOORS[MultilingualE5.name][Mode.HYBRID]
    answered = search(store, e5(), SearchRequest("where should we send their parcels", user))
    assert answered.verdict is not None and answered.verdict.judged
    assert [f.value for f in answered.results] == [BERLIN[1]]
