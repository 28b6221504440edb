"""Every listing is also CSV (issue 39): ``memories``, ``audit``, ``review`` and ``keys list``
with ``--format csv`` print a header row, then a row per line of the table, a cell holding a
comma quoted, Chinese text as it is; an empty listing is its header alone; ``--json`` with
``--format csv`` is refused in one line."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.factories import run

SAID = ["--source-kind", "user_message", "--observed-at", "2026-05-01T10:00:00Z",
        "--owner", "user:42", "--reason", "用户要求记住, asked", "--user", "42"]
OFFICE = "寄到公司, 三楼前台"  # a comma inside Chinese text: quoted, kept as written


def rows(out: str) -> tuple[list[str], list[dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(out))
    return list(reader.fieldnames or []), list(reader)


@pytest.fixture
def remembered(store_args: list[str], capsys: pytest.CaptureFixture[str],
               monkeypatch: pytest.MonkeyPatch) -> list[str]:
    code, _, err = run([*store_args, "remember", "preference", "user:42", "shipping.preference",
                        OFFICE, "--source-id", "msg-1", *SAID], capsys, monkeypatch)
    assert code == 0, err
    return store_args


def test_memories_as_csv_are_a_header_and_a_row_per_memory_with_commas_quoted(
    remembered: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run([*remembered, "memories", "user:42", "--user", "42", "--format", "csv"],
                         capsys, monkeypatch)
    assert code == 0, err
    header, found = rows(out)
    assert header == ["id", "subject", "key", "value", "kind", "status", "revision", "scope",
                      "sources", "valid_from", "valid_to", "known_from", "known_until",
                      "expires_at", "owner", "retention_reason"]
    (memory,) = found
    assert (memory["key"], memory["value"], memory["status"], memory["revision"]) == (
        "shipping.preference", OFFICE, "active", "1")
    assert (memory["sources"], memory["retention_reason"]) == (
        "user_message:msg-1", "用户要求记住, asked")
    assert (memory["known_from"][:4], memory["known_until"], memory["expires_at"]) == (
        "2026", "", "")  # open ends are empty
    assert f'"{OFFICE}"' in out and "│" not in out  # quoted; no table drawing


def test_audit_as_csv_has_an_events_details_as_json_and_never_its_content(
    remembered: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run([*remembered, "audit", "--subject", "user:42", "--format", "csv"],
                         capsys, monkeypatch)
    assert code == 0, err
    header, found = rows(out)
    assert header == ["id", "at", "actor", "action", "reason", "details"]
    (event,) = found
    assert json.loads(event["details"])["decision"] == "active"
    assert "三楼" not in out


def test_review_as_csv_has_a_row_per_side_of_each_open_conflict(
    store_args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    tool = ["--source-kind", "tool_result", "--source-version", "v3", "--observed-at",
            "2026-05-01T10:00:00Z", "--owner", "ops", "--reason", "account data", "--user", "42"]
    for registered in ("crm-1", "billing-1"):
        run([*store_args, "tools", "register", registered], capsys, monkeypatch)
    for value, source in (("enterprise, annual", "crm-1"), ("团队版", "billing-1")):
        run([*store_args, "remember", "fact", "account:7", "plan", value, "--source-id", source,
             *tool], capsys, monkeypatch)
    code, out, err = run([*store_args, "review", "--user", "42", "--format", "csv"], capsys,
                         monkeypatch)
    assert code == 0, err
    header, found = rows(out)
    assert header == ["entry", "subject", "key", "scope", "id", "value", "known_from", "why"]
    assert sorted((r["entry"], r["subject"], r["key"], r["value"]) for r in found) == [
        ("conflict", "account:7", "plan", "enterprise, annual"),
        ("conflict", "account:7", "plan", "团队版")]
    assert '"enterprise, annual"' in out


def test_keys_list_as_csv_names_each_key_never_its_secret_and_empty_is_the_header(
    store_args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, _ = run([*store_args, "keys", "list", "--format", "csv"], capsys, monkeypatch)
    assert (code, out) == (0, "key_id,role,user,project,name,created_at,created_by,revoked_at,"
                              "revoked_by,active\n")
    # A key's fields hold no comma or Chinese text (a name is letters, digits and _.:@/-).
    code, out, err = run([*store_args, "keys", "create", "--role", "reader", "--user", "42",
                          "--name", "ops-reader", "--json"], capsys, monkeypatch)
    assert code == 0, err
    secret = json.loads(out)["key"]
    code, out, err = run([*store_args, "keys", "list", "--format", "csv"], capsys, monkeypatch)
    assert code == 0, err
    _, found = rows(out)
    (key,) = found
    assert (key["role"], key["user"], key["name"], key["revoked_at"], key["active"]) == (
        "reader", "42", "ops-reader", "", "True")
    assert secret not in out and secret.split(".")[-1] not in out


def test_a_listing_asked_for_as_json_and_csv_at_once_is_refused_in_one_line(
    remembered: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    for command in (["memories", "user:42", "--user", "42"], ["audit"], ["review"],
                    ["keys", "list"]):
        code, out, err = run([*remembered, *command, "--json", "--format", "csv"], capsys,
                             monkeypatch)
        assert (code, out) == (2, ""), command
        assert "give --json or --format csv, not both" in " ".join(err.split()), command
