"""The HTTP API serves facts as the command line does: an upload loaded by a job, as-of reads in
pages of one snapshot, history, explain (JSON, PROV-JSON, GraphML), impact, retraction and its
undoing, metric questions; health and readiness; every error a problem with a stable type."""

from __future__ import annotations

import re
import socket
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.http_api import Api, Key, finished, problem_of
from vintage.graph.sealing.keyfile import FileKeyStore
from vintage.graph.store.backends import open_store
from vintage.http import routes_facts
from vintage.http.app import create_app
from vintage.ingest.bundled import COMPANYFACTS

FILES = COMPANYFACTS
# Revenue of a payments company as its earnings releases stated it, Q1 corrected a fortnight on.
KPIS = """\
subject,predicate,value,unit,period_start,period_end,source_id,available_at,form,source_kind
PAY,us-gaap:Revenues,100,USD,2024-01-01,2024-03-31,er-q1,2024-04-25,8-K,earnings_release
PAY,us-gaap:Revenues,110,USD,2024-04-01,2024-06-30,er-q2,2024-07-25,8-K,earnings_release
PAY,us-gaap:Revenues,120,USD,2024-07-01,2024-09-30,er-q3,2024-10-24,8-K,earnings_release
PAY,us-gaap:Revenues,130,USD,2024-10-01,2024-12-31,er-q4,2025-02-05,8-K,earnings_release
PAY,us-gaap:Revenues,460,USD,2024-01-01,2024-12-31,er-q4,2025-02-05,8-K,earnings_release
PAY,us-gaap:Revenues,105,USD,2024-01-01,2024-03-31,er-q1-fix,2024-05-10,8-K,earnings_release
"""
REVENUE = {"predicate": "us-gaap:Revenues", "subject": "PAY"}


def loaded(api: Api, rows: str = KPIS) -> Key:
    """The table uploaded by an admin key and its job finished; that key."""
    admin = api.key("admin", name="ops")
    sent = api.client.post("/v1/ingest/facts", content=rows.encode(), headers=admin.headers)
    assert sent.status_code == 202, sent.text
    job = finished(api, sent.headers["location"], admin)
    assert job["state"] == "succeeded", job
    return admin


def revenue(api: Api, key: Key, **params: Any) -> dict[float, str]:
    """Revenue values visible now (or as ``params`` say) -> their fact ids."""
    found = api.client.get("/v1/facts", params=REVENUE | params, headers=key.headers)
    assert found.status_code == 200, found.text
    return {f["value"]: f["id"] for f in found.json()["items"]}


def test_health_needs_no_key_and_ready_says_the_store_answers(embedded: Api) -> None:
    assert embedded.client.get("/healthz").json() == {"status": "ok"}
    ready = embedded.client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ready", "store": "reachable", "schema": "applied"}


def test_ready_and_every_request_answer_503_with_retry_after_while_neo4j_is_down(
    tmp_path: Path,
) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_app(lambda: open_store(f"bolt://127.0.0.1:{port}",
                                        keys=FileKeyStore(tmp_path / "keys")))
    with TestClient(app) as client:
        assert client.get("/healthz").status_code == 200
        for response in (client.get("/readyz"),
                         client.get("/v1/facts", params=REVENUE,
                                    headers={"Authorization": "Bearer vk_x"})):
            problem_of(response, 503, "store-unavailable")
            assert response.headers["retry-after"] == "5"
            assert str(port) not in response.text  # the server's address is not the caller's


def test_an_uploaded_table_is_loaded_by_a_job_that_tells_its_progress_and_summary(
    api: Api,
) -> None:
    admin = api.key("admin")
    sent = api.client.post("/v1/ingest/facts", content=KPIS.encode(), headers=admin.headers)
    assert sent.status_code == 202
    assert sent.headers["location"] == f"/v1/jobs/{sent.json()['id']}"
    job = finished(api, sent.headers["location"], admin)
    assert job["state"] == "succeeded"
    assert (job["done"], job["total"]) == (6, 6)
    assert job["result"]["facts_created"] == 6
    assert job["result"]["revisions"] == {"unclassified": 1}
    assert job["created_at"] == api.clock.now.isoformat().replace("+00:00", "Z")
    again = finished(api, api.client.post("/v1/ingest/facts", content=KPIS.encode(),
                                          headers=admin.headers).headers["location"], admin)
    assert again["result"]["facts_created"] == 0  # loading it twice changes nothing


