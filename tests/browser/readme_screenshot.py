"""The README's picture of the explorer (docs/img/explorer.png), taken with the browser tests'
harness: the demo's data in a fresh embedded store, `vintage serve` on it, Debian's Chromium at
1280x800, the fact page of Alphabet's Q1-2018 operating margin with the as-of control asked at
2018-06-30. Any console error or failed request stops it, as it fails a browser test.

    .venv/bin/python -m tests.browser.readme_screenshot [OUT.png]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.browser.harness import CHROMIUM, FLAGS, ROOT, VIEWPORT, Watched, free_port, started, stop
from vintage.demo import DEMO_TENANT, MARGIN_CUTOFFS, run_demo
from vintage.graph.access import create_key
from vintage.graph.store.backends import open_store

OUT = ROOT / "docs" / "img" / "explorer.png"


def main(out: Path = OUT) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = open_store(str(Path(folder) / "store"))
        try:
            demo = run_demo(store)
            key = create_key(store, DEMO_TENANT, "reader", actor="readme screenshot")[1]
        finally:
            store.close()
        (margin,) = [a.answers[0].fact_id for c, a in demo.margins
                     if a.metric == "operating_margin" and c == MARGIN_CUTOFFS[1]]
        server = started(Path(folder) / "store", port := free_port(), Path(folder) / "serve.log")
        try:
            with sync_playwright() as driver:
                context = driver.chromium.launch_persistent_context(
                    str(Path(folder) / "profile"), executable_path=CHROMIUM, headless=True,
                    args=list(FLAGS), viewport=VIEWPORT)
                page = context.pages[0] if context.pages else context.new_page()
                watched = Watched(page)
                page.goto(f"http://127.0.0.1:{port}/ui/")
                page.get_by_test_id("key-input").fill(key)
                page.get_by_test_id("key-save").click()
                page.goto(f"http://127.0.0.1:{port}/ui/#/fact/{margin}?asof={MARGIN_CUTOFFS[0]}")
                page.get_by_test_id("asof-answer").get_by_role("strong").wait_for()
                page.mouse.move(0, 0)  # no hover state in the picture
                page.screenshot(path=str(out), full_page=True)
                context.close()
            if watched.problems:
                raise SystemExit("\n".join(watched.problems))
        finally:
            stop(server)
    print(f"wrote {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
