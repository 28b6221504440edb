"""A memory value or instant nobody could have meant is refused in one line and writes nothing:
a number a 64-bit float cannot hold (it would be stored as 0 or infinity), an empty, blank,
NUL-only or invisible value, a number where a date is expected, and a blank reason or task id.
The command line on both backends; HTTP and MCP where they take the same input."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.factories import run
from tests.http_api import Api, problem_of
from tests.test_mcp import key_of, over_mcp, preference, text
from vintage.graph.retrieval.embedder import minilm
from vintage.graph.store.protocol import Store
from vintage.mcp.server import build_server

SAID = ["--source-kind", "user_message", "--source-id", "msg-1", "--observed-at",
        "2026-05-01T10:00:00Z", "--owner", "user:42", "--reason", "asked", "--user", "42"]
OUT_OF_RANGE = {"1e-400": "too small for a 64-bit float: it would be stored as 0",
                "2.5E-999": "too small for a 64-bit float: it would be stored as 0",
                "1e400": "too large for a 64-bit float"}  # NaN and Infinity: refused already
EMPTY = {"empty": "", "blank": " \t\n ", "NUL only": "\x00\x00", "NUL and blanks": " \x00 ",
         "zero-width only": "\u200b\u200d"}


def nothing_held(store_args: list[str], capsys: pytest.CaptureFixture[str],
                 monkeypatch: pytest.MonkeyPatch) -> bool:
    code, out, _ = run([*store_args, "memories", "user:42", "--user", "42", "--json"], capsys,
                       monkeypatch)
    return code == 0 and json.loads(out) == []


@pytest.mark.parametrize("literal", list(OUT_OF_RANGE))
def test_a_typed_number_a_float_cannot_hold_is_refused_not_stored_as_zero_or_infinity(
    literal: str, store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run([*store_args, "remember", "preference", "user:42", "tiny", literal,
                          "--typed", *SAID], capsys, monkeypatch)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and OUT_OF_RANGE[literal] in err and "Traceback" not in err
    assert nothing_held(store_args, capsys, monkeypatch)


@pytest.mark.parametrize("value", list(EMPTY))
def test_an_empty_blank_or_nul_only_value_is_refused(
    value: str, store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run([*store_args, "remember", "preference", "user:42", "note",
                          EMPTY[value], *SAID], capsys, monkeypatch)
    assert (code, out) == (2, "")
    assert err == ("error: value: a memory value is empty (blank, NUL or invisible characters "
                   "only): give what is to be remembered\n")
    assert nothing_held(store_args, capsys, monkeypatch)


@pytest.mark.parametrize("when", ["20260501", "1777629600"])
def test_digits_where_an_observed_time_is_expected_are_refused_naming_the_format(
    when: str, store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    said = [*SAID[:5], when, *SAID[6:]]
    code, out, err = run([*store_args, "remember", "preference", "user:42", "k", "v", *said],
                         capsys, monkeypatch)
    assert (code, out) == (2, "")
    assert err == (f"error: observed_at: '{when}' is not an ISO 8601 date or datetime "
                   "(YYYY-MM-DD, or YYYY-MM-DDTHH:MM:SS with an offset)\n")
    assert nothing_held(store_args, capsys, monkeypatch)


def raw_memory(api: Api, value: str, **fields: Any) -> str:
    """A remember body with ``value`` spliced in as a raw JSON literal."""
    body = json.dumps(api.memory(value="@", **fields))
    return body.replace('"@"', value)


@pytest.mark.parametrize(("literal", "said"), [
    ("1e-400", "64-bit float"), ("1e400", "64-bit float"), ("-1E+999", "64-bit float"),
    ("7" * 5000, "outside the 64-bit range"),  # was "There was an error parsing the body"
    ("[" * 5000 + "]" * 5000, "nested too deeply"),  # a RecursionError: the same
])
def test_over_http_a_number_literal_a_float_cannot_hold_is_a_400_and_writes_nothing(
    literal: str, said: str, api: Api,
) -> None:
    user = api.key("writer", user="42")
    sent = api.client.post("/v1/memories", content=raw_memory(api, literal),
                           headers=user.headers | {"content-type": "application/json"})
    found = problem_of(sent, 400, "invalid-argument")
    assert said in found["detail"] and "777777777777777777777777777777777777777" not in found[
        "detail"]
    assert api.client.get("/v1/memories", headers=user.headers,
                          params={"subject": "user:42"}).json()["items"] == []


def test_over_http_a_body_naming_a_field_twice_is_a_400_and_writes_nothing(api: Api) -> None:
    # json.loads keeps the last: {"user": "42", ..., "user": "7"} chose a scope unsaid.
    user = api.key("writer")
    body = json.dumps(api.memory(value="aisle", user="42")).replace(
        '"value": "aisle"', '"value": "aisle", "value": "window"')
    sent = api.client.post("/v1/memories", content=body,
                           headers=user.headers | {"content-type": "application/json"})
    assert problem_of(sent, 400, "invalid-argument")["detail"] == (
        "a JSON object names 'value' twice: give it once")
    assert api.client.get("/v1/memories", headers=user.headers,
                          params={"subject": "user:42", "user": "42"}).json()["items"] == []


@pytest.mark.parametrize("value", list(EMPTY))
def test_over_http_an_empty_value_is_refused_and_writes_nothing(value: str, api: Api) -> None:
    user = api.key("writer", user="42")
    sent = api.client.post("/v1/memories", json=api.memory(value=EMPTY[value]),
                           headers=user.headers)
    assert sent.status_code == 422 and "a memory value is empty" in sent.text
    assert api.client.get("/v1/memories", headers=user.headers,
                          params={"subject": "user:42"}).json()["items"] == []


def test_over_http_a_number_where_an_instant_is_expected_is_refused_not_read_as_seconds(
    api: Api,
) -> None:
    user = api.key("writer", user="42")
    sent = api.client.post("/v1/memories", json=api.memory(observed_at=1777629600),
                           headers=user.headers)
    assert sent.status_code == 422
    assert "expected an ISO 8601 date or datetime as text" in sent.text
    assert "the number 1777629600" in sent.text
    assert api.client.get("/v1/memories", headers=user.headers,
                          params={"subject": "user:42"}).json()["items"] == []


def test_over_mcp_an_empty_value_and_a_number_for_an_instant_are_tool_errors(
    store: Store, tenant: str,
) -> None:
    server = build_server(store, key_of(store, tenant, "writer", user="42"), minilm())

    async def talk(client: Any) -> list[Any]:
        return [await client.call_tool("remember", preference("42", " \x00 ")),
                await client.call_tool("remember", preference("42", "ship to the office",
                                                              observed_at=1777629600)),
                await client.call_tool("search", {"query": "ship", "candidates": True})]

    empty, seconds, found = over_mcp(server, talk)
    assert empty.is_error and "a memory value is empty" in text(empty)
    assert seconds.is_error and "expected an ISO 8601 date or datetime" in text(seconds)
    assert found.structured_content["results"] == []


@pytest.mark.parametrize("command", [
    ["forget", "--subject", "user:42", "--key", "note", "--user", "42", "--reason", " "],
    ["invalidate", "user:42", "note", "--user", "42", "--reason", ""],
    ["rollback", "--to", "2026-05-01T09:00:00Z", "--user", "42", "--reason", "\u200b"],
    ["retract", "--source", "msg-1", "--reason", ""],
    ["outcome", "user:42", "note", "--user", "42", "--task", " "],
])
def test_a_blank_reason_or_task_is_refused_in_one_line_and_changes_nothing(
    command: list[str], store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A reason is what the event keeps of why; a task id is what promotion counts, each
    distinct: blank, either says nothing (two blank tasks counted as two validations)."""
    code, _, err = run([*store_args, "remember", "preference", "user:42", "note", "aisle",
                        *SAID], capsys, monkeypatch)
    assert code == 0, err
    code, out, _ = run([*store_args, "audit", "--json"], capsys, monkeypatch)
    before = json.loads(out)
    code, out, err = run([*store_args, *command], capsys, monkeypatch)
    assert (code, out) == (2, "") and err.count("\n") == 1 and "is empty" in err, err
    assert json.loads(run([*store_args, "audit", "--json"], capsys, monkeypatch)[1]) == before


