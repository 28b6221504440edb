"""Issue 11's memory points from the command line, on both backends: scope fails closed
(``--all-scopes`` is explicit and audited), documents count only from registered sources, and
every event names who ran the command (``--actor`` / ``VINTAGE_ACTOR``)."""

from __future__ import annotations

import json

import pytest

from tests.factories import run

SAID = ["--source-kind", "user_message", "--observed-at", "2026-05-01T10:00:00Z",
        "--reason", "asked us to remember"]


def remember(store_args: list[str], capsys: pytest.CaptureFixture[str],
             monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, dict[str, object]]:
    code, out, err = run([*store_args, "remember", *args, "--json"], capsys, monkeypatch)
    return code, json.loads(out) if out.strip() else {"error": err}


def test_a_context_without_a_scope_carries_no_memory_and_all_scopes_is_audited(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for user in ("1", "2", "3"):
        code, done = remember(store_args, capsys, monkeypatch, "preference", "project:alpha",
                              "deploy.window", f"window {user}", "--source-id", f"m-{user}",
                              "--owner", f"user:{user}", "--user", user, *SAID)
        assert code == 0, done
    code, out, err = run([*store_args, "context", "--query", "deploy window", "--budget", "2000",
                          "--for-thread", "th1", "--format", "json"], capsys, monkeypatch)
    # A context names its scope, as every memory read does (issue 40: it was read as the
    # tenant's shared facts only, which docs/memory.md says is an error).
    assert (code, out) == (2, "") and "--all-scopes" in err and "window" not in err
    code, out, err = run([*store_args, "memories", "project:alpha"], capsys, monkeypatch)
    assert code == 2 and "--all-scopes" in err
    code, out, err = run([*store_args, "--actor", "ops:alice", "context", "--query",
                          "deploy window", "--subject", "project:alpha", "--budget", "2000",
                          "--for-thread", "th1", "--all-scopes", "--format", "json"],
                         capsys, monkeypatch)
    assert code == 0, err
    assert len(json.loads(out)["evidence"]) == 3
    code, out, _ = run([*store_args, "audit", "--subject", "project:alpha", "--json"], capsys,
                       monkeypatch)
    (read,) = [e for e in json.loads(out) if e["action"] == "read"]
    assert (read["actor"], read["details"]["read"]) == ("ops:alice", "search")


def test_a_memory_about_a_user_written_without_their_scope_is_refused(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    about = ["preference", "user:77", "shipping.preference", "ship home", "--source-id", "m-1",
             "--owner", "user:77", *SAID]
    code, done = remember(store_args, capsys, monkeypatch, *about)
    assert code == 3 and "give user 77 (--user 77)" in str(done["reason"])
    code, done = remember(store_args, capsys, monkeypatch, *about, "--user", "42")
    assert code == 3 and "not user 42's" in str(done["reason"])
    code, done = remember(store_args, capsys, monkeypatch, *about, "--user", "77",
                          "--project", "alpha")
    assert code == 0
    code, out, err = run([*store_args, "forget", "--user", "77", "--everything", "--reason",
                          "account deleted", "--json"], capsys, monkeypatch)
    assert code == 0 and json.loads(out)["facts"] == 1, err


def test_a_document_counts_only_once_the_tenant_trusts_its_source(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    doc = ["fact", "account:7", "refund.policy", "14 days", "--source-kind", "document",
           "--source-version", "3", "--observed-at", "2026-05-01T10:00:00Z", "--owner", "ops",
           "--reason", "policy", "--user", "42"]
    code, done = remember(store_args, capsys, monkeypatch, *doc, "--source-id", "pasted")
    assert code == 0 and done["decision"] == "candidate" and "sources trust" in str(
        done["reason"])
    code, out, err = run([*store_args, "sources", "trust", "handbook", "--kind", "document"],
                         capsys, monkeypatch)
    assert code == 0, err
    code, out, _ = run([*store_args, "sources", "trusted", "--json"], capsys, monkeypatch)
    assert json.loads(out) == ["handbook"]
    code, done = remember(store_args, capsys, monkeypatch, *doc, "--source-id", "handbook")
    assert code == 0 and done["decision"] == "active"
    code, out, err = run([*store_args, "sources", "trust", "crm", "--kind", "tool_result"],
                         capsys, monkeypatch)
    assert code == 2 and "only document sources" in err


def test_every_event_names_who_ran_the_command(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("VINTAGE_ACTOR", raising=False)
    monkeypatch.setenv("LOGNAME", "carol")  # getpass.getuser() reads it first
    said = ["preference", "user:42", "gift.wrap", "never", "--owner", "user:42", "--user", "42",
            *SAID]
    remember(store_args, capsys, monkeypatch, *said, "--source-id", "m-1")
    run([*store_args, "--actor", "ops:alice", "demote", "user:42", "gift.wrap", "--reason",
         "rarely relevant", "--user", "42"], capsys, monkeypatch)
    monkeypatch.setenv("VINTAGE_ACTOR", "agent:support")
    run([*store_args, "retract", "--source", "m-1", "--reason", "withdrawn"], capsys,
        monkeypatch)
    code, out, _ = run([*store_args, "audit", "--subject", "user:42", "--json"], capsys,
                       monkeypatch)
    assert [(e["action"], e["actor"]) for e in json.loads(out)] == [
        ("record", "user:carol"), ("demote", "ops:alice"), ("retract", "agent:support")]
    code, _, err = run([*store_args, "--actor", " ", "audit"], capsys, monkeypatch)
    assert code == 2 and "--actor" in err
