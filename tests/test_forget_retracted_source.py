"""Forgetting a source after it was retracted, on both backends (issue 12, point 9).

A retracted support edge still records that the source said it: erasure by source follows
every support edge the source ever had, live or not, so a retraction followed by ``forget
--source`` leaves the text in no system instant's recall, no summary, and (embedded) no byte
of the log. Each test first finds the text where it later finds it gone."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.factories import ACTOR, PinnedClock, mine, run, values
from tests.test_memory_erase import occurrences, remembered, summaries
from vintage.graph.core.model import Scope
from vintage.graph.memory.forget import forget
from vintage.graph.store.protocol import Store
from vintage.queries.lineage.retraction import retract
from vintage.queries.memory.recall import recall
from vintage.queries.memory.summaries import summarise

SAID = "ship to 221B Baker Street please"


def recalled_at_every_instant(store: Store, scope: Scope, instants: list[datetime]) -> set[str]:
    return {str(v) for t in instants for v in values(recall(
        store, mine(scope), "user:42", system_at=t))}


def said_by_both(store: Store, scope: Scope, clock: PinnedClock) -> None:
    """One memory said by two messages, msg-1 and msg-2; a minute passes."""
    for message in ("msg-1", "msg-2"):
        remembered(store, scope, key="gift.wrap", value="yes, wrap it", source_id=message)
    clock.advance(minutes=1)


def test_a_retracted_source_forgotten_leaves_its_text_at_no_system_instant(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    remembered(store, scope, value=SAID, consent=True)
    summarise(store, mine(scope), "user:42", actor=ACTOR)
    before = clock.now
    retracted = clock.advance(minutes=1)
    retract(store, scope, "msg-1", reason="withdrawn", actor=ACTOR)
    clock.advance(minutes=1)
    assert recalled_at_every_instant(store, scope, [before]) == {SAID}
    assert occurrences(store, scope.tenant, SAID) >= 2  # the memory and its summary
    gone = forget(store, mine(scope), source_id="msg-1", actor=ACTOR, reason="erase request")
    clock.advance(minutes=1)
    assert (gone.facts, gone.derived) == (1, 1)
    assert recalled_at_every_instant(store, scope, [before, retracted, clock.now]) == set()
    assert summaries(store, mine(scope)) == []
    assert occurrences(store, scope.tenant, SAID) == 0


def test_every_retraction_of_a_source_is_followed_not_only_the_latest(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    remembered(store, scope, value="first: 10 Downing Street", consent=True)
    first = clock.now
    clock.advance(minutes=1)
    retract(store, scope, "msg-1", reason="withdrawn", actor=ACTOR)
    clock.advance(minutes=1)
    remembered(store, scope, key="gift.wrap", value="second: 1 Infinite Loop", consent=True)
    second = clock.now
    clock.advance(minutes=1)
    retract(store, scope, "msg-1", reason="withdrawn again", actor=ACTOR)
    clock.advance(minutes=1)
    texts = {"first: 10 Downing Street", "second: 1 Infinite Loop"}
    assert recalled_at_every_instant(store, scope, [first, second]) == texts
    gone = forget(store, mine(scope), source_id="msg-1", actor=ACTOR, reason="erase request")
    assert gone.facts == 2
    assert recalled_at_every_instant(store, scope, [first, second, clock.now]) == set()
    assert all(occurrences(store, scope.tenant, text) == 0 for text in texts)


def test_what_another_source_also_said_stays_when_a_retracted_source_is_forgotten(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    said_by_both(store, scope, clock)
    retract(store, scope, "msg-1", reason="withdrawn", actor=ACTOR)
    clock.advance(minutes=1)
    gone = forget(store, mine(scope), source_id="msg-1", actor=ACTOR, reason="erase request")
    assert (gone.facts, gone.kept, gone.released) == (0, 1, 0)  # msg-2 still holds it
    assert values(recall(store, mine(scope), "user:42", "gift.wrap")) == ["yes, wrap it"]


def test_retract_then_forget_by_source_from_the_command_line_erases_the_memory(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, _, err = run([*store_args, "remember", "preference", "user:42", "shipping.preference",
                        SAID,
                        "--source-kind", "user_message", "--source-id", "m1",
                        "--observed-at", "2026-05-01T10:00:00Z", "--owner", "user:42",
                        "--reason", "asked", "--user", "42", "--consent"], capsys, monkeypatch)
    assert code == 0, err
    code, _, err = run([*store_args, "retract", "--source", "m1", "--reason", "withdrawn"],
                       capsys, monkeypatch)
    assert code == 0, err
    code, out, err = run([*store_args, "forget", "--source", "m1", "--reason", "erase it"],
                         capsys, monkeypatch)
    assert code == 0, err
    assert "erased 1 facts and 0 derived from them (by source); kept 0 another source" in out


def test_what_rested_on_the_forgotten_source_alone_once_the_other_was_retracted_is_not_held(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    # Not erased (another source said it too), but no live support is left: as a retraction
    # of the forgotten source would, the memory stops being held from then on.
    said_by_both(store, scope, clock)
    retract(store, scope, "msg-2", reason="withdrawn", actor=ACTOR)
    assert values(recall(store, mine(scope), "user:42", "gift.wrap")) == ["yes, wrap it"]
    before = clock.advance(minutes=1)
    clock.advance(minutes=1)
    gone = forget(store, mine(scope), source_id="msg-1", actor=ACTOR, reason="erase request")
    assert (gone.facts, gone.kept, gone.released) == (0, 1, 1)
    assert values(recall(store, mine(scope), "user:42", "gift.wrap")) == []
    assert values(recall(store, mine(scope), "user:42", "gift.wrap",
                         system_at=before)) == ["yes, wrap it"]  # history kept
