"""Memory verbs: remember (compare-and-set with ``If-Match``), the current memory (its
``ETag``), memories (paginated), correct, audit (paginated), forget and summarise.
``review | resolve | rollback | invalidate | demote | outcome | promote`` live in
``vintage.http.routes_memory_control``.

Authority is bound to the key: the source kind a write claims must be one the key may write
(``vintage.graph.access.check_write``), and every event names the key's principal as its actor. A
gate's refusal is 422 and an equal-authority disagreement 409, each a problem carrying the decision
and its audit event; a written version is 201 and a repeat 200.
"""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, Header, Path, Query, Response
from fastapi.responses import JSONResponse

from vintage.graph.access import check_exit, check_write
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.kinds import SourceKind, required_authority
from vintage.graph.core.model import Scope
from vintage.graph.memory.amend import current
from vintage.graph.memory.forget import forget
from vintage.graph.memory.gate import Decision, MemoryIn, memory_scope
from vintage.graph.memory.remember import Remembered, remember
from vintage.graph.memory.requests import correct_by_id, remember_checked
from vintage.graph.store.protocol import UnknownReference
from vintage.http import guard, pages
from vintage.http.auth import Authenticated, Caller
from vintage.http.kinds import MEMORY_CONFLICT, MEMORY_REFUSED
from vintage.http.models_control import Forget, Forgotten, Summarise, Summary
from vintage.http.models_memory import (
    AuditPage,
    AuditQuery,
    Correction,
    CurrentQuery,
    Decided,
    EventOut,
    MemoriesPage,
    MemoriesQuery,
    MemoryOut,
    MemoryWrite,
)
from vintage.http.problems import documented, problem
from vintage.http.strict import StrictRoute
from vintage.queries.memory.recall import MemoryView, audit, recall
from vintage.queries.memory.summaries import summarise

router = APIRouter(prefix="/v1", tags=["memory"], route_class=StrictRoute)
ETAG = re.compile(r'^"(\d{1,18})"$')
WRITTEN = frozenset({Decision.ACTIVE, Decision.CANDIDATE})
MemoryId = Annotated[str, Path(min_length=1, max_length=512, examples=["m-8d1f-1"])]
Precondition = Annotated[str | None, Header(
    description='The revision this write expects, as an ETag gave it: `"3"`.')]
CreateOnly = Annotated[str | None, Header(
    description="`*`: write only if the memory has no current version.")]


def etag(revision: int) -> str:
    return f'"{revision}"'


def expected_revision(if_match: str | None) -> int:
    found = ETAG.match((if_match or "").strip())
    if found is None:
        raise InvalidArgument('If-Match: one strong ETag as a response gave it, e.g. "3"')
    return int(found.group(1))


def decided(done: Remembered, response: Response, **extra: int) -> Decided | JSONResponse:
    """The decision as its status: 201 written, 200 a repeat, 422 refused, 409 in conflict."""
    body = Decided(decision=done.decision, reason=done.reason, memory_id=done.memory_id,
                   revision=done.revision, event=done.event_id, **extra)
    kind = {Decision.REFUSED: MEMORY_REFUSED, Decision.CONFLICT: MEMORY_CONFLICT}.get(
        done.decision)
    if kind is not None:
        return problem(kind, done.reason, **body.model_dump(mode="json", exclude={"reason"}))
    if done.revision is not None:
        response.headers["ETag"] = etag(done.revision)
    response.status_code = 201 if done.decision in WRITTEN else 200
    return body


def user_and_project(scope: Scope) -> dict[str, str | None]:
    return {"for_user": scope.keys.get("user"), "project": scope.keys.get("project")}


@router.post("/memories", response_model=Decided, status_code=201,
             responses=documented(400, 403, 409, 412) | {200: {"model": Decided,
                                                               "description": "A repeat."}})
def remember_memory(caller: Authenticated, body: MemoryWrite, response: Response,
                    if_match: Precondition = None,
                    if_none_match: CreateOnly = None) -> Decided | JSONResponse:
    """Write one memory through the gates; the decision and why (an event either way)."""
    p = caller.principal
    scope = guard.write_scope(p, user=body.user, project=body.project, thread=body.thread)
    if body.source_kind is not None:
        check_write(p, body.source_kind, tool=body.tool, **user_and_project(scope))
    fields = body.model_dump(exclude={"user", "project", "thread"})
    draft = MemoryIn(**fields, tenant=p.tenant, user=scope.keys.get("user"),
                     project=scope.keys.get("project"), thread=scope.keys.get("thread"))
    if if_none_match is not None:
        if if_none_match.strip() != "*":
            raise InvalidArgument("If-None-Match: only * (write if there is no memory yet)")
        done = remember(caller.store, draft, actor=caller.actor, expected=None)
    else:
        expected = None if if_match is None else expected_revision(if_match)
        done = remember_checked(caller.store, draft, actor=caller.actor, expected=expected)
    return decided(done, response)


