"""A metric question says when its answer rests on a premise restated by the cutoff (issue 40,
docs/semantics.md "Staleness"), in Python, on the command line, over HTTP and over MCP, on both
backends: a fourth quarter computed on the earlier basis (the year less nine months, both as
filed before a 10-K/A restated the year) names the restated year, when and by what; the same
question before the 10-K/A, or once a 10-Q restated the nine months too, marks nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.factories import run
from tests.http_api import Api
from tests.test_mcp import key_of, over_mcp
from tests.test_restatement_basis import NINE, one, written
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import parse_instant
from vintage.graph.retrieval.embedder import minilm
from vintage.graph.store.protocol import Store
from vintage.ingest.facts_table import ingest_table
from vintage.mcp.server import build_server
from vintage.queries.lineage.staleness import SUPERSEDED
from vintage.queries.metrics.definitions import resolve_metric

RESTATED_ON = "2025-06-16T00:00:00Z"  # the 10-K/A that restated fiscal 2024 (as JSON says it)
ASKED = {"subject": "NINE", "period": "FY2024Q4"}


def loaded(store: Store, scope: Scope, tmp_path: Path) -> None:
    ingest_table(store, scope, written(tmp_path, "nine.csv", NINE), "test")


def test_a_quarter_on_the_earlier_basis_names_the_restated_year_and_no_other_answer_is_stale(
        store: Store, scope: Scope, tmp_path: Path) -> None:
    loaded(store, scope, tmp_path)
    revenue = resolve_metric("revenue")
    q4 = one(store, scope, revenue, "NINE", "2025-07-01", "FY2024Q4")
    assert q4.value == 460 - 330 and q4.stale is not None
    (year,) = [i for i in q4.inputs if i.period == "2024-01-01..2025-01-01"]
    assert (q4.stale.premise, q4.stale.reason, q4.stale.when) == (
        year.id, SUPERSEDED, parse_instant(RESTATED_ON))
    assert q4.stale.by is not None and q4.stale.key == "us-gaap:Revenues"
    before = one(store, scope, revenue, "NINE", "2025-03-01", "FY2024Q4")  # restated later
    caught_up = one(store, scope, revenue, "NINE", "2025-12-01", "FY2024Q4")  # one basis
    assert (before.value, caught_up.value) == (460 - 330, 435 - 310)
    assert (before.stale, caught_up.stale) == (None, None)


def test_the_command_line_says_the_stale_premise_in_text_and_json(
        store_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    nine = written(tmp_path, "nine.csv", NINE)
    assert run([*store_args, "ingest", "facts", str(nine)], capsys, monkeypatch)[0] == 0
    asked = [*store_args, "asof", "revenue", "--subject", "NINE", "--cutoff", "2025-07-01",
             "--period", "FY2024Q4"]
    code, out, err = run([*asked, "--json"], capsys, monkeypatch)
    assert code == 0, err
    stale = json.loads(out)["answers"][0]["stale"]
    assert (stale["reason"], stale["when"]) == (SUPERSEDED, RESTATED_ON)
    code, out, err = run(asked, capsys, monkeypatch)
    assert code == 0, err
    assert "NINE STALE: premise NINE us-gaap:Revenues (" in out
    assert "superseded 2025-06-16T00:00:00Z by " in out


def test_the_http_api_carries_the_same_marking(api: Api, tmp_path: Path) -> None:
    loaded(api.store, Scope(tenant=api.tenant), tmp_path)
    reader = api.key("reader")

    def stale(cutoff: str) -> Any:
        got = api.client.get("/v1/metrics/revenue", headers=reader.headers,
                             params=ASKED | {"cutoff": cutoff})
        assert got.status_code == 200, got.text
        return got.json()["answers"][0]["stale"]

    assert (stale("2025-07-01")["reason"], stale("2025-07-01")["when"]) == (SUPERSEDED,
                                                                            RESTATED_ON)
    assert (stale("2025-03-01"), stale("2025-12-01")) == (None, None)


def test_the_mcp_asof_tool_carries_the_same_marking(store: Store, tenant: str,
                                                    tmp_path: Path) -> None:
    loaded(store, Scope(tenant=tenant), tmp_path)
    server = build_server(store, key_of(store, tenant, "reader"), minilm())

    async def talk(client: Client) -> list[Any]:
        return [await client.call_tool("asof", {"metric": "revenue", "subjects": ["NINE"],
                                                "cutoff": cutoff, "period": "FY2024Q4"})
                for cutoff in ("2025-07-01", "2025-03-01")]

    stale, fresh = over_mcp(server, talk)
    assert not stale.is_error and not fresh.is_error
    assert stale.structured_content["answers"][0]["stale"]["reason"] == SUPERSEDED
    assert fresh.structured_content["answers"][0]["stale"] is None
