"""Experience promotion counts failures, and every outcome names who reported it (issue 11,
point 13). Both backends."""

from __future__ import annotations

import json

import pytest

from tests.factories import ACTOR, REFUND, PinnedClock, memory, run
from vintage.graph.core.model import Scope
from vintage.graph.memory.gate import Decision, MemoryIn
from vintage.graph.memory.promotion import outcome, promote, tally
from vintage.graph.memory.remember import remember
from vintage.graph.store.protocol import Store
from vintage.queries.memory.recall import audit

SAID = ["--source-kind", "agent_output", "--observed-at", "2026-05-01T10:00:00Z",
        "--owner", "team:billing", "--reason", "learned on the job", "--user", "42"]


def refund(scope: Scope, **fields: object) -> MemoryIn:
    return memory(scope, kind="experience", subject="agent:billing", key="refund.procedure",
                  value=fields.pop("value", REFUND),
                  source_kind=fields.pop("source_kind", "agent_output"),
                  source_id=fields.pop("source_id", "run-1"), owner="team:billing", **fields)


def report(store: Store, exp: MemoryIn, clock: PinnedClock, results: dict[str, bool],
           reporter: str = "agent:billing") -> None:
    for task, succeeded in results.items():
        outcome(store, exp, task=task, succeeded=succeeded, at=clock.now, actor=ACTOR,
                reporter=reporter)


def test_failed_outcomes_count_against_promotion(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    exp = refund(scope)
    remember(store, exp, actor=ACTOR)
    report(store, exp, clock, {"t-1": True, "t-2": True, "t-3": False})
    refused = promote(store, exp, actor=ACTOR)  # two successes, but one task in three failed
    assert refused.decision is Decision.REFUSED
    assert "2 succeeded, 1 failed" in refused.reason and "75%" in refused.reason
    lenient = promote(store, exp, actor=ACTOR, min_success_rate=0.6)
    assert lenient.decision is Decision.ACTIVE


def test_an_experience_that_fails_more_than_it_succeeds_is_never_promoted(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    exp = refund(scope)
    remember(store, exp, actor=ACTOR)
    report(store, exp, clock, {f"ok-{n}": True for n in range(3)})
    report(store, exp, clock, {f"bad-{n}": False for n in range(4)})
    assert promote(store, exp, actor=ACTOR).decision is Decision.REFUSED


def test_repeating_a_report_never_moves_the_tally(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    exp = refund(scope)
    remember(store, exp, actor=ACTOR)
    for _ in range(3):
        report(store, exp, clock, {"t-1": True, "t-2": False})
        clock.advance(minutes=1)
    seen = tally(store, scope.tenant, exp.assertion_key())
    assert (seen.succeeded, seen.failed) == (1, 1)


def test_each_outcome_records_who_reported_it(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    exp = refund(scope)
    remember(store, exp, actor=ACTOR)
    report(store, exp, clock, {"t-1": True}, reporter="agent:billing")
    report(store, exp, clock, {"t-2": False}, reporter="ops:carol")
    told = {(e.details.get("task"), e.details.get("result"), e.details.get("reporter"))
            for e in audit(store, scope.tenant, subject="agent:billing")}
    assert {("t-1", "succeeded", "agent:billing"), ("t-2", "failed", "ops:carol")} <= told


def test_a_corrected_experience_starts_its_tally_afresh(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    exp = refund(scope)
    remember(store, exp, actor=ACTOR)
    report(store, exp, clock, {"t-1": True, "t-2": True})
    clock.advance(minutes=1)
    better = refund(scope, source_kind="user_message", source_id="msg-2",
                    observed_at=clock.now.isoformat(),
                    value=REFUND.replace("check the order", "check the order and the card"))
    assert remember(store, better, actor=ACTOR).decision is Decision.CANDIDATE
    assert tally(store, scope.tenant, better.assertion_key()).succeeded == 0
    clock.advance(minutes=1)
    report(store, better, clock, {"t-1": True})  # the same task, on the new procedure
    assert tally(store, scope.tenant, better.assertion_key()).succeeded == 1


def test_outcomes_and_promotion_from_the_command_line_count_failures_and_name_the_reporter(
    store_args: list[str],
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, _, err = run([*store_args, "remember", "experience", "agent:billing", "refund", REFUND,
                        "--source-id", "run-1", *SAID], capsys, monkeypatch)
    assert code == 0, err
    where = ["agent:billing", "refund", "--user", "42", "--json"]
    for task in ("t-1", "t-2"):
        run([*store_args, "outcome", *where, "--task", task], capsys, monkeypatch)
    code, out, err = run([*store_args, "outcome", *where, "--task", "t-3", "--failed",
                          "--reporter", "ops:carol"], capsys, monkeypatch)
    assert code == 0, err
    assert (json.loads(out)["validated_tasks"], json.loads(out)["failed_tasks"]) == (2, 1)
    code, out, _ = run([*store_args, "promote", *where], capsys, monkeypatch)
    assert code == 3 and "1 failed" in json.loads(out)["reason"]
    code, out, _ = run([*store_args, "promote", *where, "--min-success-rate", "0.6"], capsys,
                       monkeypatch)
    assert code == 0 and json.loads(out)["decision"] == "active"
    code, out, _ = run([*store_args, "audit", "--subject", "agent:billing", "--json"], capsys,
                       monkeypatch)
    assert {"t-3": "ops:carol"}.items() <= {
        e["details"]["task"]: e["details"]["reporter"]
        for e in json.loads(out) if "task" in e["details"]}.items()
