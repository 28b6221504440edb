"""The main job on bundled real SEC data: as-of questions at cutoffs around real revisions, a
derived metric with its lineage, and what the revising filing did to it.

The bundled companyfacts files are replayed in the order the world learned them: first every
filing public before Alphabet's 2019 recast, then margins asked at a 2018 cutoff (persisted as
derivations), then the later filings, whose recast of Q1-2018 operating income cascades to the
operating margin (recomputed) and not to the net margin. Only the concepts the demo asks about
are loaded, to keep it quick; every step is idempotent, so running it twice changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import as_of, from_to, parse_instant
from vintage.graph.store.protocol import Store
from vintage.ingest.batches import Summary
from vintage.ingest.bundled import COMPANYFACTS
from vintage.ingest.sec.companyfacts import ingest_companyfacts
from vintage.queries.lineage.asof import Answer, facts_as_of, history
from vintage.queries.lineage.explain import Explanation, explain
from vintage.queries.lineage.impact import Impact, impact
from vintage.queries.metrics.answers import MetricAnswer
from vintage.queries.metrics.definitions import resolve_metric
from vintage.queries.metrics.periods import parse_period
from vintage.queries.metrics.question import ask

DATA = COMPANYFACTS
DEMO_FILES = tuple(DATA / f"{name}.json.gz" for name in (
    "CIK0001652044_GOOGL", "CIK0001318605_TSLA", "CIK0001045810_NVDA"))
DEMO_TENANT = "demo"
RECAST_FILING = "0001652044-19-000015"
RECAST_AT = parse_instant("2019-04-30")
MARGINS = ("operating_margin", "net_margin")
MARGIN_CUTOFFS = ("2018-06-30", "2019-06-30")
EXTRA_CONCEPTS = ("us-gaap:CostOfGoodsSold", "us-gaap:EarningsPerShareDiluted")


@dataclass(frozen=True)
class Question:
    title: str
    subject: str
    predicate: str
    period: tuple[str, str]  # SEC convention: first and last day, inclusive
    cutoffs: tuple[str, ...]
    unit: str = "USD"

    @property
    def valid_from(self) -> datetime:
        return parse_instant(self.period[0])

    @property
    def valid_to(self) -> datetime:
        return parse_instant(self.period[1]) + timedelta(days=1)


Q1_2018 = ("2018-01-01", "2018-03-31")
QUESTIONS = (
    Question("Alphabet operating income, Q1 2018", "GOOGL", "us-gaap:OperatingIncomeLoss",
             Q1_2018, ("2018-04-23", "2018-06-30", "2019-06-30")),
    Question("Tesla cost of goods sold, FY2014", "TSLA", "us-gaap:CostOfGoodsSold",
             ("2014-01-01", "2014-12-31"), ("2015-06-30", "2016-06-30", "2017-06-30")),
    Question("NVIDIA diluted EPS, FY2024", "NVDA", "us-gaap:EarningsPerShareDiluted",
             ("2023-01-30", "2024-01-28"), ("2024-06-30", "2025-06-30"), "USD/shares"),
)


@dataclass(frozen=True)
class Asked:
    question: Question
    answers: tuple[tuple[str, Answer | None], ...]  # (cutoff, the visible fact or none)
    history: tuple[Answer, ...]


@dataclass(frozen=True)
class DemoResult:
    loaded: tuple[Summary, ...]
    margins: tuple[tuple[str, MetricAnswer], ...]  # (cutoff, answer), per margin metric
    asked: tuple[Asked, ...]
    explained: Explanation
    impact: Impact


def concepts() -> set[str]:
    wanted = set(EXTRA_CONCEPTS)
    for name in MARGINS:
        metric = resolve_metric(name)
        wanted |= {p for role in metric.inputs for p in metric.inputs[role]}
    return wanted


def run_demo(store: Store, files: tuple[Path, ...] = DEMO_FILES,
             tenant: str = DEMO_TENANT) -> DemoResult:
    scope = Scope(tenant=tenant)
    wanted = concepts()
    loaded = [ingest_companyfacts(store, scope, f, actor="vintage demo", concepts=wanted,
                                  available=from_to(None, RECAST_AT)) for f in files]
    _margins(store, scope, MARGIN_CUTOFFS[0])  # what an analyst computed in 2018, persisted
    loaded += [ingest_companyfacts(store, scope, f, actor="vintage demo", concepts=wanted,
                                   available=from_to(RECAST_AT, None), recompute=True)
               for f in files]
    margins = tuple(pair for cutoff in MARGIN_CUTOFFS for pair in _margins(store, scope, cutoff))
    current = margins[-2][1].answers[0].fact_id  # the operating margin as known in 2019
    assert current is not None
    return DemoResult(tuple(loaded), margins, tuple(_ask(store, scope, q) for q in QUESTIONS),
                      explain(store, scope, current),
                      impact(store, scope, source_id=RECAST_FILING))


def _margins(store: Store, scope: Scope, cutoff: str) -> list[tuple[str, MetricAnswer]]:
    return [(cutoff, ask(store, scope, resolve_metric(name), ["GOOGL"], parse_instant(cutoff),
                         parse_period("FY2018Q1"), actor="vintage demo")) for name in MARGINS]
def _ask(store: Store, scope: Scope, q: Question) -> Asked:
    answers = []
    for cutoff in q.cutoffs:
        found = [a for a in facts_as_of(
            store, scope, subjects=[q.subject], predicates=[q.predicate],
            known_at=parse_instant(cutoff), valid=as_of(q.valid_from))
            if a.fact.valid_to == q.valid_to and a.fact.unit == q.unit]
        answers.append((cutoff, found[0] if found else None))
    versions = history(store, scope, q.subject, q.predicate, q.valid_from, q.valid_to,
                       q.unit)
    return Asked(q, tuple(answers), tuple(versions))
