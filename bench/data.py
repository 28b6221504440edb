"""Deterministic synthetic filings data: companies reporting quarterly, some later restated.

Of the N facts of a data set, 90% are original quarterly values and 10% are restatements that
supersede one of them. Restatements come from amended annual reports published well after the
originals, so that writing them exercises the supersede path (and never the out-of-order refusal).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import SourceKind
from vintage.graph.core.model import FactIn, Scope, SourceIn, Subject
from vintage.graph.core.temporal import as_of
from vintage.graph.writes.semantics import Batch

N_SUBJECTS = 200
PREDICATES = (
    "Revenues", "CostOfRevenue", "GrossProfit", "OperatingExpenses", "OperatingIncomeLoss",
    "NetIncomeLoss", "EarningsPerShareBasic", "EarningsPerShareDiluted", "Assets",
    "Liabilities", "StockholdersEquity", "CashAndCashEquivalents", "LongTermDebt",
    "ResearchAndDevelopmentExpense", "SellingGeneralAndAdministrativeExpense",
    "IncomeTaxExpenseBenefit", "NetCashProvidedByOperatingActivities", "CapitalExpenditures",
    "SharesOutstanding", "InventoryNet",
)
FIRST_YEAR = 2010
RESTATED_SHARE = 10  # one fact in ten is a restatement
BATCH_SIZE = 10_000


@dataclass(frozen=True)
class Dataset:
    n_facts: int
    subjects: tuple[Subject, ...]
    base: tuple[FactIn, ...]
    restated: tuple[FactIn, ...]
    sources: dict[str, SourceIn]
    first_available: datetime
    last_available: datetime
    first_valid: datetime
    last_valid: datetime

    @property
    def drafts(self) -> tuple[FactIn, ...]:
        return self.base + self.restated

    def batches(self, size: int = BATCH_SIZE) -> list[Batch]:
        """Originals first, then restatements; a restatement never shares a batch with the
        fact it corrects, so the supersede path closes a committed version."""
        return _chunk(self, self.base, size) + _chunk(self, self.restated, size)


def _chunk(data: Dataset, facts: tuple[FactIn, ...], size: int) -> list[Batch]:
    by_id = {s.id: s for s in data.subjects}
    batches = []
    for start in range(0, len(facts), size):
        part = facts[start:start + size]
        # Each batch carries the subjects and sources it names, as an ingest job would; the
        # ones already stored are recognised and skipped by `record`.
        subjects = sorted({f.subject for f in part})
        sources = sorted({f.source for f in part if f.source is not None})
        batches.append(Batch(
            subjects=[by_id[s] for s in subjects],
            sources=[data.sources[s] for s in sources],
            facts=list(part),
        ))
    return batches


def _utc(d: date) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


def _quarter(q: int) -> tuple[datetime, datetime]:
    year, index = FIRST_YEAR + q // 4, q % 4
    start = date(year, 1 + 3 * index, 1)
    end = date(year + 1, 1, 1) if index == 3 else date(year, 4 + 3 * index, 1)
    return _utc(start), _utc(end)


def _cik(i: int) -> str:
    return f"cik:{1_000_000 + i * 37:07d}"


def generate(n_facts: int, seed: int = 20240501) -> Dataset:
    rng = random.Random(seed + n_facts)
    subjects = tuple(
        Subject(id=_cik(i), kind="company", name=f"Company {i:03d} Inc.",
                identifiers=(f"ticker:C{i:03d}",))
        for i in range(N_SUBJECTS)
    )
    # Per-series magnitude and growth keep values plausible and distinct across quarters.
    scale = {(s.id, p): (rng.randint(10**6, 10**10), rng.uniform(-0.02, 0.05))
             for s in subjects for p in PREDICATES}
    lag = {s.id: rng.randint(25, 45) for s in subjects}
    n_restated = n_facts // RESTATED_SHARE
    n_base = n_facts - n_restated
    sources: dict[str, SourceIn] = {}
    base: list[FactIn] = []
    quarter = 0
    while len(base) < n_base:
        start, end = _quarter(quarter)
        annual = quarter % 4 == 3
        for subject in subjects:
            sid = f"{subject.id}/{'10-K' if annual else '10-Q'}/{start.year}Q{quarter % 4 + 1}"
            sources[sid] = SourceIn(
                id=sid, kind=SourceKind.FILING, form="10-K" if annual else "10-Q",
                available_at=end + timedelta(days=lag[subject.id] + (30 if annual else 0)),
                accession=f"{subject.id[4:]}-{start.year % 100:02d}-{quarter:06d}",
            )
            for predicate in PREDICATES:
                if len(base) == n_base:
                    break
                magnitude, growth = scale[(subject.id, predicate)]
                value = int(magnitude * (1 + growth) ** quarter)
                base.append(FactIn(subject=subject.id, predicate=predicate, value=value,
                                   unit="USD", valid_from=start, valid_to=end, source=sid))
        quarter += 1
    restated = []
    for fact in sorted(rng.sample(base, n_restated),
                       key=lambda f: (f.valid_from, f.subject, f.predicate)):
        year = fact.valid_from.year
        sid = f"{fact.subject}/10-K-A/{year}"
        if sid not in sources:
            # Published mid-way through the following year plus some jitter: always after the
            # originals it corrects (Q4's 10-K appears by early March).
            sources[sid] = SourceIn(
                id=sid, kind=SourceKind.FILING, form="10-K/A",
                available_at=_utc(date(year + 1, 6, 1)) + timedelta(days=rng.randint(0, 200)),
            )
        assert isinstance(fact.value, int)
        changed = int(fact.value * rng.uniform(0.9, 1.1)) or 1
        restated.append(fact.model_copy(update={
            "value": changed if changed != fact.value else changed + 1, "source": sid,
        }))
    avail = [s.available_at for s in sources.values()]
    return Dataset(
        n_facts=n_facts, subjects=subjects, base=tuple(base), restated=tuple(restated),
        sources=sources, first_available=min(avail), last_available=max(avail),
        first_valid=_quarter(0)[0], last_valid=_quarter(quarter - 1)[1],
    )


def read_specs(data: Dataset, scope: Scope, count: int, seed: int = 7) -> list[AsOf]:
    """Random point reads: one company, one line item, a knowledge cutoff and a valid instant,
    the shape of "what did we know about X's Q3 revenue on date D"."""
    rng = random.Random(seed)
    known_span = (data.last_available - data.first_available).total_seconds() + 90 * 86400
    valid_span = (data.last_valid - data.first_valid).total_seconds()
    specs = []
    for _ in range(count):
        known = data.first_available + timedelta(seconds=rng.uniform(0, known_span))
        valid = data.first_valid + timedelta(seconds=rng.uniform(0, valid_span))
        specs.append(AsOf(
            scope, known_at=known, valid=as_of(valid),
            subjects=(rng.choice(data.subjects).id,), predicates=(rng.choice(PREDICATES),),
        ))
    return specs


def raw_rows(data: Dataset, scope: Scope, recorded_at: datetime) -> list[dict[str, Any]]:
    """The same facts as plain property maps shaped like Vintage's Fact nodes (no supersede
    stamps, no support edges): what a bare bulk load would write."""
    rows = []
    revision: dict[str, int] = {}
    for draft in data.drafts:
        key = draft.assertion_key(scope)
        revision[key] = revision.get(key, 0) + 1
        assert draft.source is not None
        row: dict[str, Any] = {
            "id": f"{key}.r{revision[key]}", "key": key, "revision": revision[key],
            "tenant": scope.tenant, "scope": scope.terms(), "kind": draft.kind.value,
            "status": draft.status.value, "subject": draft.subject,
            "predicate": draft.predicate, "value": draft.value, "unit": draft.unit,
            "valid_from": draft.valid_from, "valid_to": draft.valid_to,
            "available_at": data.sources[draft.source].available_at,
            "recorded_at": recorded_at, "authority": 4,
            "content_hash": draft.content_hash(), "event_id": "e-bench",
        }
        rows.append(row)
    return rows
