"""Tools over HTTP (issue 40), on both backends: an agent key that names a tool nobody
registered gets a candidate, never an active business fact; an admin key registers, lists and
withdraws tools; a read that requires an authority leaves out what holds less and, when nothing
is left, answers with a refusal naming what was missing."""

from __future__ import annotations

from typing import Any

from tests.http_api import Api, Key, problem_of

REFUND = "7 days full refund"


def refund_claim(api: Api, tool: str, **more: Any) -> dict[str, Any]:
    return api.memory(kind="fact", subject="policy:returns", key="refund.window", value=REFUND,
                      source_kind="tool_result", source_id="call-7781", tool=tool,
                      tool_version="v2", owner="ops", retention_reason="policy") | more


def post(api: Api, key: Key, path: str, body: dict[str, Any], status: int) -> Any:
    answer = api.client.post(path, json=body, headers=key.headers)
    assert answer.status_code == status, answer.text
    return answer.json()


def memories(api: Api, key: Key, **query: Any) -> list[Any]:
    answer = api.client.get("/v1/memories", headers=key.headers,
                            params={"subject": "policy:returns"} | query)
    assert answer.status_code == 200, answer.text
    return [m["value"] for m in answer.json()["items"]]


def test_an_agent_key_naming_a_made_up_tool_gets_a_candidate_not_an_active_fact(
    api: Api,
) -> None:
    agent = api.key("agent", user="42", name="support-bot")
    said = post(api, agent, "/v1/memories", refund_claim(api, "refund-oracle"), 201)
    assert said["decision"] == "candidate"
    assert "tool refund-oracle is not registered" in said["reason"]
    assert memories(api, agent) == []
    assert memories(api, agent, candidates=True) == [REFUND]


def test_an_admin_key_registers_a_tool_and_then_its_results_are_active(api: Api) -> None:
    admin, agent = api.key("admin"), api.key("agent", user="42", name="support-bot")
    writer = api.key("writer", user="42")
    body = {"name": "policy-service", "version": "v2", "reporters": ["support-bot"],
            "reason": "the policy service"}
    refused = api.client.post("/v1/tools", json=body, headers=writer.headers)
    assert "admin key" in problem_of(refused, 403, "forbidden")["detail"]
    post(api, admin, "/v1/tools", body, 201)
    listed = api.client.get("/v1/tools", headers=admin.headers).json()["items"]
    assert [(t["name"], t["version"], t["reporters"]) for t in listed] == [
        ("policy-service", "v2", ["support-bot"])]
    said = post(api, agent, "/v1/memories", refund_claim(api, "policy-service"), 201)
    assert said["decision"] == "active"
    by_writer = post(api, writer, "/v1/memories", refund_claim(
        api, "policy-service", key="refund.other", source_id="call-2"), 201)
    assert by_writer["decision"] == "candidate" and "not registered to report" in \
        by_writer["reason"]
    post(api, admin, "/v1/tools/withdrawal", {"name": "policy-service", "version": "v2"}, 200)
    assert api.client.get("/v1/tools", headers=admin.headers).json()["items"] == []


def test_a_malformed_tool_registration_is_one_line_and_records_nothing(api: Api) -> None:
    admin = api.key("admin")
    bad = api.client.post("/v1/tools", json={"name": "two words"}, headers=admin.headers)
    assert "without blanks" in problem_of(bad, 400, "invalid-argument")["detail"]
    gone = api.client.post("/v1/tools/withdrawal", json={"name": "crm"}, headers=admin.headers)
    problem_of(gone, 400, "invalid-argument")
    assert api.client.get("/v1/tools", headers=admin.headers).json()["items"] == []


def test_a_high_risk_read_leaves_out_a_model_guess_and_says_which_authority_was_missing(
    api: Api,
) -> None:
    agent = api.key("agent", user="42")
    guess = api.memory(kind="task_state", subject="task:1182", key="refund.status",
                       value="refund of 240 euros approved", source_kind="agent_output",
                       source_id="plan-4", thread="refund-1182", ttl_seconds=86400,
                       owner="ops")
    post(api, agent, "/v1/memories", guess, 201)
    asked = {"query": "refund approved", "thread": "refund-1182"}
    low = post(api, agent, "/v1/search", asked | {"risk": "low"}, 200)
    assert [r["value"] for r in low["results"]] == ["refund of 240 euros approved"]
    assert low["refusal"] is None
    high = post(api, agent, "/v1/search", asked | {"risk": "high"}, 200)
    assert high["results"] == []
    assert high["excluded"] == {"below the required authority": 1}
    assert high["refusal"].startswith("nothing here holds the authority this read requires: "
                                      "authoritative or above")
    assert "240" not in high["refusal"]
    pack = post(api, agent, "/v1/context", asked | {"budget": 400,
                                                    "min_authority": "user_statement"}, 200)
    assert pack["items"] == [] and "user_statement or above" in pack["refusal"]
    assert "240" not in pack["text"] and "user_statement or above" in pack["text"]
    wrong = api.client.post("/v1/search", json=asked | {"risk": "extreme"},
                            headers=agent.headers)
    assert "low', 'medium' or 'high" in problem_of(wrong, 422, "validation-error")["detail"]
