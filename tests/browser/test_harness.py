"""The harness itself, on pages that exist whatever the explorer shows: the API's own docs load
in Chromium with no console error and no failed request, and the watcher does catch a failed
request and a console error (a harness that cannot fail proves nothing)."""

from __future__ import annotations

from tests.browser.harness import Explorer, Watched


def test_the_api_docs_load_in_chromium_from_the_service_alone(
        explorer: Explorer, watched: Watched) -> None:
    page = watched.page
    page.goto(f"{explorer.url}/docs")
    page.locator(".swagger-ui .info .title").wait_for()
    assert "Vintage" in page.locator(".swagger-ui .info .title").inner_text()
    # Swagger UI read the OpenAPI document, the explorer's routes in it.
    page.get_by_text("/v1/facts/{fact_id}/versions").first.wait_for()


def test_the_watcher_reports_a_failed_answer_and_a_console_error(
        explorer: Explorer, watched: Watched) -> None:
    page = watched.page
    page.goto(f"{explorer.url}/healthz")
    page.evaluate("fetch('/no-such-path')")
    page.evaluate("console.error('something broke')")
    page.wait_for_timeout(500)
    caught = list(watched.problems)
    assert any("answer 404" in p and "/no-such-path" in p for p in caught), caught
    assert any("console error: something broke" in p for p in caught), caught
    watched.problems.clear()  # caught as they should be: this test passes
