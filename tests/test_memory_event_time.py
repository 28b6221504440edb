"""Event time for memories (issue 40): a memory holds in the world over ``[valid_from,
valid_to)``, given by whoever states it ("moved to Shanghai in March 2025") or, for a statement
about the present, from when it was observed; reads by valid instant see it only there. A TTL is
retention, counted at the read's knowledge cutoff. Both backends."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest

from tests.factories import ACTOR, PinnedClock, memory, mine, run, values
from tests.http_api import Api
from tests.test_mcp import key_of, over_mcp, preference
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import parse_instant
from vintage.graph.memory.amend import correct
from vintage.graph.memory.gate import Decision
from vintage.graph.memory.remember import remember
from vintage.graph.retrieval.embedder import minilm
from vintage.graph.store.protocol import Store
from vintage.mcp.server import build_server
from vintage.queries.memory.recall import recall

SHANGHAI = {"key": "home.city", "value": "Shanghai", "valid_from": "2025-03-01T00:00:00Z"}


def at(text: str) -> datetime:
    return parse_instant(text)


def test_a_statement_about_the_present_holds_from_when_it_was_observed_not_from_1970(
    store: Store, scope: Scope,
) -> None:
    remember(store, memory(scope), actor=ACTOR)
    (held,) = recall(store, mine(scope), "user:42")
    assert (held.valid_from, held.valid_to) == (at("2026-05-01T10:00:00Z"), None)
    assert recall(store, mine(scope), "user:42", valid_at=at("2026-04-30")) == []
    assert "1970" not in held.model_dump_json()


def test_moved_to_shanghai_last_year_is_not_the_answer_at_a_valid_instant_before_it(
    store: Store, scope: Scope,
) -> None:
    done = remember(store, memory(scope, **SHANGHAI), actor=ACTOR)
    assert done.decision is Decision.ACTIVE
    assert recall(store, mine(scope), "user:42", valid_at=at("2025-02-28T23:59:59Z")) == []
    assert values(recall(store, mine(scope), "user:42", valid_at=at("2025-03-01"))) == [
        "Shanghai"]
    assert values(recall(store, mine(scope), "user:42")) == ["Shanghai"]  # and now
    (held,) = recall(store, mine(scope), "user:42")
    assert (held.valid_from, held.known_from) == (at("2025-03-01"), at("2026-05-01T10:00:00Z"))


def test_a_memory_with_an_end_holds_only_inside_its_event_time(
    store: Store, scope: Scope,
) -> None:
    remember(store, memory(scope, key="work.location", value="on site in Denver",
                           valid_from="2026-02-02T00:00:00Z", valid_to="2026-02-09T00:00:00Z"),
             actor=ACTOR)
    assert values(recall(store, mine(scope), "user:42", valid_at=at("2026-02-04"))) == [
        "on site in Denver"]
    assert recall(store, mine(scope), "user:42", valid_at=at("2026-02-09")) == []  # half-open
    assert recall(store, mine(scope), "user:42") == []  # it no longer holds now


def test_a_correction_keeps_the_versions_event_time_unless_it_restates_it(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    first = remember(store, memory(scope, **SHANGHAI), actor=ACTOR)
    assert first.memory_id is not None
    fixed = correct(store, scope.tenant, first.memory_id, "Hangzhou", source_id="msg-2",
                    observed_at=clock.now, actor=ACTOR)
    (held,) = recall(store, mine(scope), "user:42")
    assert (held.value, held.valid_from) == ("Hangzhou", at("2025-03-01"))
    assert fixed.memory_id is not None
    correct(store, scope.tenant, fixed.memory_id, "Hangzhou", source_id="msg-3",
            observed_at=clock.now, actor=ACTOR, valid_from=at("2025-05-01"))
    (held,) = recall(store, mine(scope), "user:42")
    assert (held.value, held.valid_from, held.revision) == ("Hangzhou", at("2025-05-01"), 3)
    assert recall(store, mine(scope), "user:42", valid_at=at("2025-04-01")) == []


def test_the_same_value_restated_adds_support_and_another_event_time_is_a_new_version(
    store: Store, scope: Scope,
) -> None:
    remember(store, memory(scope, **SHANGHAI), actor=ACTOR)
    again = remember(store, memory(scope, key="home.city", value="Shanghai",
                                   source_id="msg-2", observed_at="2026-05-02T10:00:00Z"),
                     actor=ACTOR)
    assert (again.decision, again.revision) == (Decision.DUPLICATE, 1)  # support, its own time
    moved = remember(store, memory(scope, **SHANGHAI | {"valid_from": "2025-04-01T00:00:00Z"},
                                   source_id="msg-3", observed_at="2026-05-03T10:00:00Z"),
                     actor=ACTOR)
    assert (moved.decision, moved.revision) == (Decision.ACTIVE, 2)
    (held,) = recall(store, mine(scope), "user:42")
    assert held.valid_from == at("2025-04-01")


def test_a_ttl_is_retention_counted_at_the_cutoff_whatever_valid_instant_is_asked(
    store: Store, scope: Scope,
) -> None:
    remember(store, memory(scope, ttl_seconds=86400), actor=ACTOR)  # ends 2026-05-02T10:00Z
    inside = at("2026-05-01T12:00:00Z")
    assert recall(store, mine(scope), "user:42", valid_at=inside) == []  # asked now: expired
    assert values(recall(store, mine(scope), "user:42", at=at("2026-05-02T09:00:00Z"),
                         valid_at=inside)) == ["ship to the office"]


BAD = {
    "to before from": (["--valid-from", "2025-03-01", "--valid-to", "2025-01-01"],
                       "valid_to 2025-01-01T00:00:00+00:00 must be after valid_from "
                       "2025-03-01T00:00:00+00:00 (intervals are half-open)"),
    "to before the observed time": (["--valid-to", "2026-04-01"],
                                    "must be after observed_at (valid_from when none is given)"),
    "an integer": (["--valid-from", "2025"],
                   "valid_from: '2025' is not an ISO 8601 date or datetime"),
    "garbage": (["--valid-to", "next tuesday"],
                "valid_to: 'next tuesday' is not an ISO 8601 date or datetime"),
    "a naive instant beside an aware one": (
        ["--valid-from", "2025-03-01T00:00:00", "--valid-to", "2025-06-01T00:00:00Z"],
        "valid_from: naive datetime 2025-03-01T00:00:00 (give a UTC offset)"),
    "a TTL that ends before the memory holds": (
        ["--valid-from", "2026-05-03", "--ttl", "60"], "the TTL ends at 2026-05-01T10:01:00"),
}
SAID = ["--source-kind", "user_message", "--source-id", "msg-1", "--observed-at",
        "2026-05-01T10:00:00Z", "--owner", "user:42", "--reason", "asked", "--user", "42"]


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_event_time_is_a_one_line_error_that_writes_nothing(
    case: str, store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    given, words = BAD[case]
    code, out, err = run([*store_args, "remember", "preference", "user:42", "home.city",
                          "Shanghai", *SAID, *given], capsys, monkeypatch)
    assert (code, out) == (2, "")
    assert err.startswith("error: ") and err.count("\n") == 1 and words in err, err
    code, out, _ = run([*store_args, "memories", "user:42", "--user", "42", "--json"], capsys,
                       monkeypatch)
    assert json.loads(out) == []


def test_the_command_line_states_reads_and_corrects_event_time(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run([*store_args, "remember", "preference", "user:42", "home.city",
                          "Shanghai", *SAID, "--valid-from", "2025-03-01", "--json"], capsys,
                         monkeypatch)
    assert code == 0, err
    memory_id = json.loads(out)["memory"]
    code, out, _ = run([*store_args, "memories", "user:42", "--user", "42", "--valid-at",
                        "2025-01-01", "--json"], capsys, monkeypatch)
    assert json.loads(out) == []
    code, out, err = run([*store_args, "correct", memory_id, "Shanghai", "--source-id", "msg-2",
                          "--valid-from", "2024-11-01", "--json"], capsys, monkeypatch)
    assert code == 0, err
    code, out, _ = run([*store_args, "memories", "user:42", "--user", "42", "--valid-at",
                        "2025-01-01", "--json"], capsys, monkeypatch)
    (held,) = json.loads(out)
    assert (held["value"], held["valid_from"], held["valid_to"]) == (
        "Shanghai", "2024-11-01T00:00:00Z", None)
    code, out, _ = run([*store_args, "context", "--query", "which city does the user live in",
                        "--budget", "400", "--user", "42", "--for-thread", "t-1",
                        "--valid-at", "2024-10-01"], capsys, monkeypatch)
    assert code == 0 and "Shanghai" not in out
    code, out, _ = run([*store_args, "context", "--query", "which city does the user live in",
                        "--budget", "400", "--user", "42", "--for-thread", "t-1"], capsys,
                       monkeypatch)
    assert "Shanghai" in out and "valid 2024-11-01.." in out and "1970" not in out


def test_over_http_remember_correct_and_read_by_valid_instant(api: Api) -> None:
    user = api.key("writer", user="42")
    body = api.memory(key="home.city", value="Shanghai", valid_from="2025-03-01")
    written = api.client.post("/v1/memories", json=body, headers=user.headers)
    assert written.status_code == 201, written.text
    read = {"subject": "user:42", "key": "home.city"}
    before = api.client.get("/v1/memories", headers=user.headers,
                            params=read | {"valid_at": "2025-01-01"})
    assert before.json()["items"] == []
    fixed = api.client.post(f"/v1/memories/{written.json()['memory_id']}/correction",
                            headers=user.headers, json={"value": "Shanghai", "source_id": "m-2",
                                                        "valid_from": "2024-12-01"})
    assert fixed.status_code == 201, fixed.text
    (held,) = api.client.get("/v1/memories", headers=user.headers,
                             params=read | {"valid_at": "2025-01-01"}).json()["items"]
    assert (held["value"], held["valid_from"]) == ("Shanghai", "2024-12-01T00:00:00Z")
    backwards = api.client.post("/v1/memories", headers=user.headers, json=api.memory(
        key="home.city", value="Suzhou", source_id="m-3", valid_from="2025-03-01",
        valid_to="2025-02-01"))
    assert backwards.status_code == 422 and "must be after valid_from" in backwards.text


def test_over_mcp_remember_with_an_event_time_and_a_context_at_a_valid_instant(
    store: Store, tenant: str,
) -> None:
    server = build_server(store, key_of(store, tenant, "writer", user="42"), minilm())
    asked = {"query": "which city does the user live in", "budget": 400,
             "for_thread": "t-1"}

    async def talk(client: Any) -> list[Any]:
        written = await client.call_tool("remember", preference(
            "42", "Shanghai", key="home.city", valid_from="2025-03-01T00:00:00Z"))
        return [written,
                await client.call_tool("context", asked | {"valid_at": "2025-01-01T00:00:00Z"}),
                await client.call_tool("context", asked | {"valid_at": "2025-06-01T00:00:00Z"})]

    written, before, after = over_mcp(server, talk)
    assert not written.is_error and written.structured_content["decision"] == "active"
    assert before.structured_content["items"] == []
    assert after.structured_content["items"] == [written.structured_content["memory_id"]]
