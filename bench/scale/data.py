"""The scale benchmark's synthetic SEC-shaped tenant, generated one company at a time.

Per company (``FACTS_PER_SUBJECT`` = 100 assertions): four us-gaap concepts (Revenues,
CostOfRevenue, OperatingIncomeLoss, NetIncomeLoss) over ``YEARS`` calendar fiscal years, each
with three quarters (10-Q) and the year (10-K): 64 observed assertions, written as a
companyfacts file the way EDGAR serves it. Every 10-Q repeats the same quarter a year earlier
and every 10-K the previous year as comparatives (a repeat adds a support, not a fact). 5% of
the observations are restated: by the next year's comparative (another value for the same
period) or, for the last year, by a 10-K/A filed months later. Over them (``bench.scale.derived``)
36 derived assertions: revenue in EUR and operating margin per period, operating income in EUR
per year. The EUR rate is one ``fx:USDPerEUR`` fact per year of the subject ``EURUSD``, read by
every company's revenue in EUR of that year: the widely used input whose restatement is the
cascade measured.

Everything is seeded: the same N gives the same files, questions and reads.
"""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.sec.questions import Question
from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import SourceKind
from vintage.graph.core.model import FactIn, Scope, SourceIn, Subject
from vintage.graph.core.temporal import as_of, day_start
from vintage.graph.writes.semantics import Batch

CONCEPTS = ("Revenues", "CostOfRevenue", "OperatingIncomeLoss", "NetIncomeLoss")
FIRST_YEAR = 2019
YEARS = 4
FACTS_PER_SUBJECT = 100  # 4 concepts x 16 periods observed + 36 derived assertions
RESTATED_SHARE = 0.05
FX_SUBJECT, FX_PREDICATE, FX_UNIT = "EURUSD", "fx:USDPerEUR", "USD/EUR"
CASCADE_YEAR = 2021  # the year whose EUR rate is restated: every company's 2021 in EUR
_CIK_BASE = 1_000_000
_QUARTER_FILED_MONTH = {1: 5, 2: 8, 3: 11}


@dataclass(frozen=True)
class Period:
    year: int
    fp: str  # Q1, Q2, Q3 or FY
    start: date
    end: date  # inclusive, as SEC writes it

    @property
    def valid_from(self) -> datetime:
        return day_start(self.start)

    @property
    def valid_to(self) -> datetime:
        return day_start(self.end) + timedelta(days=1)


def periods(year: int) -> tuple[Period, ...]:
    quarters = tuple(Period(year, f"Q{q}", date(year, 3 * q - 2, 1),
                            date(year, 3 * q + 1, 1) - timedelta(days=1)) for q in (1, 2, 3))
    return (*quarters, Period(year, "FY", date(year, 1, 1), date(year, 12, 31)))


def all_periods() -> list[Period]:
    return [p for y in range(FIRST_YEAR, FIRST_YEAR + YEARS) for p in periods(y)]


def subjects_for(facts: int) -> int:
    return max(1, round(facts / FACTS_PER_SUBJECT))


def ticker(i: int) -> str:
    return f"SC{i:05d}"


@dataclass
class Company:
    index: int
    values: dict[tuple[str, Period], int]  # as first reported
    restated: dict[tuple[str, Period], int]  # the later value, for 5% of them
    filings: list[tuple[str, str, date, list[tuple[str, Period, int]]]]  # accn, form, filed

    @property
    def cik(self) -> int:
        return _CIK_BASE + self.index

    @property
    def rows(self) -> int:
        return sum(len(rows) for *_, rows in self.filings)