@pytest.mark.parametrize(("task", "failed"), [
    ("card 4111 1111 1111 1111", False), ("my password is hunter22", True),
])
def test_an_outcome_whose_task_id_holds_sensitive_content_is_refused_and_never_kept(
    task: str, failed: bool, store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A task id is kept in the outcome's event (and a success's source id): what is pasted
    there would stay in the audit for good. Refused like a blank one, without repeating it."""
    steps = json.dumps({"trigger": "a refund request", "steps": ["check", "refund"],
                        "outcome": "refunded"})
    code, _, err = run([*store_args, "remember", "experience", "agent:billing", "refund", steps,
                        "--source-id", "run-1", *SAID[2:], "--source-kind", "agent_output"],
                       capsys, monkeypatch)
    assert code == 0, err
    before = run([*store_args, "audit", "--json"], capsys, monkeypatch)[1]
    code, out, err = run([*store_args, "outcome", "agent:billing", "refund", "--user", "42",
                          "--task", task, *(["--failed"] if failed else [])], capsys,
                         monkeypatch)
    assert (code, out) == (2, "") and err.count("\n") == 1, err
    assert "the task id holds sensitive content" in err and task.rsplit(maxsplit=1)[-1] not in err
    assert run([*store_args, "audit", "--json"], capsys, monkeypatch)[1] == before


@pytest.mark.parametrize("args", [
    ["remember", "preference", "user:42", "k\udcff", "v", *SAID],
    ["search", "q\udcff", "--user", "42"],
    ["--actor", "a\udcff", "memories", "user:42", "--user", "42"],
])
def test_an_argument_that_is_not_utf8_is_refused_in_one_line_naming_its_place(
    args: list[str], store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An undecodable byte reaches Python as a lone surrogate, which failed later as an
    internal error (exit 70) wherever it was given."""
    code, out, err = run([*store_args, *args], capsys, monkeypatch)
    assert (code, out) == (2, "") and err.count("\n") == 1, err
    assert err.startswith("error: argument ") and "is not UTF-8 text" in err
    assert nothing_held(store_args, capsys, monkeypatch)
