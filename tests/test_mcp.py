"""``vintage mcp``: the tools over the official MCP SDK, driven by the SDK's own client, in
process and end to end (and once through a real ``vintage mcp`` subprocess over stdio). Every
call runs as the key the server was started with: its tenant, its scope, its authority."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import CallToolResult, TextContent

from tests.factories import PinnedClock, run
from tests.mcp_http import mcp_over_http
from vintage.graph.access import Unauthorized, create_key, revoke
from vintage.graph.retrieval.embedder import minilm
from vintage.graph.sealing.keyfile import FileKeyStore
from vintage.graph.sqlite.store import SqliteStore
from vintage.graph.store.protocol import Store
from vintage.mcp.server import build_server

T = TypeVar("T")
SETUP = "test:setup"
TOOLS = {"search", "context", "remember", "correct", "forget", "review", "asof", "explain",
         "impact", "register_tool", "unregister_tool", "registered_tools", "embedder_choice",
         "choose_embedder", "withdraw_embedder"}


def over_mcp(server: Any, talk: Callable[[Client], Awaitable[T]]) -> T:
    """Connect the SDK's client to ``server`` and run ``talk`` with it."""
    async def session() -> T:
        async with Client(server) as client:
            return await talk(client)
    return anyio.run(session)


def key_of(store: Store, tenant: str, role: str, **binding: str) -> str:
    return create_key(store, tenant, role, actor=SETUP, **binding)[1]


def preference(user: str, value: str, **fields: Any) -> dict[str, Any]:
    return {"kind": "preference", "subject": f"user:{user}", "key": "shipping.preference",
            "value": value, "source_kind": "user_message", "source_id": f"msg-{user}",
            "observed_at": "2026-06-01T11:00:00Z", "owner": f"user:{user}",
            "retention_reason": "user asked us to remember"} | fields


def text(result: CallToolResult) -> str:
    (content,) = result.content
    assert isinstance(content, TextContent)
    return content.text


def test_the_server_lists_its_fifteen_tools_each_with_a_typed_schema(store: Store,
                                                                tenant: str) -> None:
    server = build_server(store, key_of(store, tenant, "reader"), minilm())
    listed = over_mcp(server, lambda c: c.list_tools())
    schemas = {t.name: t.input_schema for t in listed.tools}
    assert set(schemas) == TOOLS
    search = schemas["search"]
    assert search["required"] == ["query"]
    assert search["properties"]["limit"]["type"] == "integer"
    assert "tenant" not in search["properties"]  # the tenant is the key's, never asked
    assert set(schemas["remember"]["required"]) == {"kind", "subject", "key", "value"}
    assert all(t.output_schema for t in listed.tools)  # structured answers, typed too


def test_remember_then_search_then_context_then_explain(store: Store, tenant: str) -> None:
    server = build_server(store, key_of(store, tenant, "writer", user="42"), minilm())

    async def talk(client: Client) -> dict[str, Any]:
        written = await client.call_tool("remember", preference("42", "ship to the office"))
        memory_id = written.structured_content["memory_id"]
        found = await client.call_tool("search", {"query": "shipping preference"})
        pack = await client.call_tool("context", {"query": "how to ship", "budget": 300,
                                                  "for_thread": "support-1"})
        why = await client.call_tool("explain", {"fact_id": memory_id})
        return {"written": written, "found": found, "pack": pack, "why": why,
                "id": memory_id}

    seen = over_mcp(server, talk)
    assert not any(seen[k].is_error for k in ("written", "found", "pack", "why"))
    assert seen["written"].structured_content["decision"] == "active"
    results = seen["found"].structured_content["results"]
    assert [(r["id"], r["value"]) for r in results] == [(seen["id"], "ship to the office")]
    pack = seen["pack"].structured_content
    assert "ship to the office" in pack["text"] and pack["items"] == [seen["id"]]
    assert pack["tokens"] <= 300
    assert seen["why"].structured_content["root"]["fact"]["id"] == seen["id"]


def test_search_and_context_say_nothing_relevant_as_http_does(store: Store, tenant: str) -> None:
    server = build_server(store, key_of(store, tenant, "writer", user="42"), minilm())
    asked = {"query": "what is the name of the user's cat"}

    async def talk(client: Client) -> tuple[CallToolResult, CallToolResult, CallToolResult]:
        await client.call_tool("remember", preference("42", "ship to the office in Berlin"))
        return (await client.call_tool("search", asked),
                await client.call_tool("context", asked | {"budget": 300,
                                                           "for_thread": "t1"}),
                await client.call_tool("search", asked | {"mode": "keyword"}))

    found, pack, unmatched = (r.structured_content for r in over_mcp(server, talk))
    assert unmatched["nothing_relevant"] is False and unmatched["relevance"]["matched"] is False
    assert found["nothing_relevant"] is True and found["results"] == []
    assert found["relevance"]["best"] < found["relevance"]["floor"]
    assert pack["nothing_relevant"] is True and pack["items"] == []
    assert pack["relevance"] == found["relevance"]


