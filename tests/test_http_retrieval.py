"""Search, context packs and their trace over HTTP: the scope is the key's, never the body's; an
injection outside the key's reach answers 404 exactly like one that does not exist; marking
items used is a write (a reader key may not)."""

from __future__ import annotations

from typing import Any

from tests.http_api import Api, Key, problem_of
from vintage.graph.retrieval.embedder import minilm
from vintage.queries.search.fusion import Mode
from vintage.queries.search.request import SearchRequest
from vintage.queries.search.run import search
from vintage.render.search import result_json


def remembered(api: Api, user: str, value: str) -> tuple[Key, str]:
    """A writer key bound to ``user``, and the shipping preference it stored for them."""
    key = api.key("writer", user=user)
    body = api.memory(subject=f"user:{user}", owner=f"user:{user}", value=value,
                      source_id=f"msg-{user}")
    done = api.client.post("/v1/memories", json=body, headers=key.headers)
    assert done.status_code == 201, done.text
    memory_id: str = done.json()["memory_id"]
    return key, memory_id


def searched(api: Api, key: Key, **body: Any) -> dict[str, Any]:
    answer = api.client.post("/v1/search", json={"query": "shipping preference"} | body,
                             headers=key.headers)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def test_a_user_bound_key_searches_its_users_memories_and_never_another_users(
    api: Api,
) -> None:
    mine, my_memory = remembered(api, "42", "ship to the office")
    theirs, their_memory = remembered(api, "7", "ship to the warehouse")
    found = searched(api, mine)
    assert [r["id"] for r in found["results"]] == [my_memory]
    assert [r["id"] for r in searched(api, theirs)["results"]] == [their_memory]
    asking_for_7 = api.client.post("/v1/search", headers=mine.headers, json={
        "query": "shipping preference", "user": "7"})
    problem_of(asking_for_7, 403, "forbidden")  # the body cannot widen the key's scope
    reader = api.key("reader", user="42")
    assert [r["id"] for r in searched(api, reader)["results"]] == [my_memory]


def test_a_search_answers_in_the_shape_of_the_command_lines_json(embedded: Api) -> None:
    mine, _ = remembered(embedded, "42", "ship to the office")
    found = searched(embedded, mine, mode="keyword", limit=3)
    direct = search(embedded.store, minilm(), SearchRequest(
        "shipping preference", mine.principal.scope(), limit=3, mode=Mode.KEYWORD))
    (result,) = direct.results
    expected = result_json(result)
    (shown,) = found["results"]
    assert shown.keys() == expected.keys()
    assert {k: shown[k] for k in ("id", "value", "status", "score", "signals")} == {
        k: expected[k] for k in ("id", "value", "status", "score", "signals")}
    assert (found["query"], found["mode"], found["legal"], found["matched"]) == (
        direct.query, "keyword", direct.legal, direct.matched)


def test_no_scope_reads_shared_facts_only_and_all_scopes_needs_an_admin(embedded: Api) -> None:
    _, my_memory = remembered(embedded, "42", "ship to the office")
    _, their_memory = remembered(embedded, "7", "ship to the warehouse")
    unbound = embedded.key("writer")
    assert searched(embedded, unbound)["results"] == []  # no scope named: never a memory
    wide = embedded.client.post("/v1/search", headers=unbound.headers, json={
        "query": "shipping preference", "all_scopes": True})
    problem_of(wide, 403, "forbidden")
    admin = embedded.key("admin", name="ops")
    everything = searched(embedded, admin, all_scopes=True)
    assert {r["id"] for r in everything["results"]} == {my_memory, their_memory}
    audit = embedded.client.get("/v1/audit", headers=admin.headers).json()["items"]
    wide_reads = [e for e in audit if e["details"].get("read") == "search"]
    assert [e["actor"] for e in wide_reads] == [admin.principal.actor]


