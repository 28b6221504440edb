"""The browser tier's fixtures: ``explorer`` (one `vintage serve` on the demo's data for the
session, stopped at its end) and ``watched`` (a fresh Chromium profile per test; the test fails
on any console error, uncaught exception or failed request, and leaves a screenshot in
build/test-artifacts/, its path printed)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Playwright, sync_playwright

from tests.browser.harness import (
    CHROMIUM,
    FLAGS,
    HOTEL,
    OTHER_ROWS,
    OTHER_TENANT,
    REFUND,
    ROOT,
    VIEWPORT,
    Explorer,
    Watched,
    artifact,
    call,
    free_port,
    started,
    stop,
)
from tests.test_eval import TWO_USERS
from vintage.demo import DEMO_TENANT, MARGIN_CUTOFFS, RECAST_FILING, run_demo
from vintage.graph.access import create_key
from vintage.graph.core.model import Scope
from vintage.graph.memory.gate import MemoryIn
from vintage.graph.memory.remember import remember
from vintage.graph.store.backends import open_store
from vintage.ingest.facts_table import ingest_table
from vintage.queries.memory.summaries import summarise

ANALYST = "analyst"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).parent == Path(__file__).parent:
            item.add_marker(pytest.mark.browser)


def _remembered(folder: Path) -> dict[str, str]:
    """User analyst's memories, written a week ago (the store's clock set back, so that
    nothing waits): a hotel held three days and a summary resting on it, which every read
    since hands over marked stale, its premise expired (docs/semantics.md, "Staleness"); and
    a refund preference in Chinese. Their ids: hotel, summary, refund."""
    then = datetime.now(UTC) - timedelta(days=7)
    store = open_store(str(folder / "store"), clock=lambda: then)
    scope = Scope(tenant=DEMO_TENANT, keys={"user": ANALYST})
    ids: dict[str, str] = {}
    try:
        for name, key, value, ttl in (("hotel", "trip.hotel", HOTEL, 3 * 86400),
                                      ("refund", "refund.preference", REFUND, None)):
            done = remember(store, MemoryIn.model_validate({
                "kind": "preference", "tenant": DEMO_TENANT, "subject": f"user:{ANALYST}",
                "key": key, "value": value, "source_kind": "user_message",
                "source_id": f"msg-{name}", "observed_at": then.isoformat(),
                "owner": f"user:{ANALYST}", "retention_reason": "asked to remember",
                "user": ANALYST, "ttl_seconds": ttl}), actor="browser tests")
            assert done.memory_id is not None, done.reason
            ids[name] = done.memory_id
        ids["summary"] = summarise(store, scope, f"user:{ANALYST}", keys=["trip.hotel"],
                                   actor="browser tests").fact.id
    finally:
        store.close()
    return ids


def _loaded(folder: Path) -> tuple[dict[str, str], str]:
    """The demo's data in tenant demo, another tenant's figures, and the keys: (keys, the
    recomputed operating margin's id)."""
    store = open_store(str(folder / "store"))
    try:
        demo = run_demo(store)
        table = folder / "other.csv"
        table.write_text(OTHER_ROWS, encoding="utf-8")
        ingest_table(store, Scope(tenant=OTHER_TENANT), table, "browser tests")
        keys = {name: create_key(store, tenant, role, actor="browser tests", **binding)[1]
                for name, tenant, role, binding in (
                    ("reader", DEMO_TENANT, "reader", {}),
                    ("analyst", DEMO_TENANT, "reader", {"user": ANALYST}),
                    ("writer", DEMO_TENANT, "writer", {"user": ANALYST}),
                    ("other", OTHER_TENANT, "reader", {}))}
    finally:
        store.close()
    (margin,) = [a.answers[0].fact_id for c, a in demo.margins
                 if a.metric == "operating_margin" and c == MARGIN_CUTOFFS[1]]
    assert margin is not None
    return keys, margin


def _evaluated(folder: Path) -> None:
    """A real evaluation recorded in tenant demo (`vintage eval --record`), for the eval page."""
    scenario = folder / "scenario.yaml"
    scenario.write_text(TWO_USERS % "Lisbon", encoding="utf-8")
    subprocess.run([sys.executable, "-c", "from vintage.cli.main import main; main()",
                    "--store", str(folder / "store"), "--tenant", DEMO_TENANT, "eval",
                    "--scenarios", str(scenario), "--rung", "none", "--rung", "engine",
                    "--record"], cwd=ROOT, check=True, capture_output=True, timeout=600)


# Package-scoped, not session-scoped: the tier's server and Playwright end with the tier's last
# test. Playwright's sync API keeps an event loop running in the main thread while it lives, and
# every later test that calls asyncio.run (MCP, graphiti-core) would fail under it.
@pytest.fixture(scope="package")
def explorer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Explorer]:
    folder = tmp_path_factory.mktemp("explorer")
    memories = _remembered(folder)  # first: the store's system time only moves forward
    keys, margin = _loaded(folder)
    _evaluated(folder)
    port = free_port()
    server = started(folder / "store", port, folder / "serve.log")
    url = f"http://127.0.0.1:{port}"
    try:
        call(f"{url}/v1/memories", keys["writer"], {
            "kind": "preference", "subject": f"user:{ANALYST}", "key": "report.currency",
            "value": "figures in USD, margins in percent", "source_kind": "user_message",
            "source_id": "msg-1", "observed_at": "2026-01-01T00:00:00Z",
            "owner": f"user:{ANALYST}", "retention_reason": "asked to remember"})
        pack = call(f"{url}/v1/context", keys["writer"], {
            "query": "Alphabet operating margin 2018, the Galway hotel and 退款", "budget": 400,
            "user": ANALYST, "for_thread": "review-1"})
        yield Explorer(url=url, reader=keys["reader"], analyst=keys["analyst"],
                       other=keys["other"], margin=margin, recast=RECAST_FILING,
                       injection=pack["injection"], **memories)
    finally:
        stop(server)


@pytest.fixture(scope="package")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture
def watched(playwright: Playwright, tmp_path: Path,
            request: pytest.FixtureRequest) -> Iterator[Watched]:
    # A fresh profile per test (Playwright takes it as the persistent context's folder: it
    # refuses --user-data-dir among the arguments); never a browser Playwright downloaded.
    context = playwright.chromium.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=CHROMIUM, headless=True, args=list(FLAGS),
        viewport=VIEWPORT)
    try:
        page = context.pages[0] if context.pages else context.new_page()
        seen = Watched(page)
        yield seen
        shot = artifact(request.node.nodeid)
        page.screenshot(path=str(shot), full_page=True)
        print(f"screenshot: {shot}")
        seen.api_bodies()  # a response the page could not read is a problem too
    finally:
        context.close()
    assert seen.problems == [], "\n".join(seen.problems)
