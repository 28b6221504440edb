"""The tenant's registered tools (``vintage.graph.memory.tools``), managed by its admin keys:
register a tool (a version, the principals that may report for it), list them, withdraw one.
Each is an audited ``trust`` event naming the key's principal, as ``vintage tools`` records
from the command line; a result from a tool not registered for its reporter is held as a
candidate (``POST /v1/memories``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from vintage.graph.access import Forbidden
from vintage.graph.memory.tools import (
    ANY_VERSION,
    Tool,
    register_tool,
    registered_tools,
    unregister_tool,
)
from vintage.http.auth import Authenticated, Caller
from vintage.http.models import Out
from vintage.http.problems import documented

router = APIRouter(prefix="/v1", tags=["tools"])
ToolName = Field(min_length=1, max_length=128, examples=["crm-lookup"])


class ToolRegistration(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"name": "crm-lookup", "version": "v3", "reporters": ["support-bot"],
         "reason": "the CRM's account lookup"}]})

    name: str = ToolName
    version: str | None = Field(None, min_length=1, max_length=128,
                                description="Only this version (default: every version).")
    reporters: list[str] = Field(default_factory=list, max_length=100, description=(
        "The principals that may report its results (key ids, key names or actors; default: "
        "any key that may write a tool_result)."))
    reason: str = Field("registered as a trusted tool", min_length=1, max_length=2000)


class ToolWithdrawal(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"name": "crm-lookup", "version": "v3", "reason": "replaced by the new CRM"}]})

    name: str = ToolName
    version: str | None = Field(None, min_length=1, max_length=128)
    reason: str = Field("no longer trusted", min_length=1, max_length=2000)


TOOL_EXAMPLE: dict[str, Any] = {"name": "crm-lookup", "version": "v3", "reporters": ["support-bot"],
                "event": "e-5c2d"}


class ToolOut(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [TOOL_EXAMPLE]})

    name: str
    version: str | None  # None: every version
    reporters: list[str]  # empty: any principal that may write a tool_result
    event: str

    @classmethod
    def of(cls, t: Tool) -> ToolOut:
        return cls(name=t.name, version=None if t.version == ANY_VERSION else t.version,
                   reporters=list(t.reporters), event=t.event)


class ToolsOut(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [{"items": [TOOL_EXAMPLE]}]})

    items: list[ToolOut]


class ToolEvent(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [{"event": "e-5c2d"}]})

    event: str


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
