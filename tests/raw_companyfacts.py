"""Read the bundled SEC companyfacts files into flat rows, for tests that check against real data.

Kept apart from ingest on purpose: these tests judge the fiscal and metric rules against the raw
files, so they must not depend on the code path that loads the same files into a store.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from functools import cache

from vintage.ingest.bundled import COMPANYFACTS
from vintage.queries.metrics.fiscal import FiscalCalendar, Span

DATA = COMPANYFACTS
TICKERS = ("GOOGL", "LPA", "MRVL", "NVDA", "SNOW", "TSLA")
ANNUAL_FORMS = frozenset({"10-K", "10-K/A", "20-F", "20-F/A"})


@dataclass(frozen=True)
class Row:
    """One (fact, filing) row; ``span`` is None for instants (balances)."""

    predicate: str
    unit: str
    span: Span | None
    value: float
    accn: str
    fy: int | None
    fp: str | None
    form: str
    filed: date


@cache
def rows(ticker: str) -> tuple[Row, ...]:
    (path,) = DATA.glob(f"*_{ticker}.json.gz")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        doc = json.load(fh)
    return tuple(_rows(doc["facts"]))


def _rows(facts: dict[str, dict[str, dict[str, dict[str, list[dict[str, object]]]]]],
          ) -> Iterator[Row]:
    for taxonomy, concepts in facts.items():
        for concept, body in concepts.items():
            for unit, entries in body["units"].items():
                for r in entries:
                    start = r.get("start")
                    span = (Span(date.fromisoformat(str(start)), date.fromisoformat(str(r["end"])))
                            if start is not None else None)
                    fy = r.get("fy")
                    yield Row(f"{taxonomy}:{concept}", unit, span, float(str(r["val"])),
                              str(r["accn"]), int(str(fy)) if fy is not None else None,
                              str(r["fp"]) if r.get("fp") is not None else None, str(r["form"]),
                              date.fromisoformat(str(r["filed"])))


@cache
def calendar(ticker: str) -> FiscalCalendar:
    return FiscalCalendar.from_spans(r.span for r in rows(ticker) if r.span is not None)


@cache
def reported(ticker: str) -> dict[str, frozenset[Span]]:
    """predicate -> every duration span some filing reported it for."""
    out: dict[str, set[Span]] = {}
    for r in rows(ticker):
        if r.span is not None:
            out.setdefault(r.predicate, set()).add(r.span)
    return {p: frozenset(s) for p, s in out.items()}


def filings(ticker: str) -> dict[str, list[Row]]:
    """accession number -> its duration rows."""
    out: dict[str, list[Row]] = {}
    for r in rows(ticker):
        if r.span is not None:
            out.setdefault(r.accn, []).append(r)
    return out
