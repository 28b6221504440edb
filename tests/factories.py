"""Small builders of test data, so tests read like the specification they check."""

from __future__ import annotations

from typing import Any

from graph.model import FactIn, SourceIn, Subject
from graph.temporal import parse_instant
from graph.writes import Batch

Q1_2018 = (parse_instant("2018-01-01"), parse_instant("2018-04-01"))


def source(sid: str, available: str, kind: str = "filing", **extra: Any) -> SourceIn:
    return SourceIn(id=sid, kind=kind, available_at=parse_instant(available), **extra)


def fact(
    value: Any, src: str, subject: str = "GOOGL", predicate: str = "OperatingIncomeLoss",
    period: tuple[Any, Any] = Q1_2018, **extra: Any,
) -> FactIn:
    start, end = period
    return FactIn(
        subject=subject, predicate=predicate, value=value, unit=extra.pop("unit", "USD"),
        valid_from=start if not isinstance(start, str) else parse_instant(start),
        valid_to=end if not isinstance(end, str) or end is None else parse_instant(end),
        source=src, **extra,
    )


def company(sid: str = "GOOGL") -> Subject:
    return Subject(id=sid, kind="company", name=sid)


def batch(
    *facts: FactIn, sources: tuple[SourceIn, ...] = (), subjects: tuple[str, ...] = ("GOOGL",),
) -> Batch:
    return Batch(subjects=[company(s) for s in subjects], sources=list(sources), facts=list(facts))
