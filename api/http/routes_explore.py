"""The reads the lineage explorer needs beside the rest of the API (docs/explorer.md): a fact's
versions on their three axes with sources and change classes, the as-of answer for its
assertion at an instant, a metric across several cutoffs, the recorded evaluation report and a
scope's memory health.

Read-only, with the keys, scopes and tenants of every other route (``vintage.http.guard``): a
fact outside the key's reach answers 404 like one that does not exist; a report is the key's
tenant's. The explorer calls these and adds no server logic of its own.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query

from vintage.graph.store.protocol import UnknownReference
from vintage.http import guard
from vintage.http.auth import Authenticated
from vintage.http.models import fact_out
from vintage.http.models_explore import (
    AsOfOut,
    AsOfQuery,
    CutoffsQuery,
    EvalReport,
    HealthOut,
    HealthQuery,
    VersionOut,
    Versions,
    Vintages,
)
from vintage.http.problems import documented
from vintage.http.strict import StrictRoute
from vintage.queries.eval import recorded
from vintage.queries.eval.health import as_data, health
from vintage.queries.lineage.versions import assertion_as_of, versions
from vintage.queries.metrics.definitions import resolve_metric
from vintage.queries.metrics.periods import parse_period
from vintage.queries.metrics.question import ask

router = APIRouter(prefix="/v1", route_class=StrictRoute)
Id = Annotated[str, Path(min_length=1, max_length=512, examples=["f-2c1b0a9e8d7c6b5a-1"])]
NO_REPORT = ("no evaluation report recorded in this tenant: run vintage eval --record "
             "--store STORE --tenant TENANT")


@router.get("/facts/{fact_id}/versions", response_model=Versions, tags=["facts"],
            responses=documented(400, 404))
def fact_versions(caller: Authenticated, fact_id: Id) -> Versions:
    """Every version of the fact's assertion, oldest first, on its three axes, with the
    sources each cites and the class of each revision."""
    fact = guard.fact_in_reach(caller.store, caller.principal, fact_id)
    found = versions(caller.store, caller.tenant, fact.key)
    return Versions(fact=fact_id, items=[
        VersionOut(**fact_out(v.answer).model_dump(), cited=v.cited, change=v.change)
        for v in found if guard.reaches(caller.principal, v.answer.fact)])


@router.get("/facts/{fact_id}/asof", response_model=AsOfOut, tags=["facts"],
            responses=documented(400, 404))
def fact_as_of(caller: Authenticated, fact_id: Id,
               q: Annotated[AsOfQuery, Query()]) -> AsOfOut:
    """What a question about the fact's assertion would have returned at the cutoff: the
    version public by then, as known then, or none."""
    fact = guard.fact_in_reach(caller.store, caller.principal, fact_id)
    scope = guard.read_scope(caller.principal)
    found = assertion_as_of(caller.store, scope, fact, q.cutoff, q.system_at)
    return AsOfOut(fact=fact_id, cutoff=q.cutoff,
                   answer=None if found is None else fact_out(found))


@router.get("/metrics/{metric}/cutoffs", response_model=Vintages, tags=["facts"],
            responses=documented(400, 403))
def metric_cutoffs(
    caller: Authenticated,
    metric: Annotated[str, Path(min_length=1, max_length=256, examples=["operating_margin"],
                                description="A built-in metric or a concept.")],
    q: Annotated[CutoffsQuery, Query()],
) -> Vintages:
    """A metric per company at each cutoff, as it could have been computed then: what was
    known when (``vintage asof`` with a repeated ``--cutoff``; derived answers are persisted,
    as ``GET /v1/metrics/{metric}`` does)."""
    scope = guard.read_scope(caller.principal)
    chosen, period = resolve_metric(metric), parse_period(q.period)
    answers = [ask(caller.store, scope, chosen, q.subject, c, period, actor=caller.actor)
               for c in q.cutoff]
    return Vintages(metric=answers[0].metric, period=q.period, answers=answers)


@router.get("/eval/report", response_model=EvalReport, tags=["eval"],
            responses=documented(404))
def eval_report(caller: Authenticated) -> EvalReport:
    """The tenant's latest evaluation report, as ``vintage eval --record`` kept it."""
    found = recorded.latest(caller.store, caller.tenant)
    if found is None:
        raise UnknownReference(NO_REPORT)
    return EvalReport(event=found.event, at=found.at, actor=found.actor, summary=found.summary)


@router.get("/eval/health", response_model=HealthOut, tags=["eval"],
            responses=documented(400, 403))
def memory_health(caller: Authenticated, q: Annotated[HealthQuery, Query()]) -> HealthOut:
    """A user's or project's memory health (``vintage health`` without its drill, which
    writes): cold memories, what contexts spend their tokens on, open conflicts, candidates."""
    scope = guard.read_scope(caller.principal, user=q.user, project=q.project, thread=q.thread)
    found = as_data(health(caller.store, scope, days=q.days, actor=caller.actor, drill=False))
    del found["drill"]
    return HealthOut(**found)
