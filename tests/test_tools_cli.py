"""``vintage tools`` and the reads that require authority, on the command line (issue 40), on
both backends: a result of a tool the tenant did not register is a candidate; ``--risk`` and
``--min-authority`` leave out what holds less and refuse, naming what was missing."""

from __future__ import annotations

import json

import pytest

from tests.factories import run

CLAIM = ["remember", "fact", "policy:returns", "refund.window", "7 days full refund",
         "--source-kind", "tool_result", "--source-id", "call-7781", "--tool", "refund-oracle",
         "--tool-version", "v2", "--owner", "ops", "--reason", "policy", "--observed-at",
         "2026-05-01T10:00:00Z", "--project", "returns", "--json"]
GUESS = ["remember", "task_state", "task:1182", "refund.status",
         "refund of 240 euros approved", "--source-kind", "agent_output", "--source-id",
         "plan-4", "--owner", "ops", "--reason", "planning", "--observed-at",
         "2026-05-01T10:00:00Z", "--ttl", "34560000", "--project", "returns",
         "--thread", "refund-1182"]


def test_a_made_up_tool_is_held_until_the_tenant_registers_it(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, _ = run([*store_args, *CLAIM], capsys, monkeypatch)
    assert code == 0 and json.loads(out)["decision"] == "candidate"
    assert "tool refund-oracle is not registered" in json.loads(out)["reason"]
    code, out, _ = run([*store_args, "tools", "register", "refund-oracle", "--version", "v2",
                        "--reason", "the policy tool"], capsys, monkeypatch)
    assert code == 0 and out.startswith("registered tool refund-oracle version v2 (event e")
    code, out, _ = run([*store_args, "tools", "list"], capsys, monkeypatch)
    assert out.strip() == "refund-oracle  version v2  reported by any writer"
    again = [*CLAIM[:3], "refund.days", *CLAIM[4:8], "call-2", *CLAIM[9:]]
    code, out, _ = run([*store_args, *again], capsys, monkeypatch)
    assert code == 0 and json.loads(out)["decision"] == "active"
    code, out, err = run([*store_args, "tools", "unregister", "refund-oracle"], capsys,
                         monkeypatch)
    assert code == 2 and err.strip() == "error: tool refund-oracle is not registered"
    code, _, err = run([*store_args, *CLAIM, "--source-version", "v3"], capsys, monkeypatch)
    assert code == 2 and "one version" in err and len(err.strip().splitlines()) == 1


def test_risk_and_min_authority_leave_out_a_guess_and_refuse_naming_the_authority(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert run([*store_args, *GUESS], capsys, monkeypatch)[0] == 0
    scope = ["--project", "returns", "--thread", "refund-1182"]
    code, out, _ = run([*store_args, "search", "refund approved", *scope, "--risk", "low",
                        "--json"], capsys, monkeypatch)
    assert [r["value"] for r in json.loads(out)["results"]] == ["refund of 240 euros approved"]
    code, out, _ = run([*store_args, "search", "refund approved", *scope, "--risk", "high"],
                       capsys, monkeypatch)
    assert code == 0 and "1 below the required authority" in out
    assert ("refused: nothing here holds the authority this read requires: authoritative or "
            "above") in out and "240" not in out
    code, out, err = run([*store_args, "context", "--query", "refund approved", "--budget",
                          "400", *scope, "--min-authority", "approved_summary"], capsys,
                         monkeypatch)
    assert code == 0 and "240" not in out
    assert "(none: nothing holds approved_summary or above)" in out
    assert "refused: nothing here holds" in err
    code, out, _ = run([*store_args, "memories", "task:1182", *scope, "--risk", "medium",
                        "--json"], capsys, monkeypatch)
    assert json.loads(out) == []
    code, _, err = run([*store_args, "search", "refund", *scope, "--risk", "extreme"], capsys,
                       monkeypatch)
    assert code == 2 and err.strip() == "error: risk 'extreme': one of low, medium, high"