@router.get("/memories/current", response_model=MemoryOut, responses=documented(400, 403, 404))
def current_memory(caller: Authenticated, q: Annotated[CurrentQuery, Query()],
                   response: Response) -> MemoryOut:
    """The memory as it holds now (candidates included), with its revision as ``ETag``: send
    it back as ``If-Match`` to write only if nobody changed it since."""
    scope = guard.read_scope(caller.principal, user=q.user, project=q.project, thread=q.thread)
    found = _current_view(caller, scope, q.subject, q.key)
    response.headers["ETag"] = etag(found.revision)
    return MemoryOut(**found.model_dump())


def _current_view(caller: Caller, scope: Scope, subject: str, key: str) -> MemoryView:
    """The current version of the memory in exactly ``scope`` (the one ``If-Match`` compares
    with), as a read now shows it: an expired or invalidated one is not found."""
    held = current(caller.store, scope, subject, key)
    found = [m for m in recall(caller.store, scope, subject, key, candidates=True)
             if m.id == held.id]
    if not found:
        raise UnknownReference(f"no memory {subject} {key} in this scope")
    return found[0]


@router.get("/memories", response_model=MemoriesPage, responses=documented(400, 403))
def memories(caller: Authenticated, q: Annotated[MemoriesQuery, Query()]) -> MemoriesPage:
    """A subject's memories in a scope, best-weighted first; pages are slices of one snapshot
    (the first page pins its instants). ``all_scopes`` needs an admin key and is audited."""
    scope = guard.read_scope(caller.principal, user=q.user, project=q.project, thread=q.thread,
                             all_scopes=q.all_scopes)
    now = caller.store.now()
    query = q.model_dump(exclude={"limit", "cursor"})
    at = pages.decode(q.cursor, query, {"at": q.at or now, "system_at": q.system_at or now})
    found = recall(caller.store, scope, q.subject, q.key, at=at.pinned["at"],
                   system_at=at.pinned["system_at"], valid_at=q.valid_at,
                   candidates=q.candidates,
                   hindsight=q.hindsight, all_scopes=q.all_scopes, actor=caller.actor,
                   min_authority=required_authority(q.min_authority, q.risk))
    items, more = pages.page(found, query, at, q.limit)
    return MemoriesPage(items=[MemoryOut(**m.model_dump()) for m in items], next_cursor=more)


@router.post("/memories/{memory_id}/correction", response_model=Decided, status_code=201,
             responses=documented(400, 403, 404, 409))
def correct(caller: Authenticated, memory_id: MemoryId, body: Correction,
            response: Response) -> Decided | JSONResponse:
    """The user corrects the version they were shown: it must still be current (409 if not)."""
    fact = guard.memory_in_reach(caller.store, caller.principal, memory_id)
    held = Scope.from_terms(caller.tenant, list(fact.scope))
    check_write(caller.principal, SourceKind.USER_MESSAGE, **user_and_project(held))
    done = correct_by_id(caller.store, caller.tenant, memory_id, body.value,
                         source_id=body.source_id, observed_at=body.observed_at,
                         actor=caller.actor, consent=body.consent, valid_from=body.valid_from,
                         valid_to=body.valid_to)
    return decided(done, response)


@router.get("/audit", response_model=AuditPage, responses=documented(400))
def audit_trail(caller: Authenticated, q: Annotated[AuditQuery, Query()]) -> AuditPage:
    """Who did what, when and why, oldest first: every event of the tenant for an admin key,
    those of its scope for any other; never erased content, never a key's verifier."""
    query = q.model_dump(exclude={"limit", "cursor"})
    at = pages.decode(q.cursor, query, {"upto": caller.store.now()})
    found = audit(caller.store, caller.tenant, subject=q.subject, key=q.key, since=q.since,
                  until=q.until)
    shown = guard.shown_events(caller.principal, found, upto=at.pinned["upto"])
    items, more = pages.page(shown, query, at, q.limit)
    return AuditPage(items=[EventOut(**e.model_dump()) for e in items], next_cursor=more)


@router.post("/forget", response_model=Forgotten, responses=documented(400, 403, 404))
def forget_memory(caller: Authenticated, body: Forget) -> Forgotten:
    """Erase content: a memory (every version), what a source said, or all of a user's;
    derived summaries go with it; a content-free tombstone event remains."""
    p = caller.principal
    check_exit(p, "forget")
    scope = guard.write_scope(p, user=body.user, project=body.project, thread=body.thread)
    user = scope.keys.get("user")
    if body.everything and user is None:
        raise InvalidArgument("everything names its user (a key bound to one needs none)")
    if body.source is not None:
        guard.source_in_reach(caller.store, p, body.source)
    target = memory_scope(p.tenant, None if body.everything else user,
                          scope.keys.get("project"), scope.keys.get("thread"))
    gone = forget(caller.store, target, subject=body.subject, key=body.key,
                  source_id=body.source, user=user if body.everything else None,
                  actor=caller.actor, reason=body.reason)
    return Forgotten.of(gone)


@router.post("/summaries", response_model=Summary, responses=documented(400, 403))
def summary(caller: Authenticated, body: Summarise) -> Summary:
    """A derived summary of a subject's active memories, with lineage to each of them."""
    scope = guard.write_scope(caller.principal, user=body.user, project=body.project,
                              thread=body.thread)
    done = summarise(caller.store, scope, body.subject, keys=body.keys, actor=caller.actor)
    return Summary(fact=done.fact.id, derivation=done.derivation_id, value=done.fact.value)