def test_a_companyfacts_upload_is_streamed_and_loaded(embedded: Api) -> None:
    admin = embedded.key("admin")
    name = "CIK0001997711_LPA.json.gz"
    sent = embedded.client.post("/v1/ingest/companyfacts", params={"filename": name},
                                content=(FILES / name).read_bytes(), headers=admin.headers)
    job = finished(embedded, sent.headers["location"], admin)
    assert (job["state"], job["file"], job["result"]["subjects"]) == ("succeeded", name, ["LPA"])
    assert job["done"] == job["total"] == job["result"]["rows"] == 768


def test_a_malformed_upload_fails_its_job_with_a_problem_naming_the_row_not_the_server_path(
    embedded: Api,
) -> None:
    admin = embedded.key("admin")
    bad = KPIS.replace("110,USD", "lots,USD")
    sent = embedded.client.post("/v1/ingest/facts", content=bad.encode(), headers=admin.headers)
    job = finished(embedded, sent.headers["location"], admin)
    assert job["state"] == "failed"
    assert job["error"]["type"].endswith("/invalid-argument")
    assert job["error"]["detail"].startswith("facts.csv: row 3, field 'value'")
    assert "vintage-upload" not in job["error"]["detail"]
    nothing = embedded.client.get("/v1/facts", params=REVENUE, headers=admin.headers)
    assert "holds no subjects yet" in problem_of(nothing, 400, "invalid-argument")["detail"]


def test_facts_answer_what_was_public_at_the_cutoff_in_pages_of_one_snapshot(api: Api) -> None:
    admin = loaded(api)
    assert set(revenue(api, admin, cutoff="2024-05-01")) == {100}
    assert set(revenue(api, admin)) == {105, 110, 120, 130, 460}
    seen: list[float] = []
    params: dict[str, Any] = REVENUE | {"limit": 2}
    for _ in range(3):
        page = api.client.get("/v1/facts", params=params, headers=admin.headers).json()
        seen += [f["value"] for f in page["items"]]
        params["cursor"] = page["next_cursor"]
    assert params["cursor"] is None
    assert sorted(seen) == [105, 110, 120, 130, 460]


def test_history_explain_and_impact_answer_as_the_command_line_does(api: Api) -> None:
    admin = loaded(api)
    history = api.client.get("/v1/facts/history", headers=admin.headers, params=REVENUE | {
        "valid_from": "2024-01-01", "valid_to": "2024-04-01", "unit": "USD"}).json()
    assert [f["value"] for f in history["items"]] == [100, 105]
    fixed = revenue(api, admin)[105]
    tree = api.client.get(f"/v1/facts/{fixed}/explanation", headers=admin.headers).json()
    assert [s["id"] for s in tree["root"]["sources"]] == ["er-q1-fix"]
    assert tree["root"]["supersedes"] == [history["items"][0]["id"]]
    prov = api.client.get(f"/v1/facts/{fixed}/explanation", params={"format": "prov-json"},
                          headers=admin.headers)
    assert "entity" in prov.json()
    graph = api.client.get(f"/v1/facts/{fixed}/explanation", params={"format": "graphml"},
                           headers=admin.headers)
    assert graph.headers["content-type"].startswith("application/graphml+xml")
    assert graph.text.startswith("<graphml")
    reach = api.client.get("/v1/sources/er-q1-fix/impact", headers=admin.headers).json()
    assert [f["id"] for f in reach["changed"]] == [fixed]


def test_a_retraction_and_its_undoing_change_what_is_held_now(api: Api) -> None:
    admin = loaded(api)
    fixed = revenue(api, admin)[105]
    why = {"reason": "the correction was issued in error"}
    gone = api.client.post("/v1/sources/er-q1-fix/retraction", json=why, headers=admin.headers)
    assert gone.status_code == 200, gone.text
    assert gone.json()["facts"] == [fixed]
    api.clock.advance(minutes=1)
    assert 100 in revenue(api, admin) and 105 not in revenue(api, admin)
    back = api.client.post("/v1/sources/er-q1-fix/retraction/undo", json=why,
                           headers=admin.headers)
    assert back.status_code == 200, back.text
    api.clock.advance(minutes=1)
    assert 105 in revenue(api, admin) and 100 not in revenue(api, admin)