def test_an_agent_key_claiming_a_user_message_gets_a_tool_error_and_nothing_is_written(
    store: Store, tenant: str,
) -> None:
    agent = key_of(store, tenant, "agent", user="42", name="support-bot")
    server = build_server(store, agent, minilm())

    async def talk(client: Client) -> tuple[CallToolResult, CallToolResult]:
        claimed = await client.call_tool("remember", preference("42", "ship to the moon"))
        return claimed, await client.call_tool("search", {"query": "shipping preference",
                                                          "candidates": True})

    claimed, found = over_mcp(server, talk)
    assert claimed.is_error
    assert text(claimed).endswith("The key may not do this: an agent key writes "
                                  "agent_output, model_inference, tool_result, not "
                                  "user_message")
    assert found.structured_content["results"] == []


def test_a_user_bound_key_never_sees_another_users_memory(store: Store, tenant: str) -> None:
    seven = build_server(store, key_of(store, tenant, "writer", user="7"), minilm())
    over_mcp(seven, lambda c: c.call_tool("remember", preference("7", "ship to the warehouse")))
    theirs = over_mcp(seven, lambda c: c.call_tool("search", {"query": "warehouse"}))
    assert len(theirs.structured_content["results"]) == 1
    mine = build_server(store, key_of(store, tenant, "writer", user="42"), minilm())

    async def talk(client: Client) -> list[CallToolResult]:
        return [await client.call_tool("search", {"query": "ship to the warehouse"}),
                await client.call_tool("search", {"query": "warehouse", "user": "7"}),
                await client.call_tool("search", {"query": "warehouse", "all_scopes": True})]

    own, asked_for_seven, everything = over_mcp(mine, talk)
    assert own.structured_content["results"] == []
    assert asked_for_seven.is_error and "bound to user 42" in text(asked_for_seven)
    assert everything.is_error and "needs an admin key" in text(everything)


def test_a_missing_or_revoked_key_is_refused_at_start_and_then_on_every_call(
    tmp_path: Path, clock: PinnedClock, tenant: str,
) -> None:
    store = SqliteStore.open(tmp_path / "store", clock, FileKeyStore(tmp_path / "keys"))
    with pytest.raises(Unauthorized, match=r"^missing API key"):
        build_server(store, None)
    with pytest.raises(Unauthorized, match=r"^invalid or revoked API key$"):
        build_server(store, "vk_not-a-key")
    principal, key = create_key(store, tenant, "reader", user="42", actor=SETUP)
    server = build_server(store, key, minilm())
    revoke(store, tenant, principal.key_id, SETUP)
    refused = over_mcp(server, lambda c: c.call_tool("search", {"query": "anything"}))
    assert refused.is_error and text(refused).endswith("invalid or revoked API key")
    bad = over_mcp(build_server(store, key_of(store, tenant, "reader")),
                   lambda c: c.call_tool("search", {"query": "x", "limit": 0}))
    assert bad.is_error and "\n" not in text(bad) and "limit" in text(bad)
    store.close()


def test_vintage_mcp_without_a_key_names_the_option_not_an_http_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("VINTAGE_KEY", raising=False)
    code, out, err = run(["--store", str(tmp_path / "store"), "--tenant", "t", "mcp"], capsys,
                         monkeypatch)
    assert (code, out, err) == (2, "", "error: vintage mcp runs as one API key: give --key or "
                                       "set VINTAGE_KEY (vintage keys create makes one)\n")


def test_vintage_mcp_serves_over_stdio_as_its_key(tmp_path: Path, clock: PinnedClock,
                                                 tenant: str) -> None:
    store = SqliteStore.open(tmp_path / "store", clock, FileKeyStore(tmp_path / "keys"))
    key = key_of(store, tenant, "agent", user="42", name="stdio-bot")
    store.close()  # one process holds an embedded store: the server's, now
    command = StdioServerParameters(
        command=str(Path(sys.executable).parent / "vintage"),
        args=["--store", str(tmp_path / "store"), "mcp"],
        env={**os.environ, "VINTAGE_KEY": key, "VINTAGE_KEYS": str(tmp_path / "keys")},
        cwd=str(Path(__file__).resolve().parents[1]))

    async def talk(client: Client) -> tuple[set[str], CallToolResult]:
        listed = await client.list_tools()
        written = await client.call_tool("remember", preference(
            "42", "ship in one box", source_kind="agent_output", source_id="run-1"))
        return {t.name for t in listed.tools}, written

    names, written = over_mcp(command, talk)
    assert names == TOOLS
    assert not written.is_error, text(written)
    assert written.structured_content["decision"] == "candidate"


