"""What the lineage explorer reads over HTTP (docs/explorer.md), on the demo's real filings:
a fact's versions on their three axes with their filings and revision classes, the as-of answer
for its assertion, a metric across cutoffs, the recorded evaluation report, a scope's memory
health; and a key of another tenant reaches none of it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.http_api import Api, Key, problem_of
from vintage.demo import MARGIN_CUTOFFS, RECAST_FILING, DemoResult, run_demo
from vintage.queries.eval import recorded

SEC = "https://www.sec.gov/Archives/edgar/data/1652044/"
MARGIN: dict[str, Any] = {"subject": "GOOGL", "period": "FY2018Q1"}


@pytest.fixture
def demo(embedded: Api) -> DemoResult:
    """The demo's filings loaded into the test's tenant (what ``make demo`` loads)."""
    return run_demo(embedded.store, tenant=embedded.tenant)


def margin_id(demo: DemoResult) -> str:
    """The operating margin of Q1 2018 as known in 2019 (recomputed on the recast)."""
    (answer,) = [a for c, a in demo.margins
                 if a.metric == "operating_margin" and c == MARGIN_CUTOFFS[1]]
    fact_id = answer.answers[0].fact_id
    assert fact_id is not None
    return fact_id


def get(api: Api, key: Key, path: str, **params: Any) -> dict[str, Any]:
    found = api.client.get(path, params=params, headers=key.headers)
    assert found.status_code == 200, found.text
    body: dict[str, Any] = found.json()
    return body


def test_a_facts_versions_carry_three_axes_their_filings_on_sec_gov_and_the_revision_class(
    embedded: Api, demo: DemoResult,
) -> None:
    reader = embedded.key("reader")
    fact_id = margin_id(demo)
    body = get(embedded, reader, f"/v1/facts/{fact_id}/versions")
    first, second = body["items"]
    assert body["fact"] == fact_id and second["id"] == fact_id
    assert round(first["value"], 2) == 22.48 and round(second["value"], 2) == 24.51
    # Known from the 2018 10-Q until the recast; the recomputed one from the recast on.
    assert first["knowledge"] == ["2018-04-24T00:00:00Z", "2019-04-30T00:00:00Z"]
    assert second["knowledge"] == ["2019-04-30T00:00:00Z", None]
    assert first["valid"] == second["valid"] == ["2018-01-01T00:00:00Z", "2018-04-01T00:00:00Z"]
    assert all(v["system"][0] and v["system"][1] is None for v in body["items"])
    assert (first["change"], second["change"]) == (None, "recomputed")
    assert first["cited"] == second["cited"] == "inputs"  # a margin cites its inputs' filings
    assert {s["accession"] for s in first["sources"]} == {"0001652044-18-000016"}
    recast = [s for s in second["sources"] if s["accession"] == RECAST_FILING]
    assert recast[0]["form"] == "10-Q"
    assert recast[0]["uri"] == SEC + RECAST_FILING.replace("-", "") + "/"


def test_a_filed_figures_correction_is_classed_and_cites_the_filing_that_filed_it(
    embedded: Api, demo: DemoResult,
) -> None:
    reader = embedded.key("reader")
    income = next(f for f in demo.impact.changed if f.predicate == "us-gaap:OperatingIncomeLoss")
    body = get(embedded, reader, f"/v1/facts/{income.id}/versions")
    assert [v["revision"] for v in body["items"]] == [1, 2]
    assert [v["cited"] for v in body["items"]] == ["support", "support"]
    # The recast moved costs between lines while revenue held: the ingest's classification.
    assert [v["change"] for v in body["items"]] == [None, "reclassification"]
    assert RECAST_FILING in {s["id"] for s in body["items"][1]["sources"]}


def test_the_as_of_answer_is_the_version_public_at_the_cutoff_and_none_before_any(
    embedded: Api, demo: DemoResult,
) -> None:
    reader = embedded.key("reader")
    path = f"/v1/facts/{margin_id(demo)}/asof"
    answers = {cutoff: get(embedded, reader, path, cutoff=cutoff)["answer"]
               for cutoff in ("2018-01-31", *MARGIN_CUTOFFS)}
    assert answers["2018-01-31"] is None
    assert round(answers["2018-06-30"]["value"], 2) == 22.48
    # As known then: the 2018 version's knowledge end (the recast) is not shown in 2018.
    assert answers["2018-06-30"]["knowledge"][1] is None
    assert round(answers["2019-06-30"]["value"], 2) == 24.51


def test_a_metric_across_cutoffs_answers_once_per_cutoff_in_the_order_asked(
    embedded: Api, demo: DemoResult,
) -> None:
    reader = embedded.key("reader")
    body = get(embedded, reader, "/v1/metrics/operating_margin/cutoffs",
               cutoff=list(reversed(MARGIN_CUTOFFS)), **MARGIN)
    assert body["metric"] == "operating_margin" and body["period"] == "FY2018Q1"
    assert [a["cutoff"][:10] for a in body["answers"]] == ["2019-06-30", "2018-06-30"]
    assert [round(a["answers"][0]["value"], 2) for a in body["answers"]] == [24.51, 22.48]


def test_bad_cutoffs_and_unknown_metrics_are_one_line_problems(
    embedded: Api, demo: DemoResult,
) -> None:
    reader = embedded.key("reader")
    path = "/v1/metrics/operating_margin/cutoffs"
    too_many = [f"{2000 + n}-06-30" for n in range(25)]
    for params in ({"cutoff": "yesterday"} | MARGIN, {"cutoff": too_many} | MARGIN,
                   MARGIN):
        problem_of(embedded.client.get(path, params=params, headers=reader.headers),
                   422, "validation-error")
    unknown = embedded.client.get("/v1/metrics/no_such_metric/cutoffs", headers=reader.headers,
                                  params={"cutoff": "2019-06-30"} | MARGIN)
    assert "\n" not in problem_of(unknown, 400, "invalid-argument")["detail"]
    naive = embedded.client.get(f"/v1/facts/{margin_id(demo)}/asof", headers=reader.headers,
                                params={"cutoff": "2019-06-30T00:00:00"})
    problem_of(naive, 422, "validation-error")


def test_the_eval_report_is_404_until_recorded_then_the_tenants_latest(embedded: Api) -> None:
    reader = embedded.key("reader")
    missing = embedded.client.get("/v1/eval/report", headers=reader.headers)
    assert "vintage eval --record" in problem_of(missing, 404, "not-found")["detail"]
    for run in ("first", "second"):
        recorded.record(embedded.store, embedded.tenant, {"run": run, "rungs": []}, actor="ci")
        embedded.clock.advance(seconds=1)
    body = get(embedded, reader, "/v1/eval/report")
    assert body["summary"] == {"run": "second", "rungs": []} and body["actor"] == "ci"


def test_memory_health_reads_the_keys_user_and_runs_no_drill(embedded: Api) -> None:
    mine = embedded.key("writer", user="42")
    sent = embedded.client.post("/v1/memories", headers=mine.headers, json=embedded.memory())
    assert sent.status_code == 201, sent.text
    body = get(embedded, mine, "/v1/eval/health", days=7)
    assert body["scope"] == ["user=42"] and body["memories"] == 1 and "drill" not in body
    assert len(body["cold"]) == 1  # never handed to an agent yet
    before = len(embedded.store.events(embedded.tenant))
    get(embedded, mine, "/v1/eval/health")
    assert len(embedded.store.events(embedded.tenant)) == before  # a read writes nothing


def test_a_key_of_another_tenant_reaches_nothing_the_explorer_reads(
    embedded: Api, demo: DemoResult,
) -> None:
    recorded.record(embedded.store, embedded.tenant, {"run": "ours"}, actor="ci")
    other = embedded.key("admin", tenant=embedded.tenant + "-other")
    fact_id = margin_id(demo)
    for path in (f"/v1/facts/{fact_id}/versions", f"/v1/facts/{fact_id}/explanation",
                 f"/v1/facts/{fact_id}/impact", f"/v1/sources/{RECAST_FILING}/impact",
                 "/v1/eval/report"):
        found = embedded.client.get(path, headers=other.headers)
        problem_of(found, 404, "not-found")  # as an id that does not exist: the id echoed
        assert "GOOGL" not in found.text and "ours" not in found.text
    asof = embedded.client.get(f"/v1/facts/{fact_id}/asof", headers=other.headers,
                               params={"cutoff": "2019-06-30"})
    problem_of(asof, 404, "not-found")
    across = embedded.client.get("/v1/metrics/operating_margin/cutoffs", headers=other.headers,
                                 params={"cutoff": list(MARGIN_CUTOFFS)} | MARGIN)
    # The other tenant has no GOOGL: refused or empty, never this tenant's margin.
    assert "24.50" not in across.text and "22.47" not in across.text
    assert fact_id not in across.text
