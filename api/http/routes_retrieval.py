"""Search, context packs and their trace: ``POST /v1/search``, ``POST /v1/context``,
``GET /v1/injections/{id}/trace`` and ``POST /v1/injections/{id}/used``.

The scope is the key's (``vintage.http.models_retrieval``): the legal set is read in the store
before anything is ranked (``vintage.queries.search.run``), so a key never ranks, sees or is handed
what lies outside its reach. The app's one embedder ranks the semantic leg
(``vintage.http.service.Service.embedder``).

Who may do what: any key searches and builds context in its scope (a pack's injection event is
the record of what was read and handed over, as a tenant-wide read's audit event is); marking
items ``used`` is feedback written by the agent: a reader key may not (403). An injection is
reached like a memory: one built in another tenant, in a scope past the key's binding, or
across all scopes by an admin, answers 404 to any other key, exactly as an unknown id.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request

from vintage.graph.access import Forbidden, Principal
from vintage.graph.core.model import Scope
from vintage.graph.memory.scoping import require_read_scope
from vintage.graph.store.protocol import UnknownReference
from vintage.http.auth import Authenticated, Caller, service
from vintage.http.models_retrieval import (
    ContextBody,
    ContextOut,
    SearchBody,
    SearchOut,
    TraceOut,
    UsedBody,
    UsedOut,
    Verdict,
    context_out,
    search_out,
    search_request,
)
from vintage.http.problems import documented
from vintage.http.strict import StrictRoute
from vintage.queries.search.pack import build_pack
from vintage.queries.search.run import search
from vintage.queries.search.trace import Injection, judge, mark_used, read_injection

router = APIRouter(prefix="/v1", tags=["retrieval"], route_class=StrictRoute)
InjectionId = Annotated[str, Path(min_length=1, max_length=512, examples=["e-4b1d"])]


@router.post("/search", response_model=SearchOut, responses=documented(400, 403))
def search_facts(caller: Authenticated, body: SearchBody, request: Request) -> SearchOut:
    """The legal items that best answer the query, in the key's scope: only what the scope and
    the instants make visible is ranked, never anything else."""
    asked = search_request(caller.principal, body)
    return search_out(search(caller.store, service(request).embedder(asked.scope.tenant), asked))


@router.post("/context", response_model=ContextOut, responses=documented(400, 403))
def context(caller: Authenticated, body: ContextBody, request: Request) -> ContextOut:
    """The context pack for the query (pinned constraints, then the evidence best-ranked
    first), at most ``budget`` tokens; the handover is recorded as an injection with its
    trace."""
    asked = search_request(caller.principal, body)
    require_read_scope(asked.scope, "a context", all_scopes=asked.all_scopes)
    pack = build_pack(caller.store, service(request).embedder(asked.scope.tenant), asked,
                      budget=body.budget,
                      for_thread=body.for_thread or body.thread or "", actor=caller.actor,
                      format=body.format, tokenizer=body.tokenizer)
    return context_out(pack)


@router.get("/injections/{injection_id}/trace", response_model=TraceOut,
            responses=documented(400, 404))
def trace(
    caller: Authenticated, injection_id: InjectionId,
    item: Annotated[list[str] | None, Query(
        max_length=100, description="Say what became of these fact versions.")] = None,
) -> TraceOut:
    """What the pack considered, filtered, kept, cut and where each item went; with ``item``,
    whether a version was not saved, filtered, not found, cut, seen but unused, or used."""
    found = injection_in_reach(caller, injection_id)
    judged = judge(caller.store, found, item or [])
    return TraceOut(injection=found.id, thread=found.thread, at=found.at, actor=found.actor,
                    used=list(found.used), trace=found.trace,
                    items=[Verdict(id=j.item, verdict=j.verdict.value, reason=j.reason)
                           for j in judged])


@router.post("/injections/{injection_id}/used", response_model=UsedOut,
             responses=documented(400, 403, 404))
def used(caller: Authenticated, injection_id: InjectionId, body: UsedBody) -> UsedOut:
    """Record which items of the pack the agent used (an event of ids only)."""
    if not caller.principal.can_write:
        raise Forbidden("a reader key records nothing: marking items used is a write")
    injection_in_reach(caller, injection_id)
    event = mark_used(caller.store, caller.tenant, injection_id, body.items,
                      actor=caller.actor)
    return UsedOut(injection=injection_id, items=list(dict.fromkeys(body.items)), event=event)


def injection_in_reach(caller: Caller, injection_id: str) -> Injection:
    """The injection, if the key reaches the scope its pack was read in; otherwise the same
    ``UnknownReference`` as an id that does not exist."""
    try:
        found = read_injection(caller.store, caller.tenant, injection_id)
    except UnknownReference:
        found = None
    if found is None or not reaches(caller.principal, found):
        raise UnknownReference(f"no injection {injection_id[:40]!r} in this tenant")
    return found


def reaches(p: Principal, injection: Injection) -> bool:
    if injection.trace.get("all_scopes") and not p.can_read_tenant_wide:
        return False  # every user's memories were read: an admin's record
    terms = injection.trace.get("read", {}).get("scope", [])
    return p.reaches(Scope.from_terms(injection.tenant, list(terms)))
