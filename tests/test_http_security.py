"""Who may do what through the HTTP API: a request without a valid key is 401, told "missing"
when it has no key and one other message whatever else is wrong with it; a key's role and
binding decide what it may write (403); an id of another tenant or another user answers 404
exactly like an id that does not exist; the audit names the key."""

from __future__ import annotations

from collections.abc import Callable

import httpx2

from tests.http_api import Api, Key, finished, problem_of
from tests.test_http_api import KPIS

REFUSED = "invalid or revoked API key"
MISSING = "missing API key (send Authorization: Bearer vk_…)"


def remembered(api: Api, key: Key, **fields: str) -> str:
    """A memory written with ``key``; its id."""
    done = api.client.post("/v1/memories", json=api.memory(**fields), headers=key.headers)
    assert done.status_code == 201, done.text
    memory_id: str = done.json()["memory_id"]
    return memory_id


def test_a_request_with_no_key_is_told_the_key_is_missing_and_any_other_bad_key_is_refused(
    embedded: Api,
) -> None:
    admin, victim = embedded.key("admin"), embedded.key("reader", user="42")
    tampered = victim.secret[:-1] + ("0" if victim.secret[-1] != "0" else "1")
    revoked = embedded.client.post(f"/v1/keys/{victim.principal.key_id}/revocation",
                                   json={"reason": "left"}, headers=admin.headers)
    assert revoked.status_code == 200
    missing = embedded.client.get("/v1/memories", params={"subject": "user:42"})
    assert problem_of(missing, 401, "unauthorized")["detail"] == MISSING
    assert missing.headers["www-authenticate"] == 'Bearer realm="vintage"'
    for headers in ({"Authorization": f"Basic {victim.secret}"}, {"Authorization": "Bearer"},
                    {"Authorization": "Bearer vk_nonsense"},
                    {"Authorization": f"Bearer {tampered}"}, victim.headers):
        answer = embedded.client.get("/v1/memories", params={"subject": "user:42"},
                                     headers=headers)
        assert problem_of(answer, 401, "unauthorized")["detail"] == REFUSED
        assert answer.headers["www-authenticate"] == 'Bearer realm="vintage"'


def test_a_reader_key_writes_nothing(embedded: Api) -> None:
    reader = embedded.key("reader", user="42")
    for path, body in (("/v1/memories", embedded.memory(user="42")),
                       ("/v1/forget", {"subject": "user:42", "key": "k", "reason": "r"}),
                       ("/v1/rollback", {"to": "2026-01-01", "reason": "r"}),
                       ("/v1/sources/msg-1/retraction", {"reason": "r"})):
        problem_of(embedded.client.post(path, json=body, headers=reader.headers), 403,
                   "forbidden")
    upload = embedded.client.post("/v1/ingest/facts", content=KPIS.encode(),
                                  headers=reader.headers)
    problem_of(upload, 403, "forbidden")


def test_an_agent_key_never_writes_what_the_user_said(api: Api) -> None:
    agent = api.key("agent", user="42", name="support-bot")
    said = api.client.post("/v1/memories", json=api.memory(), headers=agent.headers)
    assert "not user_message" in problem_of(said, 403, "forbidden")["detail"]
    unnamed = api.memory(kind="fact", source_kind="tool_result", source_id="call-1",
                         source_version="crm-v2", key="plan")
    problem_of(api.client.post("/v1/memories", json=unnamed, headers=agent.headers), 403,
               "forbidden")
    named = api.client.post("/v1/memories", json=unnamed | {"tool": "crm.lookup"},
                            headers=agent.headers)
    assert named.status_code == 201, named.text
    correction = api.client.post(f"/v1/memories/{named.json()['memory_id']}/correction",
                                 json={"value": "team", "source_id": "msg-9"},
                                 headers=agent.headers)
    problem_of(correction, 403, "forbidden")  # a correction is the user's own message


def test_a_key_bound_to_a_user_reaches_no_other_user(embedded: Api) -> None:
    mine = embedded.key("writer", user="42")
    other = embedded.memory(subject="user:43", owner="user:43", user="43")
    problem_of(embedded.client.post("/v1/memories", json=other, headers=mine.headers), 403,
               "forbidden")
    listing = embedded.client.get("/v1/memories", params={"subject": "user:43", "user": "43"},
                                  headers=mine.headers)
    problem_of(listing, 403, "forbidden")
    wide = embedded.client.get("/v1/memories", params={"subject": "user:42",
                                                       "all_scopes": True},
                               headers=mine.headers)
    assert "admin" in problem_of(wide, 403, "forbidden")["detail"]


Ask = Callable[[Key, str], httpx2.Response]