def test_a_context_is_traced_and_its_items_marked_used_by_a_writer_not_a_reader(
    embedded: Api,
) -> None:
    mine, my_memory = remembered(embedded, "42", "ship to the office")
    built = embedded.client.post("/v1/context", headers=mine.headers, json={
        "query": "how does the user want things shipped", "budget": 400,
        "for_thread": "support-7"})
    assert built.status_code == 200, built.text
    pack = built.json()
    assert "ship to the office" in pack["text"]
    assert (pack["items"], pack["thread"]) == ([my_memory], "support-7")
    assert 0 < pack["tokens"] <= 400 and pack["tokenizer"]
    where = f"/v1/injections/{pack['injection']}"
    reader = embedded.key("reader", user="42")
    traced = embedded.client.get(f"{where}/trace", params={"item": my_memory},
                                 headers=reader.headers)
    assert traced.status_code == 200, traced.text
    assert traced.json()["items"] == [{"id": my_memory, "verdict": "seen but unused",
                                       "reason": None}]
    refused = embedded.client.post(f"{where}/used", json={"items": [my_memory]},
                                   headers=reader.headers)
    problem_of(refused, 403, "forbidden")
    marked = embedded.client.post(f"{where}/used", json={"items": [my_memory]},
                                  headers=mine.headers)
    assert marked.status_code == 200, marked.text
    again = embedded.client.get(f"{where}/trace", params={"item": my_memory},
                                headers=mine.headers).json()
    assert (again["used"], again["items"][0]["verdict"]) == ([my_memory], "used")
    assert again["actor"] == mine.principal.actor
    # A parameter that takes a list takes it repeated; one that takes a value refuses two
    # (Starlette kept the last: `?user=1&user=2` chose between two scopes unsaid).
    twice = embedded.client.get(f"{where}/trace?item={my_memory}&item=m-2",
                                headers=mine.headers)
    assert twice.status_code == 200 and len(twice.json()["items"]) == 2, twice.text
    admin = embedded.key("admin")
    for query in ("subject=user:42&user=42&user=7", "subject=user:42&subject=user:7&user=42",
                  "subject=user:42&user=42&limit=5&limit=500"):
        refused = embedded.client.get(f"/v1/memories?{query}", headers=admin.headers)
        detail = problem_of(refused, 400, "invalid-argument")["detail"]
        assert detail.endswith("is given twice: it takes one value"), detail


def test_another_users_or_tenants_injection_answers_404_like_an_unknown_one(
    embedded: Api,
) -> None:
    mine, my_memory = remembered(embedded, "42", "ship to the office")
    pack = embedded.client.post("/v1/context", headers=mine.headers, json={
        "query": "shipping", "budget": 300, "for_thread": "t1"}).json()
    admin = embedded.key("admin")
    wide = embedded.client.post("/v1/context", headers=admin.headers, json={
        "query": "shipping", "budget": 300, "for_thread": "t2", "all_scopes": True}).json()
    strangers = [embedded.key("writer", user="7"), embedded.key("writer", tenant="other-t"),
                 embedded.key("admin", tenant="other-t")]
    for key in strangers:
        for injection in (pack["injection"], "e-does-not-exist"):
            where = f"/v1/injections/{injection}"
            unknown = problem_of(embedded.client.get(f"{where}/trace", headers=key.headers),
                                 404, "not-found")
            assert unknown["detail"] == f"no injection {injection!r} in this tenant"
            problem_of(embedded.client.post(f"{where}/used", json={"items": [my_memory]},
                                            headers=key.headers), 404, "not-found")
    unbound = embedded.key("writer")  # reaches no user: an all-scopes pack is an admin's
    problem_of(embedded.client.get(f"/v1/injections/{wide['injection']}/trace",
                                   headers=unbound.headers), 404, "not-found")
    assert embedded.client.get(f"/v1/injections/{wide['injection']}/trace",
                               headers=admin.headers).status_code == 200


def test_a_search_and_a_context_that_find_nothing_relevant_say_so_and_name_the_floor(
    api: Api,
) -> None:
    mine, my_memory = remembered(api, "42", "ship to the office in Berlin")
    asked = {"query": "what is the name of the user's cat"}
    found = searched(api, mine, **asked)
    assert found["nothing_relevant"] is True and found["results"] == []
    relevance = found["relevance"]
    assert relevance["relevant"] is False and relevance["judged"] is True
    assert relevance["best"] < relevance["floor"] and relevance["mode"] == "hybrid"
    pack = api.client.post("/v1/context", headers=mine.headers,
                           json=asked | {"budget": 300, "for_thread": "t1"})
    assert pack.status_code == 200, pack.text
    assert pack.json()["nothing_relevant"] is True and pack.json()["items"] == []
    assert "nothing relevant is known" in pack.json()["text"]
    assert pack.json()["relevance"] == relevance
    answered = searched(api, mine, query="where should parcels be sent")
    assert answered["nothing_relevant"] is False
    assert [r["id"] for r in answered["results"]] == [my_memory]
    # A keyword search sharing no word with any memory cannot judge: it says so, not "nothing
    # relevant" (a paraphrase shares no word either).
    unmatched = searched(api, mine, **asked, mode="keyword")
    assert unmatched["nothing_relevant"] is False and unmatched["results"] == []
    assert unmatched["relevance"]["matched"] is False
    assert unmatched["relevance"]["judged"] is False
