"""The lineage explorer in Chromium on the demo's data (issue 42; docs/explorer.md): the GOOGL
operating margin's two versions on three axes and its as-of answers, the 2019 10-Q's impact
clicked through by keyboard to the derived margin, the derivation tree, the metric across
cutoffs, a context's trace, search and the evaluation report; and a reader key of another
tenant sees nothing of it, in the page or in any API response the page received.

The pages are found by their ``data-testid`` names (the contract with the app, api/ui/web).
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.harness import OTHER_VALUES, Explorer, Watched

SEC_FILINGS = "https://www.sec.gov/Archives/edgar/data/1652044/"
OLD, NEW = "22.48", "24.51"  # the margin before and after the 2019 recast, in percent


def opened(explorer: Explorer, watched: Watched, key: str, route: str) -> Page:
    """The explorer with ``key`` entered (kept in the tab's sessionStorage), at ``route``."""
    page = watched.page
    watched.goto(f"{explorer.url}/ui/")
    page.get_by_test_id("key-input").fill(key)
    page.get_by_test_id("key-save").click()
    page.goto(f"{explorer.url}/ui/#/{route}")  # the same document: a hash change
    return page


def visit(explorer: Explorer, watched: Watched, route: str) -> Page:
    """``route`` loaded afresh (a new document: no answer of the page before lingers); the key
    stays, in the tab's sessionStorage."""
    watched.goto(f"{explorer.url}/ui/?visit={route.replace('/', '-')}#/{route}")
    return watched.page


def no_other_tenant_in(watched: Watched) -> None:
    bodies = watched.api_bodies()
    assert bodies, "the page made no API call"
    for body in bodies:
        assert not [v for v in OTHER_VALUES if v in body], body[:300]
    text = watched.page.locator("body").inner_text()
    assert not [v for v in OTHER_VALUES if v in text]


def test_the_explorer_is_served_from_the_package_under_a_self_only_policy(
        explorer: Explorer, watched: Watched) -> None:
    answer = watched.goto(f"{explorer.url}/ui/")
    assert answer is not None and answer.status == 200
    policy = answer.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    expect(watched.page.get_by_test_id("key-input")).to_be_visible()


def test_the_margin_shows_two_versions_on_three_axes_with_filings_and_change_class(
        explorer: Explorer, watched: Watched) -> None:
    page = opened(explorer, watched, explorer.reader, f"fact/{explorer.margin}")
    rows = page.get_by_test_id("version-row")
    expect(rows).to_have_count(2)
    first, second = rows.nth(0).inner_text(), rows.nth(1).inner_text()
    assert OLD in first and "2018-04-24" in first and "2019-04-30" in first
    assert NEW in second and "2019-04-30" in second
    for axis in ("valid", "knowledge", "system"):
        expect(page.get_by_test_id(f"band-{axis}")).to_have_count(2)
    expect(page.get_by_test_id("change-class").nth(1)).to_contain_text("recomputed")
    links = page.get_by_test_id("source-link")
    assert links.count() >= 2
    hrefs = [links.nth(i).get_attribute("href") or "" for i in range(links.count())]
    assert all(h.startswith(SEC_FILINGS) for h in hrefs), hrefs
    assert any("000165204419000015" in h for h in hrefs)  # the recast 10-Q
    no_other_tenant_in(watched)


def test_the_as_of_control_answers_what_a_question_returned_then(
        explorer: Explorer, watched: Watched) -> None:
    page = opened(explorer, watched, explorer.reader, f"fact/{explorer.margin}")
    answer = page.get_by_test_id("asof-answer")
    for cutoff, value, other in (("2018-06-30", OLD, NEW), ("2019-06-30", NEW, OLD)):
        page.get_by_test_id("asof-input").fill(cutoff)
        page.get_by_test_id("asof-go").click()
        expect(answer).to_contain_text(value)
        assert other not in answer.inner_text()


def test_the_recasts_impact_leads_by_keyboard_to_the_derived_margin(
        explorer: Explorer, watched: Watched) -> None:
    page = opened(explorer, watched, explorer.reader, f"impact/{explorer.recast}")
    expect(page.get_by_test_id("graph")).to_be_visible()
    node = page.get_by_test_id("graph-node-list").locator(
        f"[data-testid=graph-node][data-id='{explorer.margin}']")
    expect(node).to_have_count(1)
    node.get_by_role("link").focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(f"{explorer.url}/ui/#/fact/{explorer.margin}")
    expect(page.get_by_test_id("version-row")).to_have_count(2)
    no_other_tenant_in(watched)


def test_the_derivation_tree_lists_the_margins_inputs_down_to_the_recast(
        explorer: Explorer, watched: Watched) -> None:
    page = opened(explorer, watched, explorer.reader, f"explain/{explorer.margin}")
    expect(page.get_by_test_id("graph")).to_be_visible()
    nodes = page.get_by_test_id("graph-node")
    expect(nodes.first).to_be_visible()
    ids = [nodes.nth(i).get_attribute("data-id") for i in range(nodes.count())]
    assert explorer.margin in ids and explorer.recast in ids, ids


def test_the_metric_across_cutoffs_draws_what_was_known_when(
        explorer: Explorer, watched: Watched) -> None:
    page = opened(explorer, watched, explorer.reader,
                  "metric/operating_margin?subject=GOOGL&period=FY2018Q1"
                  "&cutoffs=2018-06-30,2019-06-30")
    expect(page.get_by_test_id("metric-chart")).to_be_visible()
    rows = page.get_by_test_id("metric-row")
    expect(rows).to_have_count(2)
    assert OLD in rows.nth(0).inner_text() and NEW in rows.nth(1).inner_text()


def test_a_contexts_trace_shows_candidates_filters_budget_and_what_was_handed_over(
        explorer: Explorer, watched: Watched) -> None:
    page = opened(explorer, watched, explorer.analyst, f"trace/{explorer.injection}")
    expect(page.get_by_test_id("trace-candidate").first).to_be_visible()
    expect(page.get_by_test_id("trace-budget")).to_contain_text("400")
    expect(page.get_by_test_id("trace-used")).to_be_visible()


def test_search_links_results_to_fact_pages(explorer: Explorer, watched: Watched) -> None:
    page = opened(explorer, watched, explorer.reader, "search")
    page.get_by_test_id("search-query").fill("GOOGL operating income")
    page.get_by_test_id("search-cutoff").fill("2019-06-30")
    page.get_by_test_id("search-go").click()
    results = page.get_by_test_id("search-result")
    expect(results.first).to_be_visible()
    href = results.first.get_by_role("link").first.get_attribute("href") or ""
    assert href.startswith("#/fact/"), href
    no_other_tenant_in(watched)


def test_the_evaluation_report_is_the_recorded_one(explorer: Explorer, watched: Watched) -> None:
    page = opened(explorer, watched, explorer.reader, "eval")
    report = page.get_by_test_id("eval-report")
    expect(report).to_contain_text("engine")


def test_a_reader_of_another_tenant_sees_nothing_of_the_demo(
        explorer: Explorer, watched: Watched) -> None:
    watched.expected = {404}  # the API answers another tenant's ids as unknown ones
    page = opened(explorer, watched, explorer.other, "")
    routes = (f"fact/{explorer.margin}", f"impact/{explorer.recast}",
              f"explain/{explorer.margin}", f"trace/{explorer.injection}")
    for route in routes:
        visit(explorer, watched, route)
        expect(page.get_by_test_id("error")).to_be_visible()  # the API's not-found, said
        for shown in ("version-row", "graph-node", "trace-candidate"):
            expect(page.get_by_test_id(shown)).to_have_count(0)
    bodies = watched.api_bodies()
    assert len(bodies) >= len(routes)
    for body in bodies:
        assert "GOOGL" not in body and "operating_margin" not in body, body[:300]
        assert OLD not in body and NEW not in body
    assert "GOOGL" not in page.locator("body").inner_text()


def test_a_search_with_nothing_relevant_says_so(explorer: Explorer, watched: Watched) -> None:
    page = opened(explorer, watched, explorer.reader, "search")
    page.get_by_test_id("search-query").fill("penguin migration routes in Antarctica")
    page.get_by_test_id("search-go").click()
    expect(page.get_by_test_id("nothing-relevant")).to_be_visible()
    expect(page.get_by_test_id("search-result")).to_have_count(0)


def test_on_a_narrow_window_the_fact_page_does_not_spill_sideways(
        explorer: Explorer, watched: Watched) -> None:
    watched.page.set_viewport_size({"width": 390, "height": 844})
    page = opened(explorer, watched, explorer.reader, f"fact/{explorer.margin}")
    expect(page.get_by_test_id("version-row")).to_have_count(2)
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= 390, f"the page is {wide} px wide in a 390 px window"
