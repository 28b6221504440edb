"""As-of metric questions over the SEC companyfacts files: a deterministic mix, timed cold
(the first ask, which persists its derivations) and warm (repeats, which find them)."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from vintage.graph.core.model import Scope
from vintage.graph.store.protocol import Store
from vintage.queries.metrics.definitions import resolve_metric
from vintage.queries.metrics.periods import parse_period
from vintage.queries.metrics.question import ask

METRICS = ("operating_margin", "revenue", "net_income", "eps_diluted", "revenue_growth")
SUBJECTS = ("GOOGL", "NVDA", "MRVL", "SNOW", "TSLA")
FIRST_CUTOFF = date(2019, 1, 1)
LAST_CUTOFF = date(2025, 10, 31)

# One answer as compared across backends: (subject, rounded value or None, window, refused).
Answer = tuple[str, float | None, str | None, bool]


@dataclass(frozen=True)
class Question:
    metric: str
    subjects: tuple[str, ...]
    cutoff: datetime
    period: str

    def label(self) -> str:
        return (f"{self.metric} {','.join(self.subjects)} @{self.cutoff.date()} "
                f"{self.period}")


def make_questions(n: int, seed: int = 4) -> list[Question]:
    """``n`` questions: every metric in turn, one to three companies, a cutoff anywhere in
    2019..2025, and LTM, a fiscal year or a fiscal Q4 near the cutoff (the year before it or
    its own, so some windows are not public yet and are refused)."""
    rng = random.Random(seed)
    span = (LAST_CUTOFF - FIRST_CUTOFF).days
    questions = []
    for i in range(n):
        cutoff = FIRST_CUTOFF + timedelta(days=rng.randint(0, span))
        year = cutoff.year - rng.choice((1, 1, 0))
        period = ("LTM", f"FY{year}", f"FY{year}Q4")[i % 3]
        subjects = tuple(rng.sample(SUBJECTS, rng.choice((1, 1, 2, 3))))
        questions.append(Question(METRICS[i % len(METRICS)], subjects,
                                  datetime(cutoff.year, cutoff.month, cutoff.day, tzinfo=UTC),
                                  period))
    return questions


def nearest_rank(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def summary(ms: Sequence[float]) -> dict[str, float]:
    return {"n": len(ms), "p50_ms": nearest_rank(ms, 50), "p95_ms": nearest_rank(ms, 95),
            "max_ms": max(ms), "mean_ms": sum(ms) / len(ms)}


@dataclass(frozen=True)
class QuestionRun:
    cold_ms: tuple[float, ...]  # first ask of each question
    warm_ms: tuple[float, ...]  # every timed repeat of every question
    answers: tuple[tuple[Answer, ...], ...]  # per question, from its first ask
    answered: int  # subject answers with a value
    refused: int  # subject answers refused (window not public, mixed vintages, ...)
    unstable: int  # warm asks whose answer differed from the question's first ask

    def as_data(self, questions: Sequence[Question]) -> dict[str, Any]:
        slowest = sorted(zip(self.cold_ms, questions, strict=True), key=lambda x: -x[0])[:5]
        return {
            "cold": summary(self.cold_ms), "warm": summary(self.warm_ms),
            "answered": self.answered, "refused": self.refused, "unstable": self.unstable,
            "slowest_cold": [{"ms": ms, "question": q.label()} for ms, q in slowest],
        }


def _ask(store: Store, scope: Scope, q: Question) -> tuple[float, tuple[Answer, ...]]:
    began = time.perf_counter()
    result = ask(store, scope, resolve_metric(q.metric), q.subjects, q.cutoff,
                 parse_period(q.period), actor="bench")
    ms = (time.perf_counter() - began) * 1000
    return ms, tuple(
        (a.subject, None if not isinstance(a.value, int | float) else round(float(a.value), 6),
         a.period, a.refused is not None)
        for a in result.answers)


def run(store: Store, scope: Scope, questions: Sequence[Question], repeat: int) -> QuestionRun:
    """Each question once (cold, timed on its own), then ``repeat`` rounds over all of them."""
    cold, answers = [], []
    for q in questions:
        ms, got = _ask(store, scope, q)
        cold.append(ms)
        answers.append(got)
    warm, unstable = [], 0
    for _ in range(repeat):
        for q, first in zip(questions, answers, strict=True):
            ms, got = _ask(store, scope, q)
            warm.append(ms)
            unstable += got != first
    flat = [a for per in answers for a in per]
    return QuestionRun(tuple(cold), tuple(warm), tuple(answers),
                       sum(not a[3] for a in flat), sum(a[3] for a in flat), unstable)


def disagreements(a: QuestionRun, b: QuestionRun) -> list[int]:
    """Indexes of questions whose answers differ between two backends."""
    return [i for i, (x, y) in enumerate(zip(a.answers, b.answers, strict=True)) if x != y]
