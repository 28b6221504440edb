"""The main job on bundled real SEC data: as-of questions at cutoffs around real revisions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from graph.model import Scope
from graph.store import Store
from graph.temporal import as_of, parse_instant
from graph.writes import WriteReport
from ingest.facts_table import ingest_table
from queries.asof import Answer, facts_as_of, history

DEMO_DATA = Path(__file__).resolve().parents[1] / "ingest" / "data" / "sec_demo.csv"
DEMO_TENANT = "demo"


@dataclass(frozen=True)
class Question:
    title: str
    subject: str
    predicate: str
    period: tuple[str, str]  # SEC convention: first and last day, inclusive
    cutoffs: tuple[str, ...]

    @property
    def valid_from(self) -> datetime:
        return parse_instant(self.period[0])

    @property
    def valid_to(self) -> datetime:
        return parse_instant(self.period[1]) + timedelta(days=1)


QUESTIONS = (
    Question("Alphabet operating income, Q1 2018", "GOOGL", "us-gaap:OperatingIncomeLoss",
             ("2018-01-01", "2018-03-31"), ("2018-04-23", "2018-06-30", "2019-06-30")),
    Question("Alphabet net income, Q1 2018", "GOOGL", "us-gaap:NetIncomeLoss",
             ("2018-01-01", "2018-03-31"), ("2018-06-30", "2019-06-30")),
    Question("Tesla cost of goods sold, FY2014", "TSLA", "us-gaap:CostOfGoodsSold",
             ("2014-01-01", "2014-12-31"), ("2015-06-30", "2016-06-30", "2017-06-30")),
    Question("NVIDIA diluted EPS, FY2024", "NVDA", "us-gaap:EarningsPerShareDiluted",
             ("2023-01-30", "2024-01-28"), ("2024-06-30", "2025-06-30")),
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


def run_demo(store: Store, data: Path = DEMO_DATA, tenant: str = DEMO_TENANT) -> DemoResult:
    """Load the bundled filings (idempotent) and ask every demo question at its cutoffs."""
    scope = Scope(tenant=tenant)
    loaded = ingest_table(store, scope, data, actor="vintage demo")
    asked = []
    for q in QUESTIONS:
        answers = []
        for cutoff in q.cutoffs:
            found = facts_as_of(store, scope, subjects=[q.subject], predicates=[q.predicate],
                                known_at=parse_instant(cutoff), valid=as_of(q.valid_from))
            answers.append((cutoff, found[0] if found else None))
        versions = history(store, scope, q.subject, q.predicate, q.valid_from, q.valid_to)
        asked.append(Asked(q, tuple(answers), tuple(versions)))
    return DemoResult(tuple(loaded), tuple(asked))
