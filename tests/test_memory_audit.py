"""Audit gaps (issue 11, point 14), on both backends: erasures and retractions are found by
subject, and carry subjects and counts, never the erased content."""

from __future__ import annotations

import json

from tests.factories import ACTOR, PinnedClock, memory, mine
from vintage.graph.core.model import Scope
from vintage.graph.memory.forget import forget
from vintage.graph.memory.remember import invalidate_memory, remember
from vintage.graph.store.protocol import Store
from vintage.queries.lineage.retraction import retract
from vintage.queries.memory.recall import audit


def test_an_audit_by_subject_finds_retractions_and_erasures_without_their_content(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    remember(store, memory(scope), actor=ACTOR)
    remember(store, memory(scope, key="gift.wrap", value="never", source_id="msg-2"),
             actor=ACTOR)
    remember(store, memory(scope, subject="user:43", user="43", owner="user:43",
                           source_id="msg-3", value="ship to my home"), actor=ACTOR)
    clock.advance(minutes=1)
    retract(store, scope, "msg-2", reason="message withdrawn", actor="ops:alice")
    clock.advance(minutes=1)  # events at one instant have no defined order
    forget(store, mine(scope), subject="user:42", key="shipping.preference", actor="ops:alice",
           reason="user asked")
    clock.advance(minutes=1)
    forget(store, scope, user="42", actor="ops:alice", reason="account deleted")
    forget(store, scope, source_id="msg-3", actor="ops:alice", reason="withdrawn")
    found = audit(store, scope.tenant, subject="user:42")
    exits = [(e.action, e.details.get("by")) for e in found if e.actor == "ops:alice"]
    assert exits == [("retract", None), ("erase", "memory"), ("erase", "user")]
    for event in found:
        if event.action in ("retract", "erase"):
            assert json.loads(str(event.details["subjects"])) == ["user:42"]
            text = str(event.model_dump())
            assert "ship to" not in text and "never" not in text and "gift.wrap" not in text
    (by_source,) = [e for e in audit(store, scope.tenant, subject="user:43")
                    if e.action == "erase"]
    assert by_source.details["by"] == "source"


def test_an_invalidation_is_found_by_the_subject_it_reached(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    remember(store, memory(scope), actor=ACTOR)
    clock.advance(minutes=1)
    invalidate_memory(store, mine(scope), "user:42", "shipping.preference", actor="ops:alice",
                      reason="wrong user")
    (event,) = [e for e in audit(store, scope.tenant, subject="user:42")
                if e.action == "invalidate"]
    assert event.actor == "ops:alice" and event.details["invalidated"] == 1
