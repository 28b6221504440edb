"""Trust required by risk (issue 40), on both backends: a read names the least authority it
admits (``--min-authority``, or a risk mapped to one); the store's legal set leaves out what
holds less, the search counts it under its own reason, the trace judges it by it, and a read
where nothing qualifies is a refusal naming the authority that was missing."""

from __future__ import annotations

import pytest

from tests.factories import ACTOR, memory, mine, values
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.exclusion import AUTHORITY
from vintage.graph.core.kinds import Authority, required_authority
from vintage.graph.core.model import Scope
from vintage.graph.memory.remember import remember
from vintage.graph.retrieval.embedder import minilm
from vintage.graph.store.protocol import Store
from vintage.queries.memory.recall import recall
from vintage.queries.search.pack import build_pack
from vintage.queries.search.request import SearchRequest
from vintage.queries.search.run import search
from vintage.queries.search.trace import Verdict, judge, read_injection

GUESS = "the parcel was delivered to the locker"
SAID = "ship to the office"


def guessed_and_said(store: Store, scope: Scope) -> tuple[str, str]:
    """A user's own statement (user_statement) and a planner's guess in a thread of the same
    user (model_guess, active: task state needs no authority to hold)."""
    said = remember(store, memory(scope, value=SAID), actor=ACTOR)
    guess = remember(store, memory(scope, kind="task_state", key="parcel.status", value=GUESS,
                                   source_kind="agent_output", source_id="plan-2",
                                   thread="t-1", ttl_seconds=400 * 86400), actor=ACTOR)
    assert said.memory_id and guess.memory_id
    return said.memory_id, guess.memory_id


def test_a_risk_maps_to_a_minimum_authority_and_the_stricter_of_the_two_wins() -> None:
    assert required_authority(None, "high") is Authority.AUTHORITATIVE
    assert required_authority(None, "medium") is Authority.APPROVED_SUMMARY
    assert required_authority(None, "LOW") is Authority.MODEL_GUESS
    assert required_authority("user_statement", "low") is Authority.USER_STATEMENT
    assert required_authority(None, None) is None
    with pytest.raises(InvalidArgument, match="one of low, medium, high"):
        required_authority(None, "extreme")
    with pytest.raises(InvalidArgument, match="authority 'boss': one of unknown_text"):
        required_authority("boss", None)


def test_a_search_requiring_authority_leaves_out_a_model_guess_with_that_reason(
    store: Store, scope: Scope,
) -> None:
    said, guess = guessed_and_said(store, scope)
    wanted = SearchRequest("parcel delivered locker office", mine(scope),
                           min_authority=Authority.AUTHORITATIVE)
    found = search(store, minilm(), wanted)
    assert [f.id for f in found.results] == [said]
    assert found.excluded.get(AUTHORITY) == 1 and found.refusal is None
    anyone = search(store, minilm(), SearchRequest("parcel delivered locker office",
                                                   mine(scope)))
    assert {f.id for f in anyone.results} == {said, guess}


def test_when_nothing_holds_the_required_authority_the_answer_is_a_refusal_naming_it(
    store: Store, scope: Scope,
) -> None:
    _, guess = guessed_and_said(store, scope)
    thread = Scope(tenant=scope.tenant, keys={"user": "42", "thread": "t-1"})
    found = search(store, minilm(), SearchRequest("parcel locker", thread,
                                                  min_authority=Authority.AUTHORITATIVE))
    assert found.results == ()
    assert found.refusal == ("nothing here holds the authority this read requires: "
                             "authoritative or above (1 matching item held less and was left "
                             "out)")
    pack = build_pack(store, minilm(), SearchRequest("parcel locker", thread,
                                                     min_authority=Authority.AUTHORITATIVE),
                      budget=400, for_thread="t-1", actor=ACTOR)
    assert pack.items == () and pack.refusal is not None and GUESS not in pack.text
    assert "(none: nothing holds authoritative or above)" in pack.text
    (judged,) = judge(store, read_injection(store, scope.tenant, pack.injection_id), [guess])
    assert (judged.verdict, judged.reason) == (Verdict.FILTERED, AUTHORITY)


def test_a_memory_read_requiring_authority_keeps_the_users_word_only(
    store: Store, scope: Scope,
) -> None:
    guessed_and_said(store, scope)
    thread = Scope(tenant=scope.tenant, keys={"user": "42", "thread": "t-1"})
    assert values(recall(store, thread, "user:42")) == [GUESS]
    assert recall(store, thread, "user:42", min_authority=Authority.APPROVED_SUMMARY) == []
    assert values(recall(store, mine(scope), "user:42",
                         min_authority=Authority.USER_STATEMENT)) == [SAID]
