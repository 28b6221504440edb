"""Request and response models shared by every area, and those of facts, lineage and metric
questions. Each carries an example, shown in ``/openapi.json``.

Instants are ISO 8601 with an offset (``2024-05-01T12:00:00Z``), or a date (its first instant,
UTC); a naive datetime is refused (422), never guessed.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AllowInfNan, BaseModel, BeforeValidator, ConfigDict, Field, Strict

from vintage.graph.core.temporal import parse_instant
from vintage.graph.writes.corrections import ExitReport
from vintage.queries.lineage.asof import Answer
from vintage.queries.lineage.views import FactView, SourceView


def _instant(value: Any) -> Any:
    # A number is refused, not read as seconds since 1970 (pydantic's lax default).
    return value if isinstance(value, datetime) else parse_instant(value)


Instant = Annotated[datetime, BeforeValidator(_instant)]
Limit = Annotated[int, Field(ge=1, le=1000, description="Most items on one page.")]
Cursor = Annotated[str | None, Field(description="The `next_cursor` of the previous page.",
                                     max_length=2000)]

SOURCE_EXAMPLE: dict[str, Any] = {"id": "0001652044-19-000004", "kind": "filing", "form": "10-K",
                  "accession": "0001652044-19-000004",
                  "uri": "https://www.sec.gov/Archives/edgar/data/1652044/000165204419000004/",
                  "available_at": "2019-02-05T00:00:00Z"}
FACT_EXAMPLE: dict[str, Any] = {"id": "f-2c1b0a9e8d7c6b5a-1", "subject": "GOOGL",
                "predicate": "us-gaap:Revenues", "value": 136819000000, "unit": "USD",
                "kind": "observation", "status": "active", "revision": 1,
                "valid": ["2018-01-01T00:00:00Z", "2019-01-01T00:00:00Z"],
                "knowledge": ["2019-02-05T00:00:00Z", None],
                "system": ["2026-06-01T12:00:00Z", None]}

# A request body's booleans and numbers as JSON writes them: ``"yes"`` is no ``true`` and ``"5"``
# no 5 (a string read as true erased a user's every memory); a query string's stay text.
JsonBool = Annotated[bool, Strict()]
JsonInt = Annotated[int, Strict()]
JsonFloat = Annotated[float, Strict(), AllowInfNan(False)]  # 1 is 1.0; NaN is no number


class Out(BaseModel):
    model_config = ConfigDict(frozen=True)


class Health(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [{"status": "ok"}]})

    status: Literal["ok"] = "ok"


class Ready(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"status": "ready", "store": "reachable", "schema": "applied"}]})

    status: Literal["ready"] = "ready"
    store: Literal["reachable"] = "reachable"
    schema_: Literal["applied"] = Field("applied", alias="schema")


class StaleOut(Out):
    """Why an item is stale (docs/semantics.md, "Staleness"): the premise that stopped holding,
    why, when and by what; ``closed``: the cascade closed the item, so it is not handed over."""

    item: str
    premise: str
    subject: str
    key: str
    reason: Literal["superseded", "retracted", "expired", "below authority"]
    when: datetime | None
    by: str | None
    depth: int
    closed: bool
    item_subject: str = Field("", description="The stale item's own subject and key.")
    item_key: str = ""


class FactOut(FactView):
    """A visible fact with the sources that support it, earliest first."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        FACT_EXAMPLE | {"sources": [SOURCE_EXAMPLE]}]})

    sources: tuple[SourceView, ...]
    stale: StaleOut | None = None  # a premise it rests on stopped holding as of the read


def fact_out(a: Answer) -> FactOut:
    """A read's answer as the API shows it."""
    return FactOut(**FactView.of(a.fact).model_dump(),
                   sources=tuple(SourceView.of(s) for s in a.sources),
                   stale=None if a.stale is None else StaleOut(**a.stale.document()))


class FactsPage(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"items": [FACT_EXAMPLE | {"sources": [SOURCE_EXAMPLE]}], "next_cursor": None}]})

    items: list[FactOut]
    next_cursor: str | None = Field(None, description="Absent on the last page.")


