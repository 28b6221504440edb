"""The tenant's registered tools (``vintage.graph.memory.tools``), managed by its admin keys:
register a tool (a version, the principals that may report for it), list them, withdraw one.
Each is an audited ``trust`` event naming the key's principal, as ``vintage tools`` records
from the command line; a result from a tool not registered for its reporter is held as a
candidate (``POST /v1/memories``)."""

from __future__ import annotations

from fastapi import APIRouter

from vintage.graph.access import Forbidden
from vintage.graph.memory.tools import (
    register_tool,
    registered_tools,
    unregister_tool,
)
from vintage.http.auth import Authenticated, Caller
from vintage.http.models_tools import (
    ToolEvent,
    ToolOut,
    ToolRegistration,
    ToolsOut,
    ToolWithdrawal,
)
from vintage.http.problems import documented

router = APIRouter(prefix="/v1", tags=["tools"])


def _admin(caller: Caller) -> None:
    if not caller.principal.can_manage_keys:
        raise Forbidden("registering tools needs an admin key")


@router.post("/tools", response_model=ToolEvent, status_code=201,
             responses=documented(400, 403))
def register(caller: Authenticated, body: ToolRegistration) -> ToolEvent:
    """Register a tool: its results may make business facts active from now on."""
    _admin(caller)
    return ToolEvent(event=register_tool(caller.store, caller.tenant, body.name,
                                         version=body.version, reporters=tuple(body.reporters),
                                         actor=caller.actor, reason=body.reason))


@router.get("/tools", response_model=ToolsOut, responses=documented(403))
def listing(caller: Authenticated) -> ToolsOut:
    """The tools registered now."""
    _admin(caller)
    return ToolsOut(items=[ToolOut.of(t) for t in registered_tools(caller.store, caller.tenant)])


@router.post("/tools/withdrawal", response_model=ToolEvent, responses=documented(400, 403))
def withdrawal(caller: Authenticated, body: ToolWithdrawal) -> ToolEvent:
    """Withdraw a registration: later results of the tool are held as candidates again."""
    _admin(caller)
    return ToolEvent(event=unregister_tool(caller.store, caller.tenant, body.name,
                                           version=body.version, actor=caller.actor,
                                           reason=body.reason))
