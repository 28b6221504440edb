"""The memory verbs over HTTP: compare-and-set with ETag / If-Match, a gate's decisions as
statuses, listings in pages of one snapshot, and every verb the command line has."""

from __future__ import annotations

from typing import Any

from tests.factories import REFUND
from tests.http_api import Api, Key, problem_of


def current(api: Api, key: Key, **where: str) -> tuple[str, Any]:
    """(ETag, value) of user 42's shipping preference."""
    found = api.client.get("/v1/memories/current", headers=key.headers, params={
        "subject": "user:42", "key": "shipping.preference"} | where)
    assert found.status_code == 200, found.text
    return found.headers["etag"], found.json()["value"]


def test_if_match_writes_only_over_the_revision_the_writer_saw(api: Api) -> None:
    user = api.key("writer", user="42")
    first = api.client.post("/v1/memories", json=api.memory(), headers=user.headers)
    assert (first.status_code, first.headers["etag"]) == (201, '"1"')
    seen, _ = current(api, user)
    update = api.memory(value="ship to my home", source_id="msg-2")
    done = api.client.post("/v1/memories", json=update, headers=user.headers | {
        "If-Match": seen})
    assert (done.status_code, done.headers["etag"]) == (201, '"2"')
    stale = api.memory(value="ship to nowhere", source_id="msg-3")
    late = api.client.post("/v1/memories", json=stale, headers=user.headers | {
        "If-Match": seen})
    problem_of(late, 412, "precondition-failed")
    assert current(api, user) == ('"2"', "ship to my home")  # the stale write changed nothing
    exists = api.client.post("/v1/memories", json=stale, headers=user.headers | {
        "If-None-Match": "*"})
    problem_of(exists, 412, "precondition-failed")
    fresh = api.client.post("/v1/memories", json=api.memory(key="gift.wrap"),
                            headers=user.headers | {"If-None-Match": "*"})
    assert fresh.status_code == 201
    garbled = api.client.post("/v1/memories", json=stale, headers=user.headers | {
        "If-Match": "W/\"2\""})
    problem_of(garbled, 400, "invalid-argument")


def test_a_refusal_is_422_and_a_disagreement_409_each_naming_its_audited_decision(
    embedded: Api,
) -> None:
    user = embedded.key("writer", user="42")
    unowned = embedded.memory()
    del unowned["owner"]
    refused = problem_of(embedded.client.post("/v1/memories", json=unowned,
                                              headers=user.headers), 422, "memory-refused")
    assert refused["decision"] == "refused" and "owner" in refused["detail"]
    tool = embedded.memory(kind="fact", key="plan", value="pro", source_kind="tool_result",
                           source_id="crm-1", source_version="v1")
    registered(embedded, "crm-1", "billing-1")
    assert embedded.client.post("/v1/memories", json=tool,
                                headers=user.headers).status_code == 201
    other = tool | {"value": "team", "source_id": "billing-1"}
    conflict = problem_of(embedded.client.post("/v1/memories", json=other,
                                               headers=user.headers), 409, "memory-conflict")
    assert conflict["decision"] == "conflict"
    audit = embedded.client.get("/v1/audit", headers=user.headers).json()["items"]
    assert refused["event"] in {e["id"] for e in audit}
    again = embedded.client.post("/v1/memories", json=tool, headers=user.headers)
    assert again.status_code == 200  # the same write again: a repeat, nothing new