def company(i: int, seed: int = 15) -> Company:
    rng = random.Random(seed * 1_000_003 + i)
    base = rng.randint(20_000, 2_000_000) * 1_000  # quarterly revenue, USD
    growth = rng.uniform(-0.01, 0.04)
    cost, operating = rng.uniform(0.4, 0.7), rng.uniform(0.05, 0.25)
    values: dict[tuple[str, Period], int] = {}
    for y in range(FIRST_YEAR, FIRST_YEAR + YEARS):
        year = dict.fromkeys(CONCEPTS, 0)
        for q, p in enumerate((*periods(y)[:3], None)):  # Q4 is only inside the year
            revenue = _thousands(base * (1 + growth) ** (4 * (y - FIRST_YEAR) + q)
                                 * rng.uniform(0.95, 1.05))
            op = _thousands(revenue * operating * rng.uniform(0.8, 1.2))
            quarter = {"Revenues": revenue, "CostOfRevenue": _thousands(revenue * cost),
                       "OperatingIncomeLoss": op,
                       "NetIncomeLoss": _thousands(op * rng.uniform(0.6, 0.9))}
            for concept, v in quarter.items():
                year[concept] += v
                if p is not None:
                    values[concept, p] = v
        for concept, v in year.items():
            values[concept, periods(y)[3]] = v
    restated = {k: _thousands(v * rng.choice((0.96, 0.98, 1.02, 1.05)))
                for k, v in values.items() if rng.random() < RESTATED_SHARE}
    made = Company(i, values, {k: v for k, v in restated.items() if v != values[k]}, [])
    _file(made, rng)
    return made


def _thousands(x: float) -> int:
    """SEC figures in whole dollars, rounded as filers round them."""
    return int(round(x, -3))


def _file(c: Company, rng: random.Random) -> None:
    """The filings: 10-Qs and 10-Ks with their comparatives, then a 10-K/A if needed."""
    seq = 0

    def filing(form: str, filed: date, rows: list[tuple[str, Period, int]]) -> None:
        nonlocal seq
        seq += 1
        c.filings.append((f"{c.cik:010d}-{filed.year % 100:02d}-{seq:06d}", form, filed, rows))

    def shown(p: Period, later: bool) -> list[tuple[str, Period, int]]:
        return [(k, p, c.restated.get((k, p), c.values[k, p]) if later else c.values[k, p])
                for k in CONCEPTS]

    last = FIRST_YEAR + YEARS - 1
    for y in range(FIRST_YEAR, last + 1):
        for q, p in enumerate(periods(y)[:3], start=1):
            rows = shown(p, False)
            if y > FIRST_YEAR:
                rows += shown(periods(y - 1)[q - 1], True)
            filing("10-Q", date(y, _QUARTER_FILED_MONTH[q], rng.randint(5, 15)), rows)
        rows = shown(periods(y)[3], False)
        if y > FIRST_YEAR:
            rows += shown(periods(y - 1)[3], True)
        filing("10-K", date(y + 1, 2, rng.randint(15, 28)), rows)
    amended = [(k, p, v) for (k, p), v in sorted(c.restated.items(), key=_order)
               if p.year == last]
    if amended:
        filing("10-K/A", date(last + 1, 6, rng.randint(1, 28)), amended)


def _order(item: tuple[tuple[str, Period], int]) -> tuple[str, date, date]:
    (concept, p), _ = item
    return concept, p.start, p.end


def document(c: Company) -> dict[str, Any]:
    units: dict[str, list[dict[str, Any]]] = {k: [] for k in CONCEPTS}
    for accn, form, filed, rows in c.filings:
        for concept, p, value in rows:
            units[concept].append({
                "start": p.start.isoformat(), "end": p.end.isoformat(), "val": value,
                "accn": accn, "fp": p.fp, "form": form, "filed": filed.isoformat(),
            })
    return {"cik": c.cik, "entityName": f"Synthetic Company {c.index:05d}",
            "facts": {"us-gaap": {k: {"label": k, "units": {"USD": v}}
                                  for k, v in units.items()}}}


@dataclass(frozen=True)
class Written:
    files: list[Path]
    rows: int
    observed: int  # observed fact versions: first reports plus restatements
    restated: int


def write_files(folder: Path, n_subjects: int, seed: int = 15) -> Written:
    """One ``CIK##########_SC#####.json.gz`` per company; only one company is in memory."""
    folder.mkdir(parents=True, exist_ok=True)
    files, rows, observed, restated = [], 0, 0, 0
    for i in range(n_subjects):
        c = company(i, seed)
        path = folder / f"CIK{c.cik:010d}_{ticker(i)}.json.gz"
        with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as handle:
            json.dump(document(c), handle, separators=(",", ":"))
        files.append(path)
        rows += c.rows
        observed += len(c.values) + len(c.restated)
        restated += len(c.restated)
    return Written(files, rows, observed, restated)


