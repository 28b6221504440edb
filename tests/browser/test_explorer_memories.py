"""The explorer on user analyst's memories (issue 42; docs/explorer.md): a summary whose premise
expired is shown marked stale naming that premise, a context's trace lists the hard filter that
removed the expired premise with its reason, and a Chinese memory reads as written in search,
on its fact page and from the trace that handed it over."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.harness import HOTEL, REFUND, Explorer, Watched
from tests.browser.test_explorer_pages import opened


def test_search_marks_a_summary_on_an_expired_hotel_stale_naming_the_hotel(
        explorer: Explorer, watched: Watched) -> None:
    page = opened(explorer, watched, explorer.analyst, "search")
    page.get_by_test_id("search-query").fill("summary of the Galway trip")
    page.get_by_test_id("search-go").click()
    results = page.get_by_test_id("search-result")
    summary = results.filter(has=page.locator(f"a[href='#/fact/{explorer.summary}']"))
    expect(summary).to_have_count(1)
    expect(summary).to_contain_text(HOTEL)  # the summary's value, handed over with its flag
    flag = summary.get_by_test_id("stale-flag")
    expect(flag).to_contain_text(f"its premise {explorer.hotel} was expired")
    # No false stale: the refund preference rests on nothing and is not flagged.
    refund = results.filter(has=page.locator(f"a[href='#/fact/{explorer.refund}']"))
    expect(refund).to_have_count(1)
    expect(refund.get_by_test_id("stale-flag")).to_have_count(0)


def test_a_contexts_trace_lists_the_hard_filter_that_removed_the_expired_hotel(
        explorer: Explorer, watched: Watched) -> None:
    page = opened(explorer, watched, explorer.analyst, f"trace/{explorer.injection}")
    removed = page.get_by_test_id("trace-filter").filter(has_text="excluded: expired")
    expect(removed).to_have_count(1)
    expect(removed).to_contain_text("1 removed (expired)")
    expect(page.get_by_test_id("trace-filter").first).to_have_text("scope: only user=analyst")
    candidates = page.get_by_test_id("trace-candidate")
    expect(candidates.first).to_be_visible()
    expect(page.locator(f"[data-testid=trace-candidate][data-id='{explorer.hotel}']")) \
        .to_have_count(0)


def test_a_chinese_memory_is_found_in_chinese_and_reads_as_written_on_its_fact_page(
        explorer: Explorer, watched: Watched) -> None:
    page = opened(explorer, watched, explorer.analyst, "search")
    page.get_by_test_id("search-query").fill("退款")
    page.get_by_test_id("search-go").click()
    first = page.get_by_test_id("search-result").first
    expect(first).to_contain_text(REFUND)
    first.locator(f"a[href='#/fact/{explorer.refund}']").click()
    expect(page).to_have_url(f"{explorer.url}/ui/#/fact/{explorer.refund}")
    expect(page.get_by_test_id("version-row")).to_have_count(1)
    expect(page.get_by_test_id("version-row")).to_contain_text(REFUND)
    assert REFUND in "".join(watched.api_bodies())  # the API's JSON carried it unmangled too


def test_the_trace_hands_over_the_chinese_memory_and_its_link_reads_as_written(
        explorer: Explorer, watched: Watched) -> None:
    page = opened(explorer, watched, explorer.analyst, f"trace/{explorer.injection}")
    handed = page.get_by_test_id("trace-used").locator(f"a[href='#/fact/{explorer.refund}']")
    expect(handed).to_have_count(1)
    handed.click()
    expect(page.get_by_test_id("version-row")).to_contain_text(REFUND)
    expect(page.locator("h1")).to_be_visible()
