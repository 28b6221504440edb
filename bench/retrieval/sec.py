"""The bundled SEC companyfacts files as the retrieval benchmark's business facts: every stored
version predicted from the files themselves, and the questions an analyst asks of them.

A version is what ``ingest_companyfacts`` stores, by the documented rules (docs/semantics.md,
"SEC companyfacts"): one assertion per (concept, unit, period); rows in the order the world
learned them (filed date, then accession); a row with another value than the current version
(another type counts) is a new version, public from its filed date, that closes the previous
one; a repeat only adds support. Its id is ``version_id`` of the assertion key and revision.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

from bench.retrieval.corpus import Version
from vintage.graph.core.kinds import Status
from vintage.graph.core.model import Scope, assertion_key, version_id
from vintage.graph.core.temporal import day_start
from vintage.ingest.bundled import COMPANYFACTS
from vintage.ingest.sec.companyfacts import read_companyfacts
from vintage.ingest.sec.revisions import Row, in_filing_order

FILES = COMPANYFACTS
TENANT = "sec"
NAMES = {"GOOGL": "Alphabet", "NVDA": "NVIDIA", "TSLA": "Tesla", "SNOW": "Snowflake",
         "MRVL": "Marvell"}
CONCEPTS = {
    "us-gaap:OperatingIncomeLoss": ("operating income", "income from operations"),
    "us-gaap:NetIncomeLoss": ("net income", "profit"),
    "us-gaap:Revenues": ("revenue", "total revenues"),
    "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax": ("revenue", "sales"),
    "us-gaap:ResearchAndDevelopmentExpense": ("research and development expense", "R&D spend"),
    "us-gaap:EarningsPerShareDiluted": ("diluted earnings per share", "diluted EPS"),
    "us-gaap:GrossProfit": ("gross profit", "gross margin dollars"),
    "us-gaap:CostOfRevenue": ("cost of revenue", "cost of sales"),
    "us-gaap:SellingGeneralAndAdministrativeExpense": ("SG&A expense",
                                                       "selling, general and administrative"),
}
ORDINAL = ("first", "second", "third", "fourth")
# Two concepts a company may both report for one period: "revenue" would name either, so such
# a period is not asked about (the expected answer must be the one fact that fits).
_FAMILY = {"us-gaap:Revenues": "us-gaap:Revenues",
           "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax": "us-gaap:Rev2"}
Key = tuple[str, str, date | None, date]  # predicate, unit, start, end


@dataclass(frozen=True)
class Filed:
    """One assertion of a company's file and its versions, oldest first."""

    ticker: str
    predicate: str
    unit: str
    start: date
    end: date
    versions: tuple[Version, ...]


def ticker_files(tickers: Collection[str] | None = None) -> list[Path]:
    return [p for p in sorted(FILES.glob("*.json.gz"))
            if tickers is None or p.name.split("_")[1].split(".")[0] in tickers]


def assertions(path: Path, concepts: Collection[str] | None = None) -> list[Filed]:
    """Every assertion of one file (limited to ``concepts``), with its predicted versions."""
    parsed = read_companyfacts(path)
    subject = parsed.filer.subject_id
    rows: dict[Key, list[Row]] = defaultdict(list)
    for row in in_filing_order(parsed.rows):
        if concepts is None or row.predicate in concepts:
            rows[(row.predicate, row.unit, row.start, row.end)].append(row)
    scope = Scope(tenant=TENANT)
    out = []
    for (predicate, unit, start, end), said in rows.items():
        valid_from, valid_to = day_start(start or end), day_start(end) + timedelta(days=1)
        key = assertion_key(scope, subject, predicate, valid_from, valid_to, unit)
        values: list[Row] = []
        for row in said:
            last = values[-1].value if values else None
            if last is None or type(last) is not type(row.value) or last != row.value:
                values.append(row)
        nexts = [day_start(r.filed) for r in values[1:]] + [None]
        versions = tuple(
            Version(version_id(key, n), TENANT, frozenset(), Status.ACTIVE, day_start(r.filed),
                    after, None, valid_from, valid_to,
                    f"{subject} {predicate} {start or ''}..{end} {r.value}")
            for n, (r, after) in enumerate(zip(values, nexts, strict=True), start=1))
        out.append(Filed(subject, predicate, unit, start or end, end, versions))
    return out


def truth(tickers: Collection[str] | None = None,
          concepts: Collection[str] | None = None) -> dict[tuple[str, str], Version]:
    return {(TENANT, v.id): v for path in ticker_files(tickers)
            for a in assertions(path, concepts) for v in a.versions}


def _period_words(start: date, end: date, rng: random.Random) -> str:
    days = (end - start).days
    calendar_quarter = start.day == 1 and start.month in (1, 4, 7, 10) and 85 <= days <= 95
    if calendar_quarter:
        q = (start.month - 1) // 3
        return rng.choice((f"Q{q + 1} {start.year}", f"{ORDINAL[q]} quarter {start.year}"))
    if days < 120:
        return f"quarter ended {end:%B} {end.day}, {end.year}"
    if start.month == 1 and start.day == 1:
        return rng.choice((f"full year {start.year}", f"fiscal {start.year}"))
    return f"fiscal year ended {end:%B} {end.year}"


@dataclass(frozen=True)
class Ask:
    text: str
    cutoff: datetime
    expected: Version
    note: str


def questions(seed: int, restated: int = 18, plain: int = 10,
              tickers: Collection[str] | None = None) -> list[Ask]:
    """For ``restated`` assertions a later filing changed: asked before the change (the value
    as first filed) and after it; for ``plain`` others: asked after they were filed. Quarters
    and fiscal years of the concepts above, instant balances left out."""
    rng = random.Random(f"{seed}-sec")
    found: dict[bool, list[Filed]] = {True: [], False: []}
    for path in ticker_files(tickers or NAMES):
        filed = assertions(path, CONCEPTS)
        said = {(_FAMILY.get(a.predicate, a.predicate), a.start, a.end) for a in filed
                if a.predicate in _FAMILY}
        for a in filed:
            days = (a.end - a.start).days
            twin = a.predicate in _FAMILY and any(
                (f, a.start, a.end) in said for f in _FAMILY.values()
                if f != _FAMILY[a.predicate])
            if (80 <= days <= 100 or 355 <= days <= 375) and not twin:
                found[len(a.versions) > 1].append(a)
    asks = []
    for changed, n in ((True, restated), (False, plain)):
        pool = sorted(found[changed], key=lambda a: (a.ticker, a.predicate, a.start, a.end))
        for a in rng.sample(pool, min(n, len(pool))):
            words = f"{NAMES[a.ticker]} {rng.choice(CONCEPTS[a.predicate])} " \
                    f"{_period_words(a.start, a.end, rng)}"
            picks = (a.versions[0], a.versions[-1]) if changed else (a.versions[0],)
            for v in picks:
                cutoff = v.available + timedelta(days=30)
                if v.superseded is not None and v.superseded <= cutoff:
                    cutoff = v.available + (v.superseded - v.available) / 2
                if v.superseded is not None and v.superseded <= cutoff:
                    continue  # replaced the day it was filed: never the answer
                note = f"{a.ticker} {a.predicate} {a.start}..{a.end} r{v.id.rsplit('.r', 1)[1]}"
                asks.append(Ask(words, cutoff, v, note))
    return asks