def fx_rate(year: int) -> float:
    return round(1.08 + 0.03 * ((year * 7) % 5 - 2), 4)


def fx_batch() -> Batch:
    """The yearly average EUR rate, each published early the next year."""
    sources, facts = [], []
    for y in range(FIRST_YEAR, FIRST_YEAR + YEARS):
        source = f"ecb-eurusd-{y}"
        sources.append(SourceIn(id=source, kind=SourceKind.DOCUMENT,
                                available_at=datetime(y + 1, 1, 10, tzinfo=UTC),
                                title=f"EUR/USD average {y}"))
        p = periods(y)[3]
        facts.append(FactIn(subject=FX_SUBJECT, predicate=FX_PREDICATE, value=fx_rate(y),
                            unit=FX_UNIT, valid_from=p.valid_from, valid_to=p.valid_to,
                            source=source))
    return Batch(subjects=[Subject(id=FX_SUBJECT, kind="currency_pair", name="EUR/USD")],
                 sources=sources, facts=facts)


def fx_restatement() -> Batch:
    """The CASCADE_YEAR rate revised in a later release: every company's EUR figures of that
    year rest on it."""
    source = SourceIn(id=f"ecb-eurusd-{CASCADE_YEAR}-rev", kind=SourceKind.DOCUMENT,
                      available_at=datetime(FIRST_YEAR + YEARS + 1, 6, 1, tzinfo=UTC),
                      title=f"EUR/USD average {CASCADE_YEAR}, revised")
    p = periods(CASCADE_YEAR)[3]
    return Batch(sources=[source], facts=[FactIn(
        subject=FX_SUBJECT, predicate=FX_PREDICATE, value=round(fx_rate(CASCADE_YEAR) + 0.01, 4),
        unit=FX_UNIT, valid_from=p.valid_from, valid_to=p.valid_to, source=source.id)])


_FIRST_CUTOFF = date(FIRST_YEAR, 6, 1)
_LAST_CUTOFF = date(FIRST_YEAR + YEARS + 1, 12, 31)


def _cutoff(rng: random.Random, first: date = _FIRST_CUTOFF) -> datetime:
    d = first + timedelta(days=rng.randint(0, (_LAST_CUTOFF - first).days))
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


def read_specs(scope: Scope, n_subjects: int, predicates: tuple[str, ...], n: int,
               seed: int = 15) -> list[AsOf]:
    """Point reads: a random company, predicate, period (its midpoint) and knowledge cutoff."""
    rng = random.Random(seed)
    every = all_periods()
    specs = []
    for _ in range(n):
        p = rng.choice(every)
        middle = p.valid_from + (p.valid_to - p.valid_from) / 2
        specs.append(AsOf(scope, known_at=_cutoff(rng), valid=as_of(middle),
                          subjects=(ticker(rng.randrange(n_subjects)),),
                          predicates=(rng.choice(predicates),)))
    return specs


METRICS = ("operating_margin", "revenue", "net_margin", "gross_margin", "revenue_growth")


def questions(n_subjects: int, n: int, seed: int = 15) -> list[Question]:
    """Metric questions over one to three companies: LTM, a fiscal year or its Q4, in the
    year before the cutoff or its own (some not public yet: refused)."""
    rng = random.Random(seed + 1)
    out = []
    for i in range(n):
        cutoff = _cutoff(rng, date(FIRST_YEAR + 1, 3, 1))
        year = min(cutoff.year - rng.choice((1, 1, 0)), FIRST_YEAR + YEARS - 1)
        period = ("LTM", f"FY{year}", f"FY{year}Q4")[i % 3]
        chosen = rng.sample(range(n_subjects), min(n_subjects, rng.choice((1, 1, 2, 3))))
        out.append(Question(METRICS[i % len(METRICS)], tuple(ticker(s) for s in chosen),
                            cutoff, period))
    return out


def tickers(n_subjects: int) -> Iterator[str]:
    return (ticker(i) for i in range(n_subjects))
