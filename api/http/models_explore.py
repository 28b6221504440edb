"""Request and response models of the explorer's reads (``vintage.http.routes_explore``): a
fact's versions, the as-of answer for its assertion, a metric across cutoffs, the recorded
evaluation report and a scope's memory health. Each carries an example for ``/openapi.json``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from vintage.http.models import (
    FACT_EXAMPLE,
    METRIC_EXAMPLE,
    SOURCE_EXAMPLE,
    FactOut,
    Instant,
    Out,
)
from vintage.http.models_memory import Scoped
from vintage.queries.metrics.answers import MetricAnswer

MAX_CUTOFFS = 24  # a chart's points: two a year over a dozen years

VERSION_EXAMPLE: dict[str, Any] = FACT_EXAMPLE | {
    "sources": [SOURCE_EXAMPLE], "cited": "support", "change": None}


class VersionOut(FactOut):
    """One version on its three axes (``valid``, ``knowledge``, ``system``: each a half-open
    [start, end), null end open), the sources it cites, and its revision's class."""

    model_config = ConfigDict(json_schema_extra={"examples": [VERSION_EXAMPLE]})

    cited: Literal["support", "inputs"] = Field(description=(
        "support: the sources that filed it; inputs: a derived version's inputs' sources, "
        "public when it became known."))
    change: str | None = Field(description=(
        "null for the first version; recomputed (derived), or a filed revision's class: "
        "rounding, split_adjustment, reclassification, restatement, unclassified."))


class Versions(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"fact": FACT_EXAMPLE["id"], "items": [VERSION_EXAMPLE]}]})

    fact: str = Field(description="The version the request named.")
    items: list[VersionOut] = Field(description="Every version of its assertion, oldest first.")


class AsOfQuery(BaseModel):
    """The instant a question would have been asked at."""

    model_config = ConfigDict(extra="forbid")

    cutoff: Instant = Field(examples=["2018-06-30"], description="Knowledge cutoff.")
    system_at: Instant | None = Field(None, description="System instant (default: now).")


class AsOfOut(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"fact": FACT_EXAMPLE["id"], "cutoff": "2019-03-01T00:00:00Z",
         "answer": FACT_EXAMPLE | {"sources": [SOURCE_EXAMPLE]}}]})

    fact: str
    cutoff: datetime
    answer: FactOut | None = Field(description=(
        "The version a question at the cutoff was answered with, as known then (no "
        "look-ahead); null when none was public yet."))


class CutoffsQuery(BaseModel):
    """One metric per company at several knowledge cutoffs (`vintage asof` with repeated
    `--cutoff`)."""

    model_config = ConfigDict(extra="forbid")

    subject: list[Annotated[str, Field(min_length=1, max_length=256)]] = Field(
        examples=[["GOOGL"]], min_length=1, max_length=50)
    cutoff: list[Instant] = Field(examples=[["2018-06-30", "2019-06-30"]], min_length=1,
                                  max_length=MAX_CUTOFFS, description="Repeatable.")
    period: str = Field("LTM", examples=["FY2018Q1"], max_length=64,
                        description="FY2024, FY2024Q4, LTM or START..END.")


class Vintages(Out):
    """What was known when: one answer per cutoff, in the order asked."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"metric": "revenue", "period": "FY2018",
         "answers": [METRIC_EXAMPLE, METRIC_EXAMPLE | {"cutoff": "2019-06-30T00:00:00Z"}]}]})

    metric: str
    period: str
    answers: list[MetricAnswer]


class EvalReport(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"event": "e4b1d", "at": "2026-06-01T12:00:00Z", "actor": "ci",
         "summary": {"rungs": [{"rung": "engine", "layers": {}}]}}]})

    event: str
    at: datetime
    actor: str
    summary: dict[str, Any] = Field(description="What `vintage eval --json` printed.")


class HealthQuery(Scoped):
    """A scope's memory health: one user's or project's (within the key's binding)."""

    days: int = Field(30, ge=1, le=36500, description="The window, in days.")


class HealthOut(Out):
    """``vintage health --json`` without the drill (the drill writes; this is a read)."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"scope": ["user=42"], "days": 30, "memories": 2,
         "cold": [{"id": "k1a2b.r1", "subject": "user:42", "key": "home.city",
                   "since": "2026-05-01T09:00:00+00:00"}],
         "injections": 3, "tokens_by_kind": {"preference": 120},
         "tokens_by_source": {"msg-1": 120}, "header_share": 0.18,
         "conflicts": [], "candidates": []}]})

    scope: list[str]
    days: int
    memories: int
    cold: list[dict[str, Any]]
    injections: int
    tokens_by_kind: dict[str, int]
    tokens_by_source: dict[str, int]
    header_share: float | None
    conflicts: list[dict[str, Any]]
    candidates: list[dict[str, Any]]