class FactsQuery(BaseModel):
    """Facts visible at a knowledge cutoff, as known then (hindsight only when asked)."""

    model_config = ConfigDict(extra="forbid")

    predicate: str = Field(examples=["us-gaap:Revenues"], min_length=1, max_length=256)
    subject: list[Annotated[str, Field(min_length=1, max_length=256)]] = Field(
        examples=[["GOOGL"]], min_length=1, max_length=50,
        description="A subject id, CIK or ticker; repeatable.")
    cutoff: Instant | None = Field(None, examples=["2019-03-01"],
                                   description="Knowledge cutoff (default: now).")
    valid_at: Instant | None = Field(None, description="Valid instant (default: any).")
    system_at: Instant | None = Field(None, description="System instant (default: now).")
    hindsight: bool = Field(False, description="Show knowledge ends learned after the cutoff.")
    limit: Limit = 100
    cursor: Cursor = None


class HistoryQuery(BaseModel):
    """Every version of one assertion, on every axis, oldest first."""

    model_config = ConfigDict(extra="forbid")

    subject: str = Field(examples=["GOOGL"], min_length=1, max_length=256)
    predicate: str = Field(examples=["us-gaap:Revenues"], min_length=1, max_length=256)
    valid_from: Instant = Field(examples=["2018-01-01"])
    valid_to: Instant | None = Field(None, examples=["2019-01-01"])
    unit: str | None = Field(None, examples=["USD"], max_length=256)


class History(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"items": [FACT_EXAMPLE | {"sources": [SOURCE_EXAMPLE]}]}]})

    items: list[FactOut]


ExplainFormat = Literal["json", "prov-json", "graphml"]


class MetricQuery(BaseModel):
    """A metric per company as it could have been computed at the cutoff."""

    model_config = ConfigDict(extra="forbid")

    subject: list[Annotated[str, Field(min_length=1, max_length=256)]] = Field(
        examples=[["GOOGL", "MSFT"]], min_length=1, max_length=50)
    cutoff: Instant = Field(examples=["2019-03-01"])
    period: str = Field("LTM", examples=["FY2018"], max_length=64,
                        description="FY2024, FY2024Q4, LTM or START..END.")
    hindsight: bool = False


class Reason(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"reason": "the filing was withdrawn"}]})

    reason: str = Field(min_length=1, max_length=2000, description="Kept in the event.")


class Touched(Out):
    """One fact a change reached, and what became of it."""

    fact: str
    predicate: str
    fate: str
    depth: int | None = None
    known_until: datetime | None = None


class ExitOut(Out):
    """What a retraction, its undoing or an invalidation did."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"event": "e-5f0c", "facts": ["f-2c1b0a9e8d7c6b5a-1"],
         "cascade": [{"fact": "f-9a8b-1", "predicate": "metric:revenue_ltm",
                      "fate": "closed", "depth": 1, "known_until": None}],
         "knowledge": []}]})

    event: str
    facts: list[str]
    cascade: list[Touched]
    knowledge: list[Touched]


def exit_out(report: ExitReport) -> ExitOut:
    return ExitOut(
        event=report.event_id, facts=list(report.invalidated),
        cascade=[Touched(fact=o.fact.id, predicate=o.fact.predicate, fate=o.fate.value,
                         depth=o.depth) for o in report.cascade],
        knowledge=[Touched(fact=o.fact.id, predicate=o.fact.predicate, fate=o.fate.value,
                           known_until=o.ends_at) for o in report.knowledge])


EXPLANATION_EXAMPLE: dict[str, Any] = {
    "system_at": "2026-06-01T12:00:00Z",
    "root": {"fact": FACT_EXAMPLE, "derived_by": [], "sources": [SOURCE_EXAMPLE],
             "supersedes": [], "superseded_by": []}}
IMPACT_EXAMPLE: dict[str, Any] = {
    "start": "source", "start_id": "0001652044-19-000004",
    "system_at": "2026-06-01T12:00:00Z", "changed": [FACT_EXAMPLE], "also_supported": [],
    "affected": [], "by_kind": {"observation": 1}, "by_depth": {}, "revised": []}
METRIC_EXAMPLE: dict[str, Any] = {
    "metric": "revenue", "description": "Total revenue", "cutoff": "2019-03-01T00:00:00Z",
    "period": "FY2018", "answers": [{
        "subject": "GOOGL", "value": 136819000000, "unit": "USD", "period": "FY2018",
        "span": "2018-01-01..2018-12-31", "method": "reported",
        "fact_id": "f-2c1b0a9e8d7c6b5a-1", "derivation_id": None, "derivations": [],
        "periods_used": ["FY2018"], "inputs": [], "warnings": [], "refused": None,
        "hindsight": None}]}
