"""The bodies and answers of the tools routes (``vintage.http.routes_tools``), apart from the
routes: the MCP server answers with the same models (``vintage.mcp.registry``) without loading
FastAPI (issue 39: ``vintage mcp``'s start)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from vintage.graph.memory.tools import ANY_VERSION, Tool
from vintage.http.models import Out

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