def test_a_metric_question_answers_with_what_was_known_at_its_cutoff(api: Api) -> None:
    admin = loaded(api)
    asked = api.client.get("/v1/metrics/revenue", headers=admin.headers, params={
        "subject": "PAY", "cutoff": "2025-03-01", "period": "FY2024"})
    assert asked.status_code == 200, asked.text
    (answer,) = asked.json()["answers"]
    assert (answer["subject"], answer["value"], answer["period"]) == ("PAY", 460, "FY2024")


def test_every_error_is_a_problem_with_a_stable_type(embedded: Api,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    admin = loaded(embedded)
    invalid = problem_of(embedded.client.get("/v1/facts", params={"subject": "PAY"},
                                             headers=admin.headers), 422, "validation-error")
    assert invalid["errors"] == [{"loc": "query.predicate", "msg": "Field required"}]
    unknown = embedded.client.get("/v1/facts", params=REVENUE | {"subject": "NOPE"},
                                  headers=admin.headers)
    assert "unknown subject 'NOPE'" in problem_of(unknown, 400, "invalid-argument")["detail"]
    problem_of(embedded.client.get("/v1/nowhere"), 404, "not-found")
    wrong_method = embedded.client.delete("/healthz")
    assert wrong_method.status_code == 405
    assert wrong_method.json()["type"] == "about:blank"

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("secret engine detail")

    monkeypatch.setattr(routes_facts, "impact", broken)
    fault = embedded.client.get("/v1/sources/er-q1/impact", headers=admin.headers)
    body = problem_of(fault, 500, "internal")
    assert "secret" not in fault.text and "RuntimeError" not in fault.text
    assert body["instance"].startswith("urn:uuid:")


def test_the_openapi_document_is_3_1_with_an_example_for_every_body_and_answer(
    embedded: Api,
) -> None:
    document = embedded.client.get("/openapi.json").json()
    assert document["openapi"] == "3.1.0"
    assert document["components"]["securitySchemes"]["apiKey"]["scheme"] == "bearer"
    schemas = document["components"]["schemas"]

    def has_example(content: dict[str, Any]) -> bool:
        ref = content.get("schema", {}).get("$ref", "")
        named = schemas.get(ref.rsplit("/", 1)[-1], {})
        return "example" in content or "examples" in named or named == {}

    missing = [f"{verb} {path}" for path, ops in document["paths"].items()
               for verb, op in ops.items()
               for part in (op.get("requestBody", {}), op["responses"].get("200", {}),
                            op["responses"].get("201", {}), op["responses"].get("202", {}))
               for media, content in part.get("content", {}).items()
               if media == "application/json" and not has_example(content)]
    assert missing == []
    problem = document["paths"]["/v1/memories"]["post"]["responses"]["412"]["content"]
    assert "application/problem+json" in problem


def test_the_docs_pages_load_swagger_ui_and_redoc_from_the_service_itself_not_a_cdn(
    embedded: Api,
) -> None:
    for page in ("/docs", "/redoc"):
        html = embedded.client.get(page)
        assert html.status_code == 200
        assets = re.findall(r'(?:src|href)="([^"]+)"', html.text)
        assert assets and all(a.startswith("/") for a in assets), assets  # same origin only
        for asset in assets:
            served = embedded.client.get(asset)
            assert served.status_code == 200 and len(served.content) > 1000, asset


def test_an_oversized_request_line_is_414_and_oversized_headers_431(embedded: Api) -> None:
    long_query = embedded.client.get("/healthz", params={"q": "a" * 10_000})
    assert long_query.status_code == 414 and "request line too long" in long_query.text
    big_headers = embedded.client.get("/healthz", headers={"X-Pad": "a" * 20_000})
    assert big_headers.status_code == 431 and "headers too large" in big_headers.text
    assert embedded.client.get("/healthz", params={"q": "a" * 4_000}).status_code == 200
