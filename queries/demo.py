"""The main job on bundled real SEC data: as-of questions at cutoffs around real revisions, a
derived metric with its lineage, and what the revising filing did to it.

The bundled filings are replayed in the order the world learned them: first what was public by
the end of 2018, then margins derived from it, then the 2019 filings, whose recast of Alphabet's
Q1-2018 operating income cascades to the operating margin (recomputed) and not to the net margin.
Every step is idempotent, so running the demo twice changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from graph.asof import AsOf
from graph.derivations import Derived, Output, derive
from graph.model import Scope
from graph.recipes import expression
from graph.store import Store
from graph.temporal import as_of, from_to, parse_instant
from graph.writes import WriteReport
from ingest.facts_table import ingest_table
from queries.asof import Answer, facts_as_of, history
from queries.explain import Explanation, explain
from queries.impact import Impact, impact

DEMO_DATA = Path(__file__).resolve().parents[1] / "ingest" / "data" / "sec_demo.csv"
DEMO_TENANT = "demo"
FIRST_VINTAGE_END = parse_instant("2019-01-01")
RECAST_FILING = "0001652044-19-000015"


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
    Question("Alphabet operating margin (derived), Q1 2018", "GOOGL", "vintage:OperatingMargin",
             Q1_2018, ("2018-06-30", "2019-06-30"), "percent"),
    Question("Alphabet net margin (derived), Q1 2018", "GOOGL", "vintage:NetMargin",
             Q1_2018, ("2018-06-30", "2019-06-30"), "percent"),
    Question("Tesla cost of goods sold, FY2014", "TSLA", "us-gaap:CostOfGoodsSold",
             ("2014-01-01", "2014-12-31"), ("2015-06-30", "2016-06-30", "2017-06-30")),
    Question("NVIDIA diluted EPS, FY2024", "NVDA", "us-gaap:EarningsPerShareDiluted",
             ("2023-01-30", "2024-01-28"), ("2024-06-30", "2025-06-30"),
             "USD/shares"),
)
MARGINS = (
    ("vintage:OperatingMargin", "us-gaap:OperatingIncomeLoss", "operating_margin"),
    ("vintage:NetMargin", "us-gaap:NetIncomeLoss", "net_margin"),
)


@dataclass(frozen=True)
class Asked:
    question: Question
    answers: tuple[tuple[str, Answer | None], ...]  # (cutoff, the visible fact or none)
    history: tuple[Answer, ...]


@dataclass(frozen=True)
class DemoResult:
    loaded: tuple[WriteReport, ...]
    asked: tuple[Asked, ...]
    explained: Explanation
    impact: Impact


def run_demo(store: Store, data: Path = DEMO_DATA, tenant: str = DEMO_TENANT) -> DemoResult:
    scope = Scope(tenant=tenant)
    first = ingest_table(store, scope, data, "vintage demo",
                         available=from_to(None, FIRST_VINTAGE_END))
    margins = _derive_margins(store, scope)
    later = ingest_table(store, scope, data, "vintage demo",
                         available=from_to(FIRST_VINTAGE_END, None), recompute=True)
    asked = tuple(_ask(store, scope, q) for q in QUESTIONS)
    current = facts_as_of(store, scope, subjects=["GOOGL"], predicates=[MARGINS[0][0]])
    target = current[0].fact.id if current else margins[0].fact.id
    return DemoResult(tuple(first + later), asked, explain(store, scope, target),
                      impact(store, scope, source_id=RECAST_FILING))


def _derive_margins(store: Store, scope: Scope) -> list[Derived]:
    """Margins as an analyst computed them at the end of 2018, from what was public then."""
    start, end = parse_instant(Q1_2018[0]), parse_instant(Q1_2018[1]) + timedelta(days=1)
    known = {f.predicate: f for f in store.read(AsOf(
        scope, known_at=FIRST_VINTAGE_END, valid=as_of(start), subjects=("GOOGL",)))}
    revenue = known["us-gaap:Revenues"]
    return [
        derive(store, scope, expression(recipe, "1", "100 * part / revenue"),
               {"part": known[numerator].id, "revenue": revenue.id},
               Output("GOOGL", predicate, start, end, "percent"), actor="vintage demo")
        for predicate, numerator, recipe in MARGINS
    ]


def _ask(store: Store, scope: Scope, q: Question) -> Asked:
    answers = []
    for cutoff in q.cutoffs:
        found = facts_as_of(store, scope, subjects=[q.subject], predicates=[q.predicate],
                            known_at=parse_instant(cutoff), valid=as_of(q.valid_from))
        answers.append((cutoff, found[0] if found else None))
    versions = history(store, scope, q.subject, q.predicate, q.valid_from, q.valid_to,
                       q.unit)
    return Asked(q, tuple(answers), tuple(versions))
