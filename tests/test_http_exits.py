"""Exits need more than an agent key: forget, rollback, invalidate, retract and demote end, undo
or lower what a scope holds, so only a writer key (within its binding) or an admin key makes
them, over HTTP and over MCP; an agent or reader key is refused (403) and nothing changes. An
agent still records outcomes and promotes what succeeded. A body the framework cannot parse is
the stable ``invalid-argument`` problem, not ``about:blank``."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client

from tests.factories import REFUND
from tests.http_api import Api, Key, problem_of
from vintage.graph.access import Forbidden, Principal, Role, check_exit, create_key
from vintage.graph.retrieval.embedder import minilm
from vintage.graph.store.protocol import Store
from vintage.mcp.server import build_server

MEMORY = {"subject": "user:42", "key": "shipping.preference"}
EXITS: list[tuple[str, dict[str, Any]]] = [
    ("/v1/forget", MEMORY | {"reason": "erase it"}),
    ("/v1/forget", {"everything": True, "reason": "erase all of user 42"}),
    ("/v1/rollback", {"to": "2020-01-01T00:00:00Z", "reason": "undo the day"}),
    ("/v1/memories/invalidation", MEMORY | {"reason": "no longer holds"}),
    ("/v1/memories/demotion", MEMORY | {"reason": "rarely useful", "weight": 0.1}),
]


def held(api: Api, key: Key) -> list[tuple[str, float]]:
    page = api.client.get("/v1/memories", params={"subject": "user:42"}, headers=key.headers)
    assert page.status_code == 200, page.text
    return [(m["value"], m["weight"]) for m in page.json()["items"]]


@pytest.mark.parametrize("role", ["agent", "reader"])
@pytest.mark.parametrize(("path", "body"), EXITS)
def test_an_agent_or_reader_key_makes_no_exit_and_nothing_changes(
    api: Api, role: str, path: str, body: dict[str, Any],
) -> None:
    writer = api.key("writer", user="42")
    assert api.client.post("/v1/memories", json=api.memory(),
                           headers=writer.headers).status_code == 201
    refusing = api.key(role, user="42")
    before = held(api, writer)
    events = len(api.store.events(api.tenant))
    refused = api.client.post(path, json=body, headers=refusing.headers)
    problem_of(refused, 403, "forbidden")
    assert held(api, writer) == before == [("ship to the office", 1.0)]
    assert len(api.store.events(api.tenant)) == events  # not even a refusal was written


@pytest.mark.parametrize("role", ["writer", "admin"])
def test_a_writer_or_admin_key_forgets(api: Api, role: str) -> None:
    writer = api.key("writer", user="42")
    api.client.post("/v1/memories", json=api.memory(), headers=writer.headers)
    key = api.key(role) if role == "admin" else writer
    body = MEMORY | {"reason": "user asked", "user": "42"}
    gone = api.client.post("/v1/forget", json=body, headers=key.headers)
    assert gone.status_code == 200, gone.text
    assert gone.json()["facts"] == 1
    assert held(api, writer) == []


def test_an_agent_key_records_outcomes_and_promotes_but_may_not_retract(api: Api) -> None:
    agent = api.key("agent", project="billing")
    lesson = {"kind": "experience", "subject": "agent:billing", "key": "refunds",
              "value": REFUND, "source_kind": "agent_output",
              "source_id": "run-1", "observed_at": api.clock.now.isoformat(),
              "owner": "agent:billing", "retention_reason": "learned"}
    assert api.client.post("/v1/memories", json=lesson, headers=agent.headers).status_code == 201
    which = {"subject": "agent:billing", "key": "refunds"}
    for task in ("t1", "t2", "t3"):
        seen = api.client.post("/v1/memories/outcomes", json=which | {"task": task},
                               headers=agent.headers)
        assert seen.status_code in (200, 201), seen.text
    promoted = api.client.post("/v1/memories/promotion", json=which, headers=agent.headers)
    assert promoted.status_code == 201, promoted.text
    retracted = api.client.post("/v1/sources/run-1/retraction", json={"reason": "r"},
                                headers=agent.headers)
    problem_of(retracted, 403, "forbidden")


def test_a_body_the_framework_cannot_parse_is_an_invalid_argument_problem(api: Api) -> None:
    writer = api.key("writer", user="42")
    not_utf8 = api.client.post("/v1/memories", content=b'{"kind": "\xff"}',
                               headers=writer.headers | {"content-type": "application/json"})
    body = problem_of(not_utf8, 400, "invalid-argument")
    assert body["detail"] == "There was an error parsing the body"


@pytest.mark.parametrize(("role", "allowed"), [
    (Role.READER, False), (Role.AGENT, False), (Role.WRITER, True), (Role.ADMIN, True)])
def test_only_a_writer_or_admin_principal_may_exit(role: Role, allowed: bool) -> None:
    principal = Principal("acme", role, "k" + "1" * 16)
    assert principal.can_exit is allowed
    if allowed:
        check_exit(principal, "forget")
    else:
        with pytest.raises(Forbidden, match=f"forget needs a writer or admin key, not an? "
                                            f"{role.value} key"):
            check_exit(principal, "forget")


def test_the_mcp_forget_tool_refuses_an_agent_key_and_erases_nothing(
    store: Store, tenant: str,
) -> None:
    _, writer = create_key(store, tenant, "writer", user="42", actor="test:setup")
    _, agent = create_key(store, tenant, "agent", user="42", actor="test:setup")
    memory = MEMORY | {"kind": "preference", "value": "ship to the office",
                       "source_kind": "user_message", "source_id": "msg-42",
                       "observed_at": "2026-06-01T11:00:00Z", "owner": "user:42",
                       "retention_reason": "user asked us to remember"}

    async def call(key: str, tool: str, arguments: dict[str, Any]) -> Any:
        async with Client(build_server(store, key, minilm())) as client:
            return await client.call_tool(tool, arguments)

    written = anyio.run(call, writer, "remember", memory)
    assert not written.is_error
    refused = anyio.run(call, agent, "forget", MEMORY | {"reason": "erase it"})
    assert refused.is_error
    assert refused.content[0].text.endswith("The key may not do this: forget needs a writer "
                                            "or admin key, not an agent key")
    found = anyio.run(call, writer, "search", {"query": "shipping preference"})
    assert [r["value"] for r in found.structured_content["results"]] == ["ship to the office"]
