"""Facts, lineage and metric questions: the as-of read, history, explain (JSON, PROV-JSON,
GraphML), impact, retraction and its undoing, and a metric as of a cutoff.

Handlers call ``queries`` and ``graph`` functions in the scope the key allows
(``vintage.http.guard``); an id outside the key's reach answers 404 like one that does not exist.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Response
from fastapi.responses import JSONResponse

from vintage.graph.access import check_exit
from vintage.graph.core.temporal import as_of
from vintage.http import guard, pages
from vintage.http.auth import Authenticated
from vintage.http.models import (
    EXPLANATION_EXAMPLE,
    IMPACT_EXAMPLE,
    METRIC_EXAMPLE,
    ExitOut,
    ExplainFormat,
    FactsPage,
    FactsQuery,
    History,
    HistoryQuery,
    Instant,
    MetricQuery,
    Reason,
    exit_out,
    fact_out,
)
from vintage.http.problems import documented
from vintage.http.strict import StrictRoute
from vintage.queries.lineage import asof as asof_queries
from vintage.queries.lineage.explain import Explanation, explain
from vintage.queries.lineage.export import graphml, prov_json
from vintage.queries.lineage.impact import Impact, impact
from vintage.queries.lineage.retraction import retract
from vintage.queries.lineage.subjects import resolve_subjects
from vintage.queries.metrics.answers import MetricAnswer
from vintage.queries.metrics.definitions import resolve_metric
from vintage.queries.metrics.periods import parse_period
from vintage.queries.metrics.question import ask

router = APIRouter(prefix="/v1", tags=["facts"], route_class=StrictRoute)
Id = Annotated[str, Path(min_length=1, max_length=512, examples=["f-2c1b0a9e8d7c6b5a-1"])]
SourceId = Annotated[str, Path(min_length=1, max_length=512,
                               examples=["0001652044-19-000004"])]
GRAPHML = "application/graphml+xml"


@router.get("/facts", response_model=FactsPage, responses=documented(400, 403))
def facts(caller: Authenticated, q: Annotated[FactsQuery, Query()]) -> FactsPage:
    """Facts visible at a knowledge cutoff (filtered inside the store, before any limit), as
    known then; pages are slices of one snapshot (the first page pins cutoff and system time)."""
    scope = guard.read_scope(caller.principal)
    now = caller.store.now()
    query = q.model_dump(exclude={"limit", "cursor"})
    at = pages.decode(q.cursor, query, {"cutoff": q.cutoff or now,
                                        "system_at": q.system_at or now})
    subjects = resolve_subjects(caller.store, caller.tenant, q.subject)
    found = asof_queries.facts_as_of(
        caller.store, scope, subjects=subjects, predicates=[q.predicate],
        known_at=at.pinned["cutoff"], valid=as_of(q.valid_at) if q.valid_at else None,
        system_at=at.pinned["system_at"], limit=at.offset + q.limit + 1,
        hindsight=q.hindsight)
    items, more = pages.page(found, query, at, q.limit)
    return FactsPage(items=[fact_out(a) for a in items], next_cursor=more)


@router.get("/facts/history", response_model=History, responses=documented(400, 403))
def history(caller: Authenticated, q: Annotated[HistoryQuery, Query()]) -> History:
    """Every version of one assertion, on every axis, oldest first."""
    scope = guard.read_scope(caller.principal)
    (subject,) = resolve_subjects(caller.store, caller.tenant, [q.subject])
    found = asof_queries.history(caller.store, scope, subject, q.predicate, q.valid_from,
                                 q.valid_to, q.unit)
    return History(items=[fact_out(a) for a in found])


@router.get("/facts/{fact_id}/explanation", response_model=Explanation,
            responses=documented(400, 404) | {200: {"content": {
                "application/json": {"example": EXPLANATION_EXAMPLE},
                GRAPHML: {"schema": {"type": "string"}}},
                "description": "The tree: JSON (default), PROV-JSON or GraphML."}})
def explanation(
    caller: Authenticated, fact_id: Id,
    system_at: Annotated[Instant | None, Query(description="System instant (default: now).")]
        = None,
    format: Annotated[ExplainFormat, Query(description="json, prov-json or graphml.")]
        = "json",
) -> Any:
    """The full upstream tree of a fact: recipes, inputs, periods, sources, time stamps."""
    guard.fact_in_reach(caller.store, caller.principal, fact_id)
    result = explain(caller.store, guard.read_scope(caller.principal), fact_id, system_at)
    if format == "prov-json":
        return JSONResponse(prov_json(result))
    if format == "graphml":
        return Response(graphml(result), media_type=GRAPHML)
    return result


@router.get("/facts/{fact_id}/impact", response_model=Impact,
            responses=documented(404) | {200: {"content": {"application/json": {
                "example": IMPACT_EXAMPLE}}, "description": "What it reaches."}})
def fact_impact(caller: Authenticated, fact_id: Id) -> Impact:
    """Every derived fact downstream of a fact, with its path, if it stopped holding."""
    guard.fact_in_reach(caller.store, caller.principal, fact_id)
    return impact(caller.store, guard.read_scope(caller.principal), fact_id=fact_id)


@router.get("/sources/{source_id}/impact", response_model=Impact,
            responses=documented(404) | {200: {"content": {"application/json": {
                "example": IMPACT_EXAMPLE}}, "description": "What it reaches."}})
def source_impact(caller: Authenticated, source_id: SourceId) -> Impact:
    """What retracting a source would change, and what it already revised."""
    guard.source_in_reach(caller.store, caller.principal, source_id)
    return impact(caller.store, guard.read_scope(caller.principal), source_id=source_id)


@router.post("/sources/{source_id}/retraction", response_model=ExitOut,
             responses=documented(400, 403, 404))
def retraction(caller: Authenticated, source_id: SourceId, body: Reason) -> ExitOut:
    """Retract a source: its facts lose its support; those left with none stop being held,
    and the cascade follows."""
    return _retract(caller, source_id, body, undo=False)


@router.post("/sources/{source_id}/retraction/undo", response_model=ExitOut,
             responses=documented(400, 403, 404))
def undo_retraction(caller: Authenticated, source_id: SourceId, body: Reason) -> ExitOut:
    """Undo the source's latest retraction: what it closed is held again."""
    return _retract(caller, source_id, body, undo=True)


def _retract(caller: Authenticated, source_id: str, body: Reason, *, undo: bool) -> ExitOut:
    check_exit(caller.principal, "undoing a retraction" if undo else "retract")
    scope = guard.write_scope(caller.principal)
    guard.source_in_reach(caller.store, caller.principal, source_id)
    return exit_out(retract(caller.store, scope, source_id, reason=body.reason,
                             actor=caller.actor, undo=undo))


@router.get("/metrics/{metric}", response_model=MetricAnswer,
            responses=documented(400, 403) | {200: {"content": {"application/json": {
                "example": METRIC_EXAMPLE}}, "description": "One answer per subject."}})
def metric(
    caller: Authenticated,
    metric: Annotated[str, Path(min_length=1, max_length=256, examples=["revenue"],
                                description="A built-in metric or a concept.")],
    q: Annotated[MetricQuery, Query()],
) -> MetricAnswer:
    """A metric per company as it could have been computed at the cutoff, with its lineage
    (a derived answer is persisted, its event naming the key)."""
    scope = guard.read_scope(caller.principal)
    return ask(caller.store, scope, resolve_metric(metric), q.subject, q.cutoff,
               parse_period(q.period), actor=caller.actor, hindsight=q.hindsight)