def by_id(api: Api) -> dict[str, Ask]:
    """Every endpoint that takes an id, asked with a key for one id."""
    c, why = api.client, {"reason": "r"}
    return {
        "explanation": lambda k, i: c.get(f"/v1/facts/{i}/explanation", headers=k.headers),
        "fact impact": lambda k, i: c.get(f"/v1/facts/{i}/impact", headers=k.headers),
        "source impact": lambda k, i: c.get(f"/v1/sources/{i}/impact", headers=k.headers),
        "retraction": lambda k, i: c.post(f"/v1/sources/{i}/retraction", json=why,
                                          headers=k.headers),
        "undo": lambda k, i: c.post(f"/v1/sources/{i}/retraction/undo", json=why,
                                    headers=k.headers),
        "correction": lambda k, i: c.post(f"/v1/memories/{i}/correction", headers=k.headers,
                                          json={"value": "v", "source_id": "msg-x"}),
        "forget source": lambda k, i: c.post("/v1/forget", json={"source": i, "reason": "r"},
                                             headers=k.headers),
        "job": lambda k, i: c.get(f"/v1/jobs/{i}", headers=k.headers),
        "key revocation": lambda k, i: c.post(f"/v1/keys/{i}/revocation", json=why,
                                              headers=k.headers),
    }


def same_as_unknown(ask: Ask, key: Key, theirs: str) -> None:
    """Asking for ``theirs`` answers exactly as asking for an id nobody has."""
    unknown = "no-such-id"
    for_theirs, for_nothing = ask(key, theirs), ask(key, unknown)
    a = problem_of(for_theirs, 404, "not-found")
    b = problem_of(for_nothing, 404, "not-found")
    assert a["detail"].replace(theirs, "ID") == b["detail"].replace(unknown, "ID")


def test_ids_of_another_tenant_answer_404_like_ids_that_do_not_exist(api: Api) -> None:
    admin = api.key("admin")
    sent = api.client.post("/v1/ingest/facts", content=KPIS.encode(), headers=admin.headers)
    job = finished(api, sent.headers["location"], admin)
    fact = api.client.get("/v1/facts", params={"predicate": "us-gaap:Revenues",
                                               "subject": "PAY"},
                          headers=admin.headers).json()["items"][0]["id"]
    memory = remembered(api, api.key("writer", user="42"))
    stranger = api.key("admin", tenant=api.tenant + "-other")
    ids = {"explanation": fact, "fact impact": fact, "source impact": "er-q1",
           "retraction": "er-q1", "undo": "er-q1", "correction": memory,
           "forget source": "msg-1", "job": job["id"], "key revocation": admin.principal.key_id}
    for name, ask in by_id(api).items():
        same_as_unknown(ask, stranger, ids[name])


def test_ids_of_another_user_answer_404_like_ids_that_do_not_exist(embedded: Api) -> None:
    theirs = remembered(embedded, embedded.key("writer", user="43"), subject="user:43",
                        owner="user:43", user="43", source_id="msg-43")
    mine = embedded.key("writer", user="42")
    for name in ("explanation", "fact impact", "correction"):
        same_as_unknown(by_id(embedded)[name], mine, theirs)
    for name in ("source impact", "retraction", "forget source"):
        same_as_unknown(by_id(embedded)[name], mine, "msg-43")
    reader = embedded.key("reader", user="42")
    same_as_unknown(by_id(embedded)["correction"], reader, theirs)  # 404 before 403
    admin = embedded.key("admin")
    started = embedded.client.post("/v1/ingest/facts", content=KPIS.encode(),
                                   headers=admin.headers).json()["id"]
    same_as_unknown(by_id(embedded)["job"], mine, started)  # a job is its key's


def test_the_audit_names_the_key_and_shows_each_key_its_own_scope_only(api: Api) -> None:
    agent = api.key("agent", user="42", name="support-bot")
    note = api.memory(source_kind="agent_output", source_id="turn-3", key="likes.gifts",
                      value="probably")
    assert api.client.post("/v1/memories", json=note, headers=agent.headers).status_code == 201
    remembered(api, api.key("writer", user="43"), subject="user:43", owner="user:43",
               user="43", source_id="msg-43")
    mine = api.client.get("/v1/audit", headers=api.key("reader", user="42").headers).json()
    assert [(e["actor"], e["details"]["subject"]) for e in mine["items"]] == [
        ("key:" + agent.principal.key_id + "(support-bot)", "user:42")]
    every = api.client.get("/v1/audit", headers=api.key("admin").headers).json()["items"]
    assert {e["action"] for e in every} >= {"key.create"}
    assert not any("hash" in e["details"] or "salt" in e["details"] for e in every)


def test_a_tenant_wide_read_needs_an_admin_key_and_is_audited(embedded: Api) -> None:
    remembered(embedded, embedded.key("writer", user="42"))
    admin = embedded.key("admin", name="ops")
    wide = embedded.client.get("/v1/memories", params={"subject": "user:42",
                                                       "all_scopes": True},
                               headers=admin.headers)
    assert [m["value"] for m in wide.json()["items"]] == ["ship to the office"]
    reads = [e for e in embedded.client.get("/v1/audit", headers=admin.headers).json()["items"]
             if e["action"] == "read"]
    assert [e["actor"] for e in reads] == [admin.principal.actor]
