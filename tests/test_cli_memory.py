"""``vintage remember | memories | audit`` end to end, on both backends."""

from __future__ import annotations

import json

import pytest

from tests.factories import run

SAID = ["--source-kind", "user_message", "--observed-at", "2026-05-01T10:00:00Z",
        "--owner", "user:42", "--reason", "asked us to remember", "--user", "42"]


def test_remember_list_and_audit_a_users_preference(
    store_args: list[str],
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run([*store_args, "remember", "preference", "user:42",
                          "shipping.preference", "ship to the office", "--source-id", "msg-1",
                          *SAID, "--json"], capsys, monkeypatch)
    assert code == 0, err
    assert json.loads(out)["decision"] == "active"
    code, out, _ = run([*store_args, "remember", "preference", "user:42", "shipping.preference",
                        "ship to a locker", "--source-id", "reply-1", *SAID[2:],
                        "--source-kind", "agent_output", "--json"], capsys, monkeypatch)
    assert code == 3 and json.loads(out)["decision"] == "refused"
    code, out, _ = run([*store_args, "memories", "user:42", "--user", "42", "--json"], capsys,
                       monkeypatch)
    (memory,) = json.loads(out)
    assert (memory["key"], memory["value"], memory["status"]) == (
        "shipping.preference", "ship to the office", "active")
    assert memory["retention_reason"] == "asked us to remember"
    assert [s["id"] for s in memory["sources"]] == ["msg-1"]
    code, out, _ = run([*store_args, "audit", "--subject", "user:42", "--json"], capsys,
                       monkeypatch)
    events = json.loads(out)
    assert [e["details"]["decision"] for e in events] == ["active", "refused"]
    assert "ship to" not in out  # the audit trail never holds the content


def test_a_memory_missing_its_owner_is_refused_naming_the_field(
    store_args: list[str],
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    args = [a for a in SAID if a not in ("--owner", "user:42")]
    code, out, _ = run([*store_args, "remember", "preference", "user:42", "k", "v",
                        "--source-id", "m", *args], capsys, monkeypatch)
    assert code == 3 and "'owner'" in out


def test_summarise_then_forget_from_the_command_line(
    store_args: list[str],
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    run([*store_args, "remember", "preference", "user:42", "shipping.preference",
         "ship to the office", "--source-id", "msg-1", *SAID], capsys, monkeypatch)
    code, out, _ = run([*store_args, "summarise", "user:42", "--user", "42", "--json"],
                       capsys, monkeypatch)
    assert code == 0 and json.loads(out)["value"] == "shipping.preference: ship to the office"
    code, out, _ = run([*store_args, "forget", "--subject", "user:42", "--key",
                        "shipping.preference", "--user", "42", "--reason", "asked", "--json"],
                       capsys, monkeypatch)
    assert code == 0 and (json.loads(out)["facts"], json.loads(out)["derived"]) == (1, 1)
    code, out, _ = run([*store_args, "memories", "user:42", "--user", "42", "--json"], capsys,
                       monkeypatch)
    assert json.loads(out) == []


def test_review_lists_a_conflict_and_resolve_settles_it(
    store_args: list[str],
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    tool = ["--source-kind", "tool_result", "--source-version", "v3", "--observed-at",
            "2026-05-01T10:00:00Z", "--owner", "ops", "--reason", "account data", "--user", "42"]
    for registered in ("crm-1", "billing-1"):
        run([*store_args, "tools", "register", registered], capsys, monkeypatch)
    run([*store_args, "remember", "fact", "account:7", "plan", "enterprise", "--source-id",
         "crm-1", *tool], capsys, monkeypatch)
    code, out, _ = run([*store_args, "remember", "fact", "account:7", "plan", "team",
                        "--source-id", "billing-1", *tool, "--json"], capsys, monkeypatch)
    assert code == 3 and json.loads(out)["decision"] == "conflict"
    code, out, _ = run([*store_args, "review", "--user", "42", "--json"], capsys, monkeypatch)
    (open_set,) = json.loads(out)["sets"]
    assert sorted(s["value"] for s in open_set["sides"]) == ["enterprise", "team"]
    code, _, err = run([*store_args, "resolve", "account:7", "plan", "team", "--source-id",
                        "ticket-9", "--owner", "ops:alice", "--reason", "billing is right",
                        "--observed-at", "2026-05-02T10:00:00Z", "--user", "42"],
                       capsys, monkeypatch)
    assert code == 0, err
    code, out, _ = run([*store_args, "memories", "account:7", "--user", "42", "--json"], capsys,
                       monkeypatch)
    assert [(m["value"], m["status"]) for m in json.loads(out)] == [("team", "active")]


def test_a_user_corrects_by_id_demotes_and_an_agent_context_is_recorded(
    store_args: list[str],
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    for n, (key, value) in enumerate([("shipping.preference", "ship to the office"),
                                      ("gift.wrap", "never")]):
        run([*store_args, "remember", "preference", "user:42", key, value, "--source-id",
             f"msg-{n}", *SAID], capsys, monkeypatch)
    code, out, _ = run([*store_args, "memories", "user:42", "--user", "42", "--json"], capsys,
                       monkeypatch)
    shown = {m["key"]: m["id"] for m in json.loads(out)}
    code, out, err = run([*store_args, "correct", shown["shipping.preference"],
                          "ship to a locker", "--source-id", "msg-5", "--json"],
                         capsys, monkeypatch)
    assert code == 0, err
    assert (json.loads(out)["decision"], json.loads(out)["revision"]) == ("active", 2)
    code, _, err = run([*store_args, "correct", shown["shipping.preference"], "ship home",
                        "--source-id", "msg-6"], capsys, monkeypatch)
    assert code == 2 and "no longer current" in err
    code, out, err = run([*store_args, "demote", "user:42", "shipping.preference", "--weight",
                          "0.25", "--reason", "rarely relevant", "--user", "42"],
                         capsys, monkeypatch)
    assert code == 0 and "1 -> 0.25" in out, err
    code, out, _ = run([*store_args, "context", "--query", "shipping gift wrap", "--budget",
                        "2000", "--for-thread", "t-1", "--user", "42", "--format", "json"],
                       capsys, monkeypatch)
    built = json.loads(out)  # the demoted memory is still handed over, ranked lower
    assert [m["value"] for m in built["evidence"]] == ["never", "ship to a locker"]
    code, out, _ = run([*store_args, "audit", "--json"], capsys, monkeypatch)
    actions = [e["action"] for e in json.loads(out)]
    assert actions[-2:] == ["demote", "inject"] and "locker" not in out


def test_an_experience_is_validated_by_outcomes_and_promoted_from_the_command_line(
    store_args: list[str],
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    steps = json.dumps({"trigger": "a refund request", "steps": ["check", "refund"],
                        "outcome": "refunded"})
    code, out, _ = run([*store_args, "remember", "experience", "agent:billing", "refund",
                        steps, "--source-id", "run-1", *SAID[2:], "--source-kind",
                        "agent_output", "--json"], capsys, monkeypatch)
    assert json.loads(out)["decision"] == "candidate"
    where = ["agent:billing", "refund", "--user", "42", "--json"]
    code, out, _ = run([*store_args, "outcome", *where, "--task", "t-1"], capsys, monkeypatch)
    assert code == 0 and json.loads(out)["validated_tasks"] == 1
    code, out, _ = run([*store_args, "outcome", *where, "--task", "t-2", "--failed"], capsys,
                       monkeypatch)
    assert json.loads(out)["validated_tasks"] == 1
    code, out, _ = run([*store_args, "promote", *where], capsys, monkeypatch)
    assert code == 3 and "has 1" in json.loads(out)["reason"]
    for task in ("t-3", "t-4"):  # three successes in four tasks: 75%
        run([*store_args, "outcome", *where, "--task", task], capsys, monkeypatch)
    code, out, _ = run([*store_args, "promote", *where], capsys, monkeypatch)
    assert code == 0 and json.loads(out)["decision"] == "active"
    code, _, err = run([*store_args, "promote", *where, "--by-user"], capsys, monkeypatch)
    assert code == 2 and "--source-id" in err


def test_explain_and_impact_read_a_memory_only_in_its_scope_or_audited(
    store_args: list[str],
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A memory's id is a hash anyone can compute: ``explain ID`` naming no scope printed its
    value, unaudited (and ``impact --source`` the values a source said). It reads as unknown
    unless the read names a scope it lies in, or says --all-scopes, which the audit records."""
    code, out, err = run([*store_args, "remember", "preference", "user:42", "door.code", "4711",
                          "--source-id", "msg-1", *SAID, "--json"], capsys, monkeypatch)
    assert code == 0, err
    memory_id = json.loads(out)["memory"]
    for command in (["explain", memory_id], ["explain", memory_id, "--user", "43"],
                    ["impact", "--fact", memory_id]):
        code, out, err = run([*store_args, *command], capsys, monkeypatch)
        assert (code, out) == (2, "") and err.startswith(f"error: unknown fact: {memory_id}")
        assert "4711" not in err
    code, out, err = run([*store_args, "impact", "--source", "msg-1"], capsys, monkeypatch)
    assert (code, out) == (2, "") and err.startswith("error: unknown source: msg-1"), err
    code, out, err = run([*store_args, "impact", "--source", "msg-1", "--user", "42"], capsys,
                         monkeypatch)
    assert code == 0, err
    code, out, err = run([*store_args, "explain", memory_id, "--user", "42"], capsys,
                         monkeypatch)
    assert code == 0 and "4711" in out, err
    code, out, err = run([*store_args, "impact", "--fact", memory_id, "--all-scopes"], capsys,
                         monkeypatch)
    assert code == 0, err
    code, out, _ = run([*store_args, "audit", "--json"], capsys, monkeypatch)
    reads = [e for e in json.loads(out) if e["action"] == "read"]
    assert [e["details"].get("read") for e in reads] == ["impact"]
