"""Agent memory, continued: demotion (ranking only), contexts and the injections they record,
a user's correction by memory id, and writes to a key whose conflict set is open. Both
backends."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.factories import ACTOR, REFUND, PinnedClock, memory, mine, tools, values
from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import FactKind, Status
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import all_time
from vintage.graph.derivations.derived import Output, derive
from vintage.graph.memory.amend import correct
from vintage.graph.memory.conflicts import review
from vintage.graph.memory.forget import forget
from vintage.graph.memory.gate import MEMORY_EPOCH, Decision, MemoryIn
from vintage.graph.memory.ranking import demote
from vintage.graph.memory.remember import invalidate_memory, remember
from vintage.graph.memory.trust import trust_source
from vintage.graph.store.protocol import ConflictError, Store, StoreError, UnknownReference
from vintage.graph.writes.corrections import retract_source
from vintage.queries.memory.recall import audit, recall
from vintage.queries.memory.summaries import RENDER, summarise
from vintage.queries.search.context import build_context


def three(store: Store, scope: Scope) -> None:
    for n, (key, value) in enumerate([("shipping.preference", "ship to the office"),
                                      ("gift.wrap", "never"), ("language", "en-GB")]):
        remember(store, memory(scope, key=key, value=value, source_id=f"msg-{n}"), actor=ACTOR)


def test_a_demoted_memory_is_still_returned_only_ranked_lower(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    three(store, scope)
    before = recall(store, mine(scope), "user:42")
    done = demote(store, mine(scope), "user:42", "gift.wrap", weight=0.2, actor="ops",
                  reason="rarely relevant")
    assert (done.previous, done.weight) == (1.0, 0.2)
    after = recall(store, mine(scope), "user:42")
    assert sorted(values(after), key=str) == sorted(values(before), key=str)
    assert [m.key for m in after][-1] == "gift.wrap" and after[-1].weight == 0.2
    assert values(recall(store, mine(scope), "user:42", "gift.wrap")) == ["never"]
    (event,) = [e for e in audit(store, scope.tenant, key="gift.wrap") if e.action == "demote"]
    assert event.details["decision"] == "demoted" and event.reason == "rarely relevant"
    demote(store, mine(scope), "user:42", "gift.wrap", weight=1, actor="ops", reason="back")
    assert {m.weight for m in recall(store, mine(scope), "user:42")} == {1.0}


def test_demotions_at_one_instant_hold_in_the_order_they_were_taken(
    store: Store, scope: Scope,
) -> None:
    # The pinned clock does not move: events of one instant came back in random id order,
    # so the weight read was any of the instant's demotions, not the last one taken.
    three(store, scope)
    taken = [0.2, 1.0, 0.5, 0.9, 0.1, 1.0, 0.3, 0.7]
    for weight in taken:
        demote(store, mine(scope), "user:42", "gift.wrap", weight=weight, actor="ops",
               reason=f"to {weight}")
        (now,) = recall(store, mine(scope), "user:42", "gift.wrap")
        assert now.weight == weight
    logged = [e for e in audit(store, scope.tenant, key="gift.wrap") if e.action == "demote"]
    assert [e.details["weight"] for e in logged] == taken
    assert [e.details["previous"] for e in logged] == [1.0, *taken[:-1]]


def test_a_weight_is_read_as_of_an_instant(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    three(store, scope)
    clock.advance(minutes=1)
    earlier = clock.now
    clock.advance(minutes=1)
    demote(store, mine(scope), "user:42", "language", weight=0.0, actor="ops", reason="stale")
    (then,) = recall(store, mine(scope), "user:42", "language", at=earlier)
    (now,) = recall(store, mine(scope), "user:42", "language")
    assert (then.weight, now.weight) == (1.0, 0.0)


def test_a_bad_demotion_is_refused_and_writes_nothing(store: Store, scope: Scope) -> None:
    three(store, scope)
    events = len(store.events(scope.tenant))
    with pytest.raises(ValueError, match="between 0 and 1"):
        demote(store, mine(scope), "user:42", "gift.wrap", weight=1.5, actor="ops", reason="x")
    with pytest.raises(ValueError, match="reason"):
        demote(store, mine(scope), "user:42", "gift.wrap", weight=0.5, actor="ops", reason=" ")
    with pytest.raises(UnknownReference):
        demote(store, mine(scope), "user:42", "never.said", weight=0.5, actor="ops", reason="x")
    assert len(store.events(scope.tenant)) == events


def test_a_correction_starts_again_at_full_weight(store: Store, scope: Scope) -> None:
    three(store, scope)
    demote(store, mine(scope), "user:42", "language", weight=0.1, actor="ops", reason="stale")
    remember(store, memory(scope, key="language", value="fr-FR", source_id="msg-9"),
             actor=ACTOR)
    (now,) = recall(store, mine(scope), "user:42", "language")
    assert (now.value, now.weight) == ("fr-FR", 1.0)


def test_a_context_keeps_the_best_ranked_and_records_what_it_injected(
    store: Store, scope: Scope,
) -> None:
    three(store, scope)
    demote(store, mine(scope), "user:42", "gift.wrap", weight=0.3, actor="ops", reason="noise")
    built = build_context(store, mine(scope), "user:42", thread="t-1", limit=2, actor=ACTOR)
    assert sorted(m.key for m in built.memories) == ["language", "shipping.preference"]
    assert built.left_out == 1
    (event,) = [e for e in store.events(scope.tenant) if e.id == built.injection_id]
    assert (event.action, event.details["thread"], event.details["count"]) == (
        "inject", "t-1", 2)
    assert set(str(event.details["memories"]).split(",")) == {m.id for m in built.memories}
    (cut,) = [m for m in recall(store, mine(scope), "user:42") if m.key == "gift.wrap"]
    assert (event.details["considered"], event.details["left_out"]) == (3, cut.id)
    assert "ship to" not in str(event.model_dump())  # ids only, never content


def test_agent_output_echoing_an_injected_memory_names_the_context_and_adds_nothing(
    store: Store, scope: Scope,
) -> None:
    three(store, scope)
    built = build_context(store, mine(scope), "user:42", thread="t-1", actor=ACTOR)
    echo = remember(store, memory(scope, value="ship to the office", source_id="reply-1",
                                  source_kind="agent_output"), actor=ACTOR)
    assert echo.decision is Decision.DUPLICATE
    assert built.injection_id in echo.reason and "t-1" in echo.reason
    (m,) = recall(store, mine(scope), "user:42", "shipping.preference")
    assert [s.id for s in m.sources] == ["msg-0"]


def test_a_context_is_refused_without_a_thread_or_room_and_records_nothing(
    store: Store, scope: Scope,
) -> None:
    three(store, scope)
    events = len(store.events(scope.tenant))
    with pytest.raises(ValueError, match="thread"):
        build_context(store, mine(scope), "user:42", thread=" ", actor=ACTOR)
    with pytest.raises(ValueError, match="at least one"):
        build_context(store, mine(scope), "user:42", thread="t-1", limit=0, actor=ACTOR)
    assert len(store.events(scope.tenant)) == events


def test_a_user_corrects_one_memory_by_the_id_they_were_shown(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    first = remember(store, memory(scope), actor=ACTOR)
    clock.advance(minutes=1)
    before = clock.now
    clock.advance(minutes=1)
    assert first.memory_id is not None
    fixed = correct(store, scope.tenant, first.memory_id, "ship to a locker",
                    source_id="msg-2", observed_at=clock.now, actor="user:42")
    assert (fixed.decision, fixed.revision) == (Decision.ACTIVE, 2)
    assert values(recall(store, mine(scope), "user:42")) == ["ship to a locker"]
    assert values(recall(store, mine(scope), "user:42", system_at=before)) == ["ship to the office"]
    (now,) = recall(store, mine(scope), "user:42")
    assert (now.owner, now.retention_reason) == ("user:42", "user asked us to remember")
    with pytest.raises(ConflictError, match="no longer current"):  # the version they saw
        correct(store, scope.tenant, first.memory_id, "ship home", source_id="msg-3",
                observed_at=clock.now, actor="user:42")
    assert len(store.history(scope.tenant, memory(scope).assertion_key())) == 2


def test_correcting_an_unknown_or_erased_memory_is_refused(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    first = remember(store, memory(scope), actor=ACTOR)
    assert first.memory_id is not None
    with pytest.raises(UnknownReference):
        correct(store, scope.tenant, "f-nothing", "x", source_id="m", observed_at=clock.now,
                actor="user:42")
    forget(store, mine(scope), subject="user:42", key="shipping.preference", actor="user:42",
           reason="asked")
    with pytest.raises(UnknownReference):
        correct(store, scope.tenant, first.memory_id, "x", source_id="m",
                observed_at=clock.now, actor="user:42")


def state(scope: Scope, **fields: Any) -> MemoryIn:
    base: dict[str, Any] = {"kind": "task_state", "subject": "task:9", "key": "step",
                            "source_kind": "tool_result", "thread": "t-1",
                            "ttl_seconds": 400 * 86400}  # outlives the pinned clock
    base.update(fields)
    return memory(scope, **base)


def sides(store: Store, scope: Scope) -> list[tuple[Any, str]]:
    return sorted((m.value, m.status) for m in recall(
        store, Scope(tenant=scope.tenant, keys={"user": "42", "thread": "t-1"}), "task:9"))


def test_a_conflict_set_grows_with_equal_authority_and_a_user_correction_settles_it(
    store: Store, scope: Scope,
) -> None:
    tools(store, scope.tenant, "wms-1", "carrier-1", "tracker-1", "carrier-2")
    remember(store, state(scope, value="packing", source_id="wms-1"), actor=ACTOR)
    assert remember(store, state(scope, value="shipped", source_id="carrier-1"),
                    actor=ACTOR).decision is Decision.CONFLICT
    third = remember(store, state(scope, value="lost", source_id="tracker-1"), actor=ACTOR)
    assert third.decision is Decision.CONFLICT and "joins" in third.reason
    again = remember(store, state(scope, value="shipped", source_id="carrier-2"), actor=ACTOR)
    assert again.decision is Decision.CONFLICT and "support added" in again.reason
    assert sides(store, scope) == [("lost", "conflicted"), ("packing", "conflicted"),
                                   ("shipped", "conflicted")]
    (open_set,) = review(store, mine(scope))
    assert len(open_set.sides) == 3
    assert remember(store, state(scope, value="delivered", source_id="bot-1",
                                 source_kind="agent_output"),
                    actor=ACTOR).decision is Decision.REFUSED
    assert remember(store, state(scope, value="delivered", source_id="web-1",
                                 source_kind="unknown"), actor=ACTOR).decision is Decision.REFUSED
    settled = remember(store, state(scope, value="delivered", source_id="msg-7",
                                    source_kind="user_message"), actor=ACTOR)
    assert settled.decision is Decision.ACTIVE and "settles" in settled.reason
    assert sides(store, scope) == [("delivered", "active")]
    assert review(store, mine(scope)) == []


def test_forgetting_a_conflicted_memory_erases_every_side(store: Store, scope: Scope) -> None:
    tools(store, scope.tenant, "wms-1", "carrier-1")
    remember(store, state(scope, value="packing", source_id="wms-1"), actor=ACTOR)
    remember(store, state(scope, value="shipped", source_id="carrier-1"), actor=ACTOR)
    where = Scope(tenant=scope.tenant, keys={"user": "42", "thread": "t-1"})
    gone = forget(store, where, subject="task:9", key="step", actor="ops", reason="asked")
    assert gone.facts == 3  # the first version, its conflicted version, the challenger
    erased = store.read(AsOf(where, valid=all_time(), statuses=frozenset(Status)))
    assert erased == [] and review(store, where) == []
    assert sides(store, scope) == []


def test_a_derived_fact_never_overrides_raw_evidence(store: Store, scope: Scope) -> None:
    remember(store, memory(scope), actor=ACTOR)
    other = remember(store, memory(scope, key="gift.wrap", value="never"), actor=ACTOR)
    assert other.memory_id is not None
    with pytest.raises(StoreError, match="never overrides"):
        derive(store, mine(scope), RENDER, {"gift.wrap": other.memory_id},
               Output("user:42", "shipping.preference", MEMORY_EPOCH, None), actor=ACTOR)
    assert values(recall(store, mine(scope), "user:42", "shipping.preference")) == [
        "ship to the office"]
    assert len(store.history(scope.tenant, memory(scope).assertion_key())) == 1


def test_retracting_a_source_takes_its_support_and_the_cascade_follows(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    remember(store, memory(scope), actor=ACTOR)
    trust_source(store, scope.tenant, "doc-1", actor=ACTOR, reason="the account's KB")
    remember(store, memory(scope, source_id="doc-1", source_kind="document"), actor=ACTOR)
    remember(store, memory(scope, key="gift.wrap", value="never"), actor=ACTOR)
    summary = summarise(store, mine(scope), "user:42", actor=ACTOR)
    clock.advance(minutes=1)
    before = clock.now
    clock.advance(minutes=1)
    done = retract_source(store, mine(scope), "msg-1", actor="ops", reason="sent in error")
    (closed,) = [o for o in done.cascade if o.fact.id == summary.fact.id]
    # The summary is sealed: the report names its value opened, not its ciphertext.
    assert summary.fact.sealed and closed.fact.value == summary.fact.value
    (kept,) = recall(store, mine(scope), "user:42")
    assert (kept.key, [s.id for s in kept.sources]) == ("shipping.preference", ["doc-1"])
    assert sorted(m.key for m in recall(store, mine(scope), "user:42", system_at=before)) == [
        "gift.wrap", "shipping.preference"]
    assert store.read(AsOf(mine(scope), kinds=(FactKind.DERIVED,))) == []


def test_an_experience_needs_its_trigger_steps_and_outcome_and_is_stored_canonically(
    store: Store, scope: Scope,
) -> None:
    shape = {"kind": "experience", "subject": "agent:billing", "key": "refund.procedure",
             "source_kind": "agent_output", "owner": "team:billing"}
    loose = memory(scope, **shape, source_id="run-0", value="refund to the card")
    assert "trigger" in remember(store, loose, actor=ACTOR).reason
    partial = memory(scope, **shape, source_id="run-0",
                     value=json.dumps({"trigger": "a refund request", "steps": []}))
    refusal = remember(store, partial, actor=ACTOR)
    assert refusal.decision is Decision.REFUSED
    assert "outcome" in refusal.reason and "steps" in refusal.reason
    first = memory(scope, **shape, source_id="run-1", value=REFUND)
    assert remember(store, first, actor=ACTOR).decision is Decision.CANDIDATE
    reordered = json.dumps(dict(reversed(list(json.loads(REFUND).items()))), indent=2)
    again = remember(store, memory(scope, **shape, source_id="run-1", value=reordered),
                     actor=ACTOR)
    assert again.decision is Decision.DUPLICATE  # one experience, one text
    (stored,) = recall(store, mine(scope), "agent:billing", candidates=True)
    assert json.loads(str(stored.value))["steps"] == ["check the order",
                                                      "refund to the original card"]


def test_a_write_observed_before_the_current_version_is_refused_and_changes_nothing(
    store: Store, scope: Scope,
) -> None:
    remember(store, memory(scope, observed_at="2026-05-02T10:00:00Z"), actor=ACTOR)
    late = remember(store, memory(scope, value="ship home", source_id="msg-0",
                                  observed_at="2026-05-01T09:00:00Z"), actor=ACTOR)
    assert late.decision is Decision.REFUSED and "out-of-order" in late.reason
    assert values(recall(store, mine(scope), "user:42")) == ["ship to the office"]
    assert len(store.history(scope.tenant, memory(scope).assertion_key())) == 1


def test_a_memory_written_again_after_an_invalidation_is_a_new_revision_history_kept(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    first = remember(store, memory(scope), actor=ACTOR)
    clock.advance(minutes=1)
    invalidate_memory(store, mine(scope), "user:42", "shipping.preference", actor="ops",
                      reason="wrong")
    again = remember(store, memory(scope, source_id="msg-2",
                                   observed_at="2026-05-02T10:00:00Z"), actor=ACTOR)
    assert (again.decision, again.revision) == (Decision.ACTIVE, 2)
    assert again.memory_id != first.memory_id
    history = store.history(scope.tenant, memory(scope).assertion_key())
    assert [(f.revision, f.invalidated_at is None) for f in history] == [(1, False), (2, True)]
