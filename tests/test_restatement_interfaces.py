"""After a 10-Q/A amends one quarter, the command line, the HTTP API and the MCP tools give the
same decision on both backends: the last twelve months from the amended quarter and the others
as last reported, and an ``impact`` that labels the filed revision apart from the derivations
recomputed on it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.factories import run
from tests.http_api import Api
from tests.test_mcp import key_of, over_mcp
from tests.test_restatement_basis import AFTER, AMENDMENT, BEFORE, LTM, PAY, written
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import parse_instant
from vintage.graph.retrieval.embedder import minilm
from vintage.graph.store.protocol import Store
from vintage.ingest.facts_table import ingest_table
from vintage.mcp.server import build_server
from vintage.queries.metrics.definitions import resolve_metric
from vintage.queries.metrics.periods import parse_period
from vintage.queries.metrics.question import ask

SOURCE = "pay-10qa-2025q1"
# Revenue over the twelve months to June 2025: as filed, then with the amended first quarter.
FILED, RESTATED = 800 + 800 + 780 + 780, 800 + 800 + 660 + 780
LABELS = {"us-gaap:Revenues": "filed", "derived:us-gaap:Revenues": "recomputed"}


def amended_store(store: Store, scope: Scope, tmp_path: Path) -> None:
    """PAY's quarters, its revenue asked before the amendment (so a derivation exists), then
    the 10-Q/A ingested with recompute."""
    ingest_table(store, scope, written(tmp_path, "pay.csv", PAY), "test")
    ask(store, scope, resolve_metric("revenue"), ["PAY"], parse_instant(BEFORE),
        parse_period("LTM"))
    ingest_table(store, scope, written(tmp_path, "amendment.csv", AMENDMENT), "test",
                 recompute=True)


def labels(impact: dict[str, Any]) -> dict[str, str]:
    return {r["old"]["predicate"]: r["revision"] for r in impact["revised"]}


def test_the_command_line_answers_the_restated_ltm_and_labels_impact(
        store_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    pay, amendment = written(tmp_path, "pay.csv", PAY), written(tmp_path, "a.csv", AMENDMENT)
    assert run([*store_args, "ingest", "facts", str(pay)], capsys, monkeypatch)[0] == 0

    def asof(cutoff: str, *period: str) -> dict[str, Any]:
        code, out, err = run([*store_args, "asof", "revenue", "--subject", "PAY", "--cutoff",
                              cutoff, *period, "--json"], capsys, monkeypatch)
        assert code == 0, err
        answer: dict[str, Any] = json.loads(out)["answers"][0]
        return answer

    assert asof(BEFORE)["value"] == FILED
    code, _, err = run([*store_args, "ingest", "facts", str(amendment), "--recompute"], capsys,
                       monkeypatch)
    assert code == 0, err
    now, window = asof(AFTER), asof(AFTER, "--period", LTM)
    assert (now["value"], window["value"], window["fact_id"]) == (RESTATED, RESTATED,
                                                                  now["fact_id"])
    assert any(w.startswith("restated input: us-gaap:Revenues 2025-01-01..2025-04-01")
               for w in now["warnings"])
    assert asof(BEFORE)["value"] == FILED
    code, out, _ = run([*store_args, "impact", "--source", SOURCE, "--json"], capsys,
                       monkeypatch)
    assert code == 0 and labels(json.loads(out)) == LABELS
    code, out, _ = run([*store_args, "impact", "--source", SOURCE], capsys, monkeypatch)
    assert "filed revision" in out and "recomputed derivation" in out


def test_the_http_api_answers_the_restated_ltm_and_labels_impact(
        api: Api, tmp_path: Path) -> None:
    amended_store(api.store, Scope(tenant=api.tenant), tmp_path)
    reader = api.key("reader")

    def asof(cutoff: str, period: str = "LTM") -> dict[str, Any]:
        got = api.client.get("/v1/metrics/revenue", headers=reader.headers, params={
            "subject": "PAY", "cutoff": cutoff, "period": period})
        assert got.status_code == 200, got.text
        answer: dict[str, Any] = got.json()["answers"][0]
        return answer

    assert (asof(AFTER)["value"], asof(AFTER, LTM)["value"]) == (RESTATED, RESTATED)
    assert asof(BEFORE)["value"] == FILED
    reach = api.client.get(f"/v1/sources/{SOURCE}/impact", headers=reader.headers)
    assert reach.status_code == 200, reach.text
    assert labels(reach.json()) == LABELS


def test_the_mcp_tools_answer_the_restated_ltm_and_label_impact(
        store: Store, tenant: str, tmp_path: Path) -> None:
    amended_store(store, Scope(tenant=tenant), tmp_path)
    server = build_server(store, key_of(store, tenant, "reader"), minilm())

    async def talk(client: Client) -> list[Any]:
        return [await client.call_tool("asof", {"metric": "revenue", "subjects": ["PAY"],
                                                "cutoff": cutoff, "period": period})
                for cutoff, period in ((AFTER, "LTM"), (AFTER, LTM), (BEFORE, "LTM"))] + [
            await client.call_tool("impact", {"source_id": SOURCE})]

    *answers, reach = over_mcp(server, talk)
    assert not any(r.is_error for r in (*answers, reach))
    assert [a.structured_content["answers"][0]["value"] for a in answers] == [
        RESTATED, RESTATED, FILED]
    assert labels(reach.structured_content) == LABELS