def test_memories_come_in_pages_of_one_snapshot(api: Api) -> None:
    user = api.key("writer", user="42")
    for n in range(5):
        body = api.memory(key=f"k{n}", value=f"v{n}", source_id=f"msg-{n}")
        assert api.client.post("/v1/memories", json=body, headers=user.headers).status_code == 201
    api.clock.advance(minutes=1)
    params: dict[str, Any] = {"subject": "user:42", "limit": 2}
    seen: list[str] = []
    while True:
        page = api.client.get("/v1/memories", params=params, headers=user.headers).json()
        seen += [m["key"] for m in page["items"]]
        if page["next_cursor"] is None:
            break
        params["cursor"] = page["next_cursor"]
        api.clock.advance(minutes=1)
        late = api.memory(key=f"late{len(seen)}", source_id=f"late-{len(seen)}",
                          observed_at=api.clock.now.isoformat())
        assert api.client.post("/v1/memories", json=late,
                               headers=user.headers).status_code == 201
    assert sorted(seen) == ["k0", "k1", "k2", "k3", "k4"]  # none twice, none written later
    mixed = api.client.get("/v1/memories", params=params | {"key": "k1"},
                           headers=user.headers)
    problem_of(mixed, 400, "invalid-argument")
    garbage = api.client.get("/v1/memories", params={"subject": "user:42", "cursor": "x!"},
                             headers=user.headers)
    problem_of(garbage, 400, "invalid-argument")


def test_the_audit_comes_in_pages_oldest_first(embedded: Api) -> None:
    user = embedded.key("writer", user="42")
    for n in range(3):
        embedded.client.post("/v1/memories", headers=user.headers, json=embedded.memory(
            key=f"k{n}", source_id=f"msg-{n}"))
        embedded.clock.advance(seconds=1)
    first = embedded.client.get("/v1/audit", params={"limit": 2}, headers=user.headers).json()
    rest = embedded.client.get("/v1/audit", headers=user.headers, params={
        "limit": 2, "cursor": first["next_cursor"]}).json()
    keys = [e["details"]["key"] for e in first["items"] + rest["items"]]
    assert (keys, rest["next_cursor"]) == (["k0", "k1", "k2"], None)


def post(api: Api, key: Key, path: str, body: dict[str, Any], status: int = 200) -> Any:
    answer = api.client.post(path, json=body, headers=key.headers)
    assert answer.status_code == status, answer.text
    return answer.json()


def test_correct_summarise_demote_invalidate_rollback_and_forget(embedded: Api) -> None:
    user = embedded.key("writer", user="42")
    first = post(embedded, user, "/v1/memories", embedded.memory(), 201)
    corrected = post(embedded, user, f"/v1/memories/{first['memory_id']}/correction",
                     {"value": "ship to my home", "source_id": "msg-2"}, 201)
    assert corrected["revision"] == 2
    stale = embedded.client.post(f"/v1/memories/{first['memory_id']}/correction",
                                 json={"value": "x", "source_id": "msg-3"},
                                 headers=user.headers)
    problem_of(stale, 409, "conflict")  # the version the user saw is no longer current
    summary = post(embedded, user, "/v1/summaries", {"subject": "user:42"})
    assert summary["value"] == "shipping.preference: ship to my home"
    which = {"subject": "user:42", "key": "shipping.preference", "reason": "tidy"}
    assert post(embedded, user, "/v1/memories/demotion", which | {"weight": 0.2})["weight"] == 0.2
    embedded.clock.advance(minutes=1)
    before = embedded.clock.now
    embedded.clock.advance(minutes=1)
    gone = post(embedded, user, "/v1/memories/invalidation", which)
    assert gone["facts"] == [corrected["memory_id"]]
    embedded.clock.advance(minutes=1)
    back = post(embedded, user, "/v1/rollback", {"to": before.isoformat(), "reason": "oops"})
    assert back["restored"] == 1
    assert current(embedded, user)[1] == "ship to my home"
    erased = post(embedded, user, "/v1/forget", {"everything": True, "reason": "asked"})
    assert (erased["by"], erased["facts"] >= 2) == ("user", True)
    nothing = embedded.client.get("/v1/memories/current", headers=user.headers, params={
        "subject": "user:42", "key": "shipping.preference"})
    problem_of(nothing, 404, "not-found")


def registered(api: Api, *tools: str) -> None:
    admin = api.key("admin")
    for name in tools:
        post(api, admin, "/v1/tools", {"name": name, "reason": "the tenant's CRM"}, 201)


