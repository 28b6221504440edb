"""What a memory command says is what it did: a rollback is found by the subjects it changed, a
context without a scope is refused as documented, a success reported on a task is not called a
duplicate, and refusing to promote a preference does not talk about task successes. The command
line on both backends; HTTP and MCP where the path exists."""

from __future__ import annotations

import json

import pytest

from tests.factories import REFUND, run
from tests.http_api import Api, problem_of
from tests.test_mcp import key_of, over_mcp, text
from vintage.graph.retrieval.embedder import minilm
from vintage.graph.store.protocol import Store
from vintage.mcp.server import build_server

SAID = ["--source-kind", "user_message", "--observed-at", "2026-05-01T10:00:00Z",
        "--owner", "user:42", "--reason", "asked us to remember", "--user", "42"]
NO_SCOPE = ("a context names its scope: give --user, --project or --thread (a tenant-wide "
            "read is an explicit --all-scopes, and is audited)")


def vm(store_args: list[str], capsys: pytest.CaptureFixture[str],
       monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    return run([*store_args, *args], capsys, monkeypatch)


def test_a_rollback_is_found_by_the_subjects_it_changed(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    vm(store_args, capsys, monkeypatch, "remember", "preference", "user:42", "gift.wrap",
       "never", "--source-id", "msg-1", *SAID)
    code, _, err = vm(store_args, capsys, monkeypatch, "rollback", "--to",
                      "2026-05-01T09:00:00Z", "--reason", "bad batch", "--user", "42")
    assert code == 0, err
    code, out, _ = vm(store_args, capsys, monkeypatch, "audit", "--subject", "user:42",
                      "--json")
    (event,) = [e for e in json.loads(out) if e["action"] == "rollback"]
    assert json.loads(event["details"]["subjects"]) == ["user:42"]
    assert "never" not in json.dumps(event) and "gift.wrap" not in json.dumps(event)
    code, out, _ = vm(store_args, capsys, monkeypatch, "audit", "--subject", "user:7",
                      "--json")
    assert [e for e in json.loads(out) if e["action"] == "rollback"] == []


def test_a_context_without_a_scope_is_exit_2_and_records_no_injection(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = vm(store_args, capsys, monkeypatch, "context", "--query", "shipping",
                        "--budget", "300", "--for-thread", "t-1")
    assert (code, out, err) == (2, "", f"error: {NO_SCOPE}\n")
    code, out, _ = vm(store_args, capsys, monkeypatch, "--actor", "ops:alice", "audit",
                      "--json")
    assert [e for e in json.loads(out) if e["action"] == "inject"] == []


def test_over_http_a_context_without_a_scope_is_a_400(api: Api) -> None:
    admin = api.key("admin")
    asked = api.client.post("/v1/context", json={"query": "shipping", "budget": 300},
                            headers=admin.headers)
    assert NO_SCOPE in problem_of(asked, 400, "invalid-argument")["detail"]


def test_over_mcp_a_context_without_a_scope_is_a_tool_error(store: Store, tenant: str) -> None:
    server = build_server(store, key_of(store, tenant, "admin"), minilm())
    pack = over_mcp(server, lambda c: c.call_tool("context", {"query": "x", "budget": 300}))
    assert pack.is_error and NO_SCOPE in text(pack)


def test_a_success_on_a_task_is_reported_as_counted_not_as_a_duplicate(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    said = [a if a != "42" else "x" for a in SAID]
    said[said.index("--user")] = "--project"
    vm(store_args, capsys, monkeypatch, "remember", "experience", "agent:billing", "refund",
       REFUND, "--source-id", "msg-1", *said)
    code, out, err = vm(store_args, capsys, monkeypatch, "outcome", "agent:billing", "refund",
                        "--task", "t-1", "--project", "x")
    assert code == 0, err
    assert out.startswith("candidate: succeeded on task t-1: counts toward promotion (")
    assert "duplicate" not in out and out.rstrip().endswith("validated_tasks 1; failed_tasks 0")
    code, out, _ = vm(store_args, capsys, monkeypatch, "outcome", "agent:billing", "refund",
                      "--task", "t-1", "--project", "x", "--json")
    assert json.loads(out)["decision"] == "duplicate"  # the same report again counts once
    assert json.loads(out)["validated_tasks"] == 1


def test_over_http_a_success_on_a_task_is_a_write_not_a_repeat(api: Api) -> None:
    agent = api.key("agent", project="billing", name="billing-bot")
    lesson = {"kind": "experience", "subject": "agent:billing", "key": "refunds",
              "value": REFUND, "source_kind": "agent_output", "source_id": "run-1",
              "observed_at": api.clock.now.isoformat(), "owner": "agent:billing",
              "retention_reason": "what worked"}
    assert api.client.post("/v1/memories", json=lesson, headers=agent.headers).status_code == 201
    done = api.client.post("/v1/memories/outcomes", headers=agent.headers, json={
        "subject": "agent:billing", "key": "refunds", "task": "t-1"})
    assert done.status_code == 201, done.text
    assert (done.json()["decision"], done.json()["reason"]) == (
        "candidate", "succeeded on task t-1: counts toward promotion")


def test_refusing_to_promote_a_candidate_preference_names_the_users_action_not_task_successes(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    guess = [a if a != "user_message" else "model_inference" for a in SAID]
    vm(store_args, capsys, monkeypatch, "remember", "preference", "user:42", "tone", "formal",
       "--source-id", "guess-1", *guess)
    code, out, _ = vm(store_args, capsys, monkeypatch, "promote", "user:42", "tone",
                      "--user", "42")
    assert code == 3
    assert out.startswith("refused: a candidate preference is promoted by the user's explicit "
                          "action only (--by-user --source-id MESSAGE)")
    assert "distinct tasks" not in out and "success rate" not in out
