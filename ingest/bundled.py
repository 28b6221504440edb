"""The real data the package ships (``ingest/data``, notes in its README.md): SEC companyfacts
files of six companies and their recorded revisions, read by the demo, the benches and the
tests from wherever the package is installed."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
COMPANYFACTS = DATA / "companyfacts"