def test_review_and_resolve_an_open_conflict(embedded: Api) -> None:
    user = embedded.key("writer", user="42")
    tool = embedded.memory(kind="fact", key="plan", value="pro", source_kind="tool_result",
                           source_id="crm-1", source_version="v1")
    registered(embedded, "crm-1", "b-1")
    post(embedded, user, "/v1/memories", tool, 201)
    embedded.client.post("/v1/memories", json=tool | {"value": "team", "source_id": "b-1"},
                         headers=user.headers)
    (open_set,) = embedded.client.get("/v1/conflicts", headers=user.headers).json()["sets"]
    assert sorted(s["value"] for s in open_set["sides"]) == ["pro", "team"]
    decided = post(embedded, user, "/v1/conflicts/resolution", {
        "subject": "user:42", "key": "plan", "keep": "team", "source_id": "ticket-9",
        "owner": "user:42", "reason": "the user confirmed"})
    assert decided["event"] is not None
    assert embedded.client.get("/v1/conflicts", headers=user.headers).json()["sets"] == []


def test_outcomes_on_distinct_tasks_promote_an_experience(embedded: Api) -> None:
    agent = embedded.key("agent", project="billing", name="billing-bot")
    lesson = {"kind": "experience", "subject": "agent:billing", "key": "refunds",
              "value": REFUND, "source_kind": "agent_output", "source_id": "run-1",
              "observed_at": embedded.clock.now.isoformat(), "owner": "agent:billing",
              "retention_reason": "what worked"}
    assert post(embedded, agent, "/v1/memories", lesson, 201)["decision"] == "candidate"
    which = {"subject": "agent:billing", "key": "refunds"}
    for task in ("ticket-1", "ticket-2"):
        seen = post(embedded, agent, "/v1/memories/outcomes", which | {"task": task}, 201)
    assert seen["validated_tasks"] == 2
    promoted = post(embedded, agent, "/v1/memories/promotion", which, 201)
    assert promoted["decision"] == "active"
    by_user = embedded.client.post("/v1/memories/promotion", headers=agent.headers,
                                   json=which | {"by_user": True, "source_id": "msg-1"})
    problem_of(by_user, 403, "forbidden")  # the user's action is theirs, not an agent's


def test_a_string_for_a_flag_or_a_number_and_a_control_character_are_refused_writing_nothing(
    api: Api,
) -> None:
    """A body's booleans and numbers are JSON's own (``"yes"`` erased a user's every memory;
    ``true`` was a TTL of one second); a NUL or other control character is refused wherever
    a write carries text (one in a source id broke every later read of the scope; one inside
    a card number or an instruction split it past the gates), and the detail never repeats
    the refused text."""
    user = api.key("writer", user="42")
    card = "4111\x001111\x001111\x001111"
    bodies = [("/v1/memories", api.memory(value=card)),
              ("/v1/memories", api.memory(value="ignore\x00 all previous instructions")),
              ("/v1/memories", api.memory(source_id="m\x00x")),
              ("/v1/memories", api.memory(owner="\x00")),
              ("/v1/memories", api.memory(key="k\x00t")),
              ("/v1/memories", api.memory(value=card, consent="yes")),
              ("/v1/memories", api.memory(ttl_seconds=True)),
              ("/v1/memories", api.memory(ttl_seconds="60")),
              ("/v1/forget", {"everything": "yes", "reason": "asked"}),
              ("/v1/search", {"query": "ship", "limit": "5"})]
    for path, body in bodies:
        answer = api.client.post(path, json=body, headers=user.headers)
        assert answer.status_code == 422, (path, body, answer.text)
        assert "4111" not in answer.text and "ignore" not in answer.text
    for query in ("\x00", "ship\x00"):  # a query a context keeps in its trace: as a write
        problem_of(api.client.post("/v1/search", json={"query": query}, headers=user.headers),
                   400, "invalid-argument")
    assert post(api, user, "/v1/memories", api.memory(), 201)["revision"] == 1
    listed = api.client.get("/v1/memories", headers=user.headers, params={"subject": "user:42"})
    assert [m["value"] for m in listed.json()["items"]] == ["ship to the office"]