def test_vintage_mcp_is_quiet_on_stderr_by_default(tmp_path: Path, clock: PinnedClock,
                                                  tenant: str) -> None:
    store = SqliteStore.open(tmp_path / "store", clock, FileKeyStore(tmp_path / "keys"))
    key = key_of(store, tenant, "reader", user="42")
    store.close()
    with mcp_over_http(tmp_path / "store", tmp_path / "keys", key) as served:
        pass  # it served: it answered a request
    # The SDK's and uvicorn's INFO lines (started, each request, shutting down) are not shown.
    assert served.stderr == ""


def claimed_refund(tool: str) -> dict[str, Any]:
    return {"kind": "fact", "subject": "policy:returns", "key": "refund.window",
            "value": "7 days full refund", "source_kind": "tool_result",
            "source_id": "call-7781", "tool": tool, "tool_version": "v2",
            "observed_at": "2026-06-01T11:00:00Z", "owner": "ops",
            "retention_reason": "policy"}


def test_an_agent_naming_an_unregistered_tool_gets_a_candidate_until_an_admin_registers_it(
    store: Store, tenant: str,
) -> None:
    agent = build_server(store, key_of(store, tenant, "agent", user="42"), minilm())
    admin = build_server(store, key_of(store, tenant, "admin"), minilm())
    held = over_mcp(agent, lambda c: c.call_tool("remember", claimed_refund("refund-oracle")))
    assert held.structured_content["decision"] == "candidate"
    assert "tool refund-oracle is not registered" in held.structured_content["reason"]
    refused = over_mcp(agent, lambda c: c.call_tool("register_tool", {"name": "policy"}))
    assert refused.is_error and "needs an admin key" in text(refused)

    async def register(client: Client) -> CallToolResult:
        await client.call_tool("register_tool", {"name": "policy-service", "version": "v2"})
        return await client.call_tool("registered_tools", {})

    listed = over_mcp(admin, register).structured_content["items"]
    assert [(t["name"], t["version"]) for t in listed] == [("policy-service", "v2")]
    claim = claimed_refund("policy-service") | {"key": "refund.days", "source_id": "call-2"}
    done = over_mcp(agent, lambda c: c.call_tool("remember", claim))
    assert done.structured_content["decision"] == "active"

    async def ask(client: Client) -> list[CallToolResult]:
        asked = {"query": "refund days", "min_authority": "user_statement"}
        return [await client.call_tool("search", asked),
                await client.call_tool("context", asked | {"budget": 300,
                                                           "for_thread": "t-1"})]

    found, pack = over_mcp(agent, ask)
    assert found.structured_content["results"] == []
    assert "user_statement or above" in found.structured_content["refusal"]
    assert "user_statement or above" in pack.structured_content["refusal"]


def test_an_unknown_argument_a_string_for_a_flag_or_a_nul_is_refused_and_writes_nothing(
    store: Store, tenant: str,
) -> None:
    """The SDK dropped an argument its tool does not take (a misspelt ``valid_form`` wrote the
    memory without its event time), read ``"yes"`` as true (``forget everything`` erased a
    user) and took a NUL, which split a card number past the sensitive gate: each is refused
    in one line, as HTTP refuses it, and the store is as it was."""
    user = key_of(store, tenant, "writer", user="42")
    server = build_server(store, user, minilm())
    card = "4111\x001111\x001111\x001111"

    async def talk(client: Client) -> list[CallToolResult]:
        return [await client.call_tool("remember", preference(
                    "42", "ship home", valid_form="2025-01-01")),
                await client.call_tool("remember", preference("42", card, consent="yes")),
                await client.call_tool("remember", preference("42", card)),
                await client.call_tool("remember", preference("42", "ship", source_id="m\x00x")),
                await client.call_tool("forget", {"everything": "yes", "reason": "asked"}),
                await client.call_tool("search", {"query": "ship", "limit": "5"}),
                await client.call_tool("search", {"query": "shipping", "candidates": True})]

    *refused, found = over_mcp(server, talk)
    said = [text(r) for r in refused]
    assert all(r.is_error for r in refused) and all("\n" not in s for s in said)
    assert said[0] == "Invalid arguments: remember takes no argument named valid_form"
    assert "consent" in said[1] and "valid boolean" in said[1]
    assert "control character" in said[2] and "4111" not in said[2]
    assert "source_id" in said[3] and "control character" in said[3]
    assert "everything" in said[4] and "limit" in said[5]
    assert found.structured_content["results"] == []
