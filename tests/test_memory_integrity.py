"""Agent memory stays writable and honest (issue 11, points 7-9): a key written again after an
exit lands as the next revision; observed times outside a sane range are refused; one source
says one thing about a memory. Both backends."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.factories import ACTOR, PinnedClock, memory, mine, run, values
from vintage.graph.core.errors import UserError
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import parse_instant
from vintage.graph.memory.amend import correct
from vintage.graph.memory.gate import Decision
from vintage.graph.memory.remember import invalidate_memory, remember
from vintage.graph.store.protocol import Store
from vintage.graph.writes.corrections import retract_source
from vintage.queries.memory.recall import audit, recall

KEY = "shipping.preference"
SAID = ["--source-kind", "user_message", "--owner", "user:42", "--reason", "asked us to remember",
        "--user", "42"]


def a_then_b(store: Store, scope: Scope, clock: PinnedClock) -> None:
    remember(store, memory(scope, value="A"), actor=ACTOR)
    clock.advance(minutes=1)
    remember(store, memory(scope, value="B", source_id="msg-2",
                           observed_at="2026-05-02T10:00:00Z"), actor=ACTOR)
    clock.advance(minutes=1)


# -- point 7: a key never becomes unwritable ---------------------------------------------------

@pytest.mark.parametrize("exit_", ["invalidate the key", "retract the correction's source"])
def test_a_write_after_the_key_was_invalidated_lands_as_the_next_revision(
    store: Store, scope: Scope, clock: PinnedClock, exit_: str,
) -> None:
    a_then_b(store, scope, clock)
    if exit_ == "invalidate the key":
        invalidate_memory(store, mine(scope), "user:42", KEY, actor="ops", reason="wrong")
    else:
        retract_source(store, mine(scope), "msg-2", actor="ops", reason="sent in error")
    clock.advance(minutes=1)
    key = memory(scope).assertion_key()
    top = max(f.revision for f in store.history(scope.tenant, key))
    done = remember(store, memory(scope, value="C", source_id="msg-3",
                                  observed_at="2026-05-03T10:00:00Z"), actor=ACTOR)
    assert (done.decision, done.revision) == (Decision.ACTIVE, top + 1)
    assert values(recall(store, mine(scope), "user:42", KEY)) == ["C"]
    early = recall(store, mine(scope), "user:42", KEY, at=parse_instant("2026-05-01T12:00:00Z"))
    assert values(early) == ["A"]  # the history before the exit is untouched


def test_after_an_invalidation_the_old_chain_stays_closed_where_it_was(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    a_then_b(store, scope, clock)
    invalidate_memory(store, mine(scope), "user:42", KEY, actor="ops", reason="wrong")
    remember(store, memory(scope, value="C", source_id="msg-3",
                           observed_at="2026-05-03T10:00:00Z"), actor=ACTOR)
    between = parse_instant("2026-05-02T12:00:00Z")  # B's time: B is no longer held
    assert recall(store, mine(scope), "user:42", KEY, at=between) == []
    late = remember(store, memory(scope, value="D", source_id="msg-4",
                                  observed_at="2026-05-02T11:00:00Z"), actor=ACTOR)
    assert late.decision is Decision.REFUSED and "out-of-order" in late.reason


def test_remember_after_invalidate_from_the_command_line_is_revision_three(
    store_args: list[str],
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    where = ["user:42", KEY]
    for n, value in enumerate(["A", "B"], start=1):
        code, _, err = run([*store_args, "remember", "preference", *where, value, *SAID,
                            "--source-id", f"msg-{n}", "--observed-at", f"2026-05-0{n}"],
                           capsys, monkeypatch)
        assert code == 0, err
    code, _, err = run([*store_args, "invalidate", *where, "--reason", "wrong", "--user", "42"],
                       capsys, monkeypatch)
    assert code == 0, err
    code, out, err = run([*store_args, "remember", "preference", *where, "C", *SAID,
                          "--source-id", "msg-3", "--observed-at", "2026-05-03", "--json"],
                         capsys, monkeypatch)
    assert code == 0, err
    assert '"revision": 3' in out and '"decision": "active"' in out


# -- point 8: observed times in a sane range ----------------------------------------------------

@pytest.mark.parametrize(("observed", "bound"), [
    ("2099-01-01T00:00:00Z", "clock skew"), ("9999-12-31T00:00:00Z", "clock skew"),
    ("0001-01-01T00:00:00Z", "1900-01-01"), ("1899-12-31T23:59:59Z", "1900-01-01"),
])
def test_an_observed_time_out_of_range_is_refused_and_the_memory_stays_correctable(
    store: Store, scope: Scope, clock: PinnedClock, observed: str, bound: str,
) -> None:
    remember(store, memory(scope, value="A"), actor=ACTOR)
    with pytest.raises(UserError, match=rf"observed_at.*{bound}"):
        remember(store, memory(scope, value="B", source_id="msg-2", observed_at=observed),
                 actor=ACTOR)
    assert values(recall(store, mine(scope), "user:42", KEY)) == ["A"]
    fixed = remember(store, memory(scope, value="C", source_id="msg-3",
                                   observed_at=clock.now.isoformat()), actor=ACTOR)
    assert fixed.decision is Decision.ACTIVE
    assert values(recall(store, mine(scope), "user:42", KEY)) == ["C"]


def test_the_clock_skew_allowed_into_the_future_is_five_minutes_unless_configured(
    store: Store, scope: Scope, clock: PinnedClock, monkeypatch: pytest.MonkeyPatch,
) -> None:
    soon = memory(scope, observed_at=(clock.now + timedelta(minutes=4)).isoformat())
    later = memory(scope, source_id="msg-2",
                   observed_at=(clock.now + timedelta(minutes=6)).isoformat())
    assert remember(store, soon, actor=ACTOR).decision is Decision.ACTIVE
    with pytest.raises(UserError, match="observed_at"):
        remember(store, later, actor=ACTOR)
    assert remember(store, later, actor=ACTOR, clock_skew=timedelta(minutes=10)).decision \
        is Decision.DUPLICATE  # the same value from another source: support added
    monkeypatch.setenv("VINTAGE_CLOCK_SKEW", "30")
    with pytest.raises(UserError, match=r"observed_at.*clock skew of 30 s"):
        remember(store, memory(scope, source_id="msg-3", value="X", observed_at=(
            clock.now + timedelta(minutes=1)).isoformat()), actor=ACTOR)


def test_a_correction_observed_in_the_future_is_refused(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    first = remember(store, memory(scope), actor=ACTOR)
    assert first.memory_id is not None
    with pytest.raises(UserError, match="observed_at"):
        correct(store, scope.tenant, first.memory_id, "ship home", source_id="msg-2",
                observed_at=parse_instant("2099-01-01"), actor=ACTOR)


@pytest.mark.parametrize("observed", ["9999-12-31T23:00:00-05:00", "0001-01-01T00:00:00+05:00",
                                      "2099-01-01"])
def test_an_observed_time_out_of_range_is_a_one_line_error_on_the_command_line(
    store_args: list[str], observed: str,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run([*store_args, "remember", "preference", "user:42", KEY, "A", *SAID,
                          "--source-id", "msg-1", "--observed-at", observed],
                         capsys, monkeypatch)
    assert code == 2 and "observed_at" in err and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err + out and "internal error" not in err


# -- point 9: one source says one thing --------------------------------------------------------

def test_the_same_source_with_another_value_is_refused_not_a_correction(
    store: Store, scope: Scope,
) -> None:
    first = remember(store, memory(scope), actor=ACTOR)
    again = remember(store, memory(scope, value="ship to my home"), actor=ACTOR)
    assert again.decision is Decision.REFUSED
    assert "source msg-1 already said another value (revision 1)" in again.reason
    assert "ship to" not in again.reason  # the earlier value is never handed back
    assert again.memory_id == first.memory_id
    assert values(recall(store, mine(scope), "user:42", KEY)) == ["ship to the office"]
    assert "ship to" not in str([e.model_dump() for e in audit(store, scope.tenant)])


def test_a_true_retry_stays_idempotent_even_after_a_later_correction(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    remember(store, memory(scope), actor=ACTOR)
    clock.advance(minutes=1)
    fixed = remember(store, memory(scope, value="ship home", source_id="msg-2",
                                   observed_at="2026-05-02T10:00:00Z"), actor=ACTOR)
    retried = remember(store, memory(scope), actor=ACTOR)  # msg-1 delivered once more
    assert retried.decision is Decision.DUPLICATE and retried.memory_id == fixed.memory_id
    changed = remember(store, memory(scope, value="ship to a locker"), actor=ACTOR)
    assert changed.decision is Decision.REFUSED and "msg-1 already said" in changed.reason
    assert values(recall(store, mine(scope), "user:42", KEY)) == ["ship home"]


def test_a_refusal_never_echoes_what_the_source_said_when_it_was_sensitive(
    store: Store, scope: Scope,
) -> None:
    secret = "my SSN is 123-45-6789"
    remember(store, memory(scope, key="id.ssn", value=secret, consent=True), actor=ACTOR)
    again = remember(store, memory(scope, key="id.ssn", value="none"), actor=ACTOR)
    assert again.decision is Decision.REFUSED and "msg-1 already said" in again.reason
    assert "123-45-6789" not in again.reason


def test_the_same_source_with_another_value_is_refused_on_the_command_line(
    store_args: list[str],
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    said = [*SAID, "--source-id", "msg-1", "--observed-at", "2026-05-01"]
    code, _, err = run([*store_args, "remember", "preference", "user:42", KEY, "A", *said],
                       capsys, monkeypatch)
    assert code == 0, err
    code, out, _ = run([*store_args, "remember", "preference", "user:42", KEY, "B", *said],
                       capsys, monkeypatch)
    assert code == 3 and "source msg-1 already said another value" in out
    assert "'A'" not in out
