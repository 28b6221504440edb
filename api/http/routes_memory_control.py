"""Memory verbs that review, settle, undo and weigh: review (open conflicts), resolve,
rollback, invalidate, demote, outcome and promote.

Each runs in the scope the key allows (``vintage.http.guard``) and names the key's principal as its
actor. A person's decision (resolve, a promotion on the user's action) is a ``user_message``
write: only a key that may write one for that user may make it
(``vintage.graph.access.check_write``); an outcome is a ``tool_result`` naming its task, which an
agent key reports (and an experience that succeeded on enough tasks it may promote). Rollback,
invalidation and demotion end or lower what a scope holds: a writer or admin key only
(``vintage.graph.access.check_exit``).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response
from fastapi.responses import JSONResponse

from vintage.graph.access import check_exit, check_write
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.kinds import SourceKind
from vintage.graph.memory.conflicts import review
from vintage.graph.memory.held import held_for_review
from vintage.graph.memory.ranking import demote
from vintage.graph.memory.remember import invalidate_memory
from vintage.graph.memory.requests import promote_named, record_outcome, resolve_named
from vintage.graph.memory.rollback import rollback
from vintage.http import guard
from vintage.http.auth import Authenticated
from vintage.http.models import ExitOut, exit_out
from vintage.http.models_control import (
    Conflicts,
    Demote,
    DemotedOut,
    Invalidate,
    OutcomeIn,
    Promote,
    ReviewQuery,
    Rollback,
    RolledBackOut,
    Written,
    review_out,
)
from vintage.http.models_control import Resolve as ResolveIn
from vintage.http.models_memory import Decided
from vintage.http.problems import documented
from vintage.http.routes_memory import decided, user_and_project
from vintage.http.strict import StrictRoute

router = APIRouter(prefix="/v1", tags=["memory"], route_class=StrictRoute)


@router.get("/conflicts", response_model=Conflicts, responses=documented(400, 403))
def conflicts(caller: Authenticated, q: Annotated[ReviewQuery, Query()]) -> Conflicts:
    """A review of a scope: the open conflict sets (memories of equal authority that disagree)
    and the candidates held because they read as instructions to the model, named, never
    quoted (``all_scopes``: the whole tenant, admin only, audited)."""
    scope = guard.read_scope(caller.principal, user=q.user, project=q.project, thread=q.thread,
                             all_scopes=q.all_scopes)
    sets = review(caller.store, scope, all_scopes=q.all_scopes, actor=caller.actor)
    held = held_for_review(caller.store, scope, all_scopes=q.all_scopes)
    return review_out(sets, held)


@router.post("/conflicts/resolution", response_model=Written, responses=documented(400, 403, 404))
def resolve(caller: Authenticated, body: ResolveIn) -> Written:
    """A person's decision on a conflict set: ``keep`` becomes active, the other sides retire."""
    scope = guard.write_scope(caller.principal, user=body.user, project=body.project,
                              thread=body.thread)
    check_write(caller.principal, SourceKind.USER_MESSAGE, **user_and_project(scope))
    report = resolve_named(caller.store, scope, body.subject, body.key, body.keep,
                           source_id=body.source_id, observed_at=body.observed_at,
                           owner=body.owner, reason=body.reason, actor=caller.actor)
    return Written(event=report.event_id, created=list(report.created))


@router.post("/rollback", response_model=RolledBackOut, responses=documented(400, 403))
def rollback_scope(caller: Authenticated, body: Rollback) -> RolledBackOut:
    """Restore the scope's memories to what was held at ``to``, as new versions (nothing is
    deleted); roll back to the instant before a rollback to undo it."""
    check_exit(caller.principal, "rollback")
    scope = guard.write_scope(caller.principal, user=body.user, project=body.project,
                              thread=body.thread)
    done = rollback(caller.store, scope, body.to, actor=caller.actor, reason=body.reason)
    return RolledBackOut(event=done.event_id, restored=done.restored, retired=done.retired)


@router.post("/memories/invalidation", response_model=ExitOut,
             responses=documented(400, 403, 404))
def invalidate(caller: Authenticated, body: Invalidate) -> ExitOut:
    """Stop holding one memory from now on (history kept; as-of reads before it unchanged)."""
    check_exit(caller.principal, "invalidate")
    scope = guard.write_scope(caller.principal, user=body.user, project=body.project,
                              thread=body.thread)
    return exit_out(invalidate_memory(caller.store, scope, body.subject, body.key,
                                      actor=caller.actor, reason=body.reason))


@router.post("/memories/demotion", response_model=DemotedOut,
             responses=documented(400, 403, 404))
def demotion(caller: Authenticated, body: Demote) -> DemotedOut:
    """Set a memory's ranking weight (what a size-limited context keeps first); what is
    visible, and every answer, stay exactly as they were."""
    check_exit(caller.principal, "demote")
    scope = guard.write_scope(caller.principal, user=body.user, project=body.project,
                              thread=body.thread)
    done = demote(caller.store, scope, body.subject, body.key, weight=body.weight,
                  actor=caller.actor, reason=body.reason)
    return DemotedOut(memory_id=done.memory_id, weight=done.weight, previous=done.previous,
                      event=done.event_id)


@router.post("/memories/outcomes", response_model=Decided, status_code=201,
             responses=documented(400, 403, 404, 409))
def outcome(caller: Authenticated, body: OutcomeIn,
            response: Response) -> Decided | JSONResponse:
    """An experience's outcome on a task: a success on a distinct task counts for promotion,
    a failure against it."""
    scope = guard.write_scope(caller.principal, user=body.user, project=body.project,
                              thread=body.thread)
    check_write(caller.principal, SourceKind.TOOL_RESULT, tool=body.task,
                **user_and_project(scope))
    done, seen = record_outcome(caller.store, scope, body.subject, body.key, task=body.task,
                                succeeded=not body.failed, at=body.at, actor=caller.actor,
                                reporter=body.reporter)
    return decided(done, response, validated_tasks=seen.succeeded, failed_tasks=seen.failed)


@router.post("/memories/promotion", response_model=Decided, status_code=201,
             responses=documented(400, 403, 404, 409))
def promotion(caller: Authenticated, body: Promote,
              response: Response) -> Decided | JSONResponse:
    """Candidate to active: an experience that succeeded on enough distinct tasks, or any
    candidate on the user's explicit action (``by_user`` with the user's message)."""
    scope = guard.write_scope(caller.principal, user=body.user, project=body.project,
                              thread=body.thread)
    if body.by_user:
        if not body.source_id:
            raise InvalidArgument("by_user names the user's message (source_id)")
        check_write(caller.principal, SourceKind.USER_MESSAGE, **user_and_project(scope))
    done = promote_named(caller.store, scope, body.subject, body.key, actor=caller.actor,
                         by_user=body.by_user, source_id=body.source_id, needed=body.needed,
                         min_success_rate=body.min_success_rate)
    return decided(done, response)
