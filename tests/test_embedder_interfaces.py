"""The tenant's embedder over every interface (issue 40): any key reads the choice that holds
(``GET /v1/embedder``, the MCP tool ``embedder_choice``, ``vintage --server URL config
embedder``); an admin key chooses its own tenant's or withdraws it, the same decision and the
same words as ``vintage config embedder NAME --tenant T``; a choice made after the tenant's
entries were indexed by another model is recorded, not refused, and the next search finds by
the new model's meaning, as on the command line. On both backends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2

from tests.http_api import Api, Key, problem_of
from tests.test_cli_server import Served, local_copy, served, vintage
from tests.test_embedder_choice import KETTLE, NOTES
from tests.test_mcp import over_mcp, text
from vintage.graph.retrieval.choice import REEMBEDDED, recorded
from vintage.graph.store.backends import open_store
from vintage.mcp.server import build_server

__all__ = ["served"]  # the module's server fixture, shared with tests/test_cli_server.py
NOTHING = {"embedder": None, "for": None, "at": None, "actor": None, "reason": None,
           "note": None}
MEANING = "顾客想把钱要回来"  # the customer wants their money back: MiniLM misses the kettle


def top_value(api: Api, key: Key) -> str:
    found = api.client.post("/v1/search", headers=key.headers, json={
        "query": MEANING, "mode": "semantic", "limit": 1, "user": "42"})
    assert found.status_code == 200, found.text
    value: str = found.json()["results"][0]["value"]
    return value


def test_a_reader_reads_the_choice_and_only_an_admin_of_the_tenant_changes_it(api: Api) -> None:
    reader, writer, admin = api.key("reader"), api.key("writer", user="42"), api.key("admin")
    # A fresh store has no choice; the Neo4j tier's shared server may hold a store-wide one,
    # which then holds for this fresh tenant.
    store_wide = recorded(api.store)
    shown = api.client.get("/v1/embedder", headers=reader.headers)
    assert shown.status_code == 200, shown.text
    assert shown.json() == NOTHING if store_wide is None else (
        (shown.json()["embedder"], shown.json()["for"]) == (store_wide.embedder, "store"))
    for key in (reader, writer):
        refused = api.client.post("/v1/embedder", headers=key.headers, json={"embedder": "e5"})
        assert problem_of(refused, 403, "forbidden")["detail"] == \
            "choosing the embedder needs an admin key"
    assert recorded(api.store, api.tenant) == store_wide  # a refusal records nothing
    chose = api.client.post("/v1/embedder", headers=admin.headers,
                            json={"embedder": "e5", "reason": "users write 中文"})
    assert chose.status_code == 200, chose.text
    assert chose.json() | {"at": None} == {
        "embedder": "e5", "for": api.tenant, "at": None, "actor": admin.principal.actor,
        "reason": "users write 中文", "note": REEMBEDDED}
    assert api.client.get("/v1/embedder", headers=reader.headers).json()["embedder"] == "e5"
    back = api.client.post("/v1/embedder/withdrawal", headers=admin.headers,
                           json={"reason": "the store's again"})
    assert back.json() | {"at": None} == (NOTHING if store_wide is None else {
        **store_wide.shown(), "at": None, "note": REEMBEDDED})
    again = api.client.post("/v1/embedder/withdrawal", headers=admin.headers,
                            json={"reason": "twice"})
    assert problem_of(again, 400, "invalid-argument")["detail"] == \
        f"tenant {api.tenant} has no embedder of its own to withdraw"
    events = api.store.events(api.tenant, actions=["embedder"])
    assert [(e.actor, e.details) for e in events] == [
        (admin.principal.actor, {"embedder": "e5"}), (admin.principal.actor, {"embedder": ""})]


def test_a_choice_made_after_the_tenant_was_indexed_holds_from_the_next_search(
    api: Api,
) -> None:
    writer, admin = api.key("writer", user="42"), api.key("admin")
    for n, (name, value) in enumerate(NOTES):
        done = api.client.post("/v1/memories", headers=writer.headers, json=api.memory(
            key=name, value=value, source_id=f"msg-{n}"))
        assert done.status_code == 201, done.text
    assert top_value(api, writer) != KETTLE  # indexed by MiniLM, the store's default
    chose = api.client.post("/v1/embedder", headers=admin.headers, json={"embedder": "e5"})
    assert chose.status_code == 200, chose.text
    assert top_value(api, writer) == KETTLE  # re-embedded by e5 at this search


def test_http_and_mcp_give_the_same_decision_in_the_same_words(api: Api) -> None:
    admin, agent = api.key("admin"), api.key("agent", user="42")
    by_admin, by_agent = build_server(api.store, admin.secret), build_server(api.store,
                                                                            agent.secret)

    def http(key: Key, path: str, body: dict[str, Any]) -> tuple[int, str]:
        answer = api.client.post(path, headers=key.headers, json=body)
        said = answer.json()
        return answer.status_code, said.get("detail") or said["embedder"]

    def mcp(server: Any, tool: str, body: dict[str, Any]) -> tuple[bool, str]:
        result = over_mcp(server, lambda c: c.call_tool(tool, body))
        return result.is_error, (text(result) if result.is_error
                                 else result.structured_content["embedder"])

    asked = [(agent, by_agent, "/v1/embedder", "choose_embedder", {"embedder": "e5"}),
             (admin, by_admin, "/v1/embedder", "choose_embedder", {"embedder": "e6"}),
             (admin, by_admin, "/v1/embedder/withdrawal", "withdraw_embedder",
              {"reason": "none yet"}),
             (admin, by_admin, "/v1/embedder", "choose_embedder", {"embedder": "e5"})]
    for key, server, path, tool, body in asked:
        status, said = http(key, path, body)
        failed, told = mcp(server, tool, body)
        # MCP's one line is the problem's title, then the very detail HTTP answers.
        assert (failed, told[-len(said):]) == (status != 200, said), (tool, body)
    assert said.startswith("e5")
    shown = over_mcp(by_agent, lambda c: c.call_tool("embedder_choice", {}))
    assert shown.structured_content | {"at": None} == api.client.get(
        "/v1/embedder", headers=agent.headers).json() | {"at": None, "note": None}
    assert shown.structured_content["for"] == api.tenant


def test_the_cli_client_shows_and_chooses_the_keys_tenants_embedder_as_the_cli_does(
    served: Served, tmp_path: Path,
) -> None:
    shown = vintage("--server", served.base, "config", "embedder", "--json", key=served.writer)
    assert (shown.returncode, json.loads(shown.stdout)) == (0, {
        "embedder": None, "for": None, "at": None, "actor": None, "reason": None})
    refused = vintage("--server", served.base, "config", "embedder", "e5", key=served.writer)
    assert (refused.returncode, refused.stderr) == (
        2, "error: The key may not do this: choosing the embedder needs an admin key "
           "(HTTP 403)\n")
    other = vintage("--server", served.base, "config", "embedder", "e5", "--tenant", "globex",
                    key=served.admin)
    assert other.returncode == 2 and other.stderr.startswith(
        "error: --tenant: over --server the key's own tenant (acme) only")
    unknown = vintage("--server", served.base, "config", "embedder", "e6", key=served.admin)
    assert (unknown.returncode, unknown.stderr.count("\n")) == (2, 1)
    assert unknown.stderr.startswith("error: unknown embedder 'e6': use ")
    chose = vintage("--server", served.base, "config", "embedder", "e5", "--tenant", "acme",
                    "--reason", "users write 中文", key=served.admin)
    assert chose.returncode == 0, chose.stderr
    assert chose.stdout.startswith("now e5 for tenant acme, chosen ")
    assert chose.stdout.endswith(f"; {REEMBEDDED}\n")
    said = vintage("--server", served.base, "config", "embedder", "--json", key=served.writer)
    local = open_store(local_copy(served, tmp_path))  # the server holds its own store
    try:
        held = recorded(local, "acme")
        assert held is not None and json.loads(said.stdout) == held.shown()
    finally:
        local.close()
    back = vintage("--server", served.base, "config", "embedder", "--withdraw", key=served.admin)
    assert (back.returncode, back.stdout) == (0, "no embedder recorded yet: the first search "
                                                 "records VINTAGE_EMBEDDER's (default minilm)\n")
    gone = httpx2.get(f"{served.base}/v1/embedder", timeout=30,
                      headers={"Authorization": f"Bearer {served.writer}"})
    assert gone.json() == NOTHING
