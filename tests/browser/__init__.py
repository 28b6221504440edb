"""Browser tests of the lineage explorer (docs/explorer.md): Playwright for Python driving
Debian's Chromium headless against a real `vintage serve` on the demo's data."""
