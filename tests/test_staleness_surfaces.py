"""Every read shows staleness the same way: search, context, as-of facts and explain, in Python,
over HTTP and over MCP (docs/semantics.md, "Staleness")."""

from __future__ import annotations

from typing import Any

from mcp import Client

from tests.factories import ACTOR, PinnedClock, mine
from tests.http_api import Api
from tests.test_mcp import key_of, over_mcp
from tests.test_staleness import moved, said
from vintage.graph.core.model import Scope
from vintage.graph.retrieval.embedder import minilm
from vintage.graph.store.protocol import Store
from vintage.mcp.server import build_server
from vintage.queries.lineage.asof import facts_as_of
from vintage.queries.lineage.explain import explain
from vintage.queries.lineage.staleness import EXPIRED, SUPERSEDED
from vintage.queries.memory.summaries import SUMMARY_PREDICATE, summarise
from vintage.queries.search.request import SearchRequest
from vintage.queries.search.run import search


def story(store: Store, scope: Scope, clock: PinnedClock) -> dict[str, str]:
    """A hotel held three days and a summary resting on it; a home city and the airport
    inferred from it; four days on the user moves (the cascade closes the airport) and the
    hotel has expired (nothing closes the summary)."""
    hotel = said(store, scope, clock, "trip.hotel", "the Harbour Inn in Galway", ttl=3 * 86400)
    city = said(store, scope, clock, "home.city", "Denver")
    airport = said(store, scope, clock, "travel.home_airport", "DEN (Denver International)",
                   evidence=(city,))
    summary = summarise(store, mine(scope), "user:42", keys=["trip.hotel"],
                        actor=ACTOR).fact.id
    clock.advance(days=4)
    boston = moved(store, scope, clock, city, "Boston")
    return {"hotel": hotel, "city": city, "airport": airport, "summary": summary,
            "boston": boston}


def test_search_asof_and_explain_say_what_was_closed_and_what_is_stale(
        store: Store, scope: Scope, clock: PinnedClock) -> None:
    ids = story(store, scope, clock)
    found = search(store, minilm(), SearchRequest(query="Galway hotel and home airport",
                                                  scope=mine(scope)))
    (summary,) = [f for f in found.results if f.id == ids["summary"]]
    assert summary.stale is not None and (summary.stale.premise, summary.stale.reason) == (
        ids["hotel"], EXPIRED)
    assert [(c.item, c.premise, c.by) for c in found.closed] == [
        (ids["airport"], ids["city"], ids["boston"])]
    (held,) = facts_as_of(store, mine(scope), predicates=[SUMMARY_PREDICATE])
    assert held.stale is not None and held.stale.premise == ids["hotel"]
    why = explain(store, mine(scope), ids["airport"])
    assert why.stale is not None
    assert (why.stale.premise, why.stale.reason, why.stale.closed) == (ids["city"], SUPERSEDED,
                                                                       True)


def test_http_search_context_facts_and_explanation_carry_the_same_marking(
        embedded: Api) -> None:
    scope = Scope(tenant=embedded.tenant)
    ids = story(embedded.store, scope, embedded.clock)
    headers = embedded.key("reader", user="42").headers
    body = {"query": "Galway hotel and home airport"}
    found = embedded.client.post("/v1/search", json=body, headers=headers).json()
    (summary,) = [r for r in found["results"] if r["id"] == ids["summary"]]
    assert (summary["stale"]["premise"], summary["stale"]["reason"]) == (ids["hotel"], EXPIRED)
    assert [(c["item"], c["premise"], c["by"]) for c in found["closed"]] == [
        (ids["airport"], ids["city"], ids["boston"])]
    pack = embedded.client.post("/v1/context", json=body | {"budget": 2000, "for_thread": "t"},
                                headers=headers).json()
    assert pack["stale"][ids["summary"]]["premise"] == ids["hotel"]
    assert [c["item"] for c in pack["closed"]] == [ids["airport"]]
    facts = embedded.client.get("/v1/facts", headers=headers, params={
        "predicate": SUMMARY_PREDICATE, "subject": "user:42"}).json()
    assert [i["stale"]["premise"] for i in facts["items"]] == [ids["hotel"]]
    why = embedded.client.get(f"/v1/facts/{ids['airport']}/explanation",
                              headers=headers).json()
    assert (why["stale"]["premise"], why["stale"]["closed"]) == (ids["city"], True)


def test_mcp_search_context_and_explain_carry_the_same_marking(
        store: Store, scope: Scope, clock: PinnedClock) -> None:
    ids = story(store, scope, clock)
    server = build_server(store, key_of(store, scope.tenant, "reader", user="42"), minilm())

    async def talk(client: Client) -> dict[str, Any]:
        asked = {"query": "Galway hotel and home airport"}
        return {"found": await client.call_tool("search", asked),
                "pack": await client.call_tool("context", asked | {"budget": 2000,
                                                                   "for_thread": "t"}),
                "why": await client.call_tool("explain", {"fact_id": ids["airport"]})}

    seen = {k: v.structured_content for k, v in over_mcp(server, talk).items()}
    assert [c["item"] for c in seen["found"]["closed"]] == [ids["airport"]]
    assert seen["pack"]["stale"][ids["summary"]]["reason"] == EXPIRED
    assert seen["why"]["stale"]["premise"] == ids["city"]
