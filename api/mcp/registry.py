"""The MCP tools that register the tenant's tools (admin keys only): ``register_tool``,
``unregister_tool`` and ``registered_tools``, the same decisions as ``POST /v1/tools`` and
``vintage tools`` (``vintage.graph.memory.tools``), audited with the key's principal as actor."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from vintage.graph.access import Forbidden, Principal
from vintage.graph.memory.tools import register_tool, registered_tools, unregister_tool
from vintage.graph.store.protocol import Store
from vintage.http.models_tools import ToolEvent, ToolOut, ToolsOut

ToolName = Annotated[str, Field(min_length=1, max_length=128, description="The tool's name, as "
                                                                          "tool results name it.")]
Version = Annotated[str | None, Field(min_length=1, max_length=128, description=(
    "Only this version (default: every version)."))]


class Registry:
    """Mixed into ``vintage.mcp.tools.Tools``: its store and its key's principal."""

    NAMES: tuple[str, ...] = ("register_tool", "unregister_tool", "registered_tools")
    store: Store

    def principal(self) -> Principal:
        raise NotImplementedError

    def _admin(self) -> Principal:
        p = self.principal()
        if not p.can_manage_keys:
            raise Forbidden("registering tools needs an admin key")
        return p

    def register_tool(
        self, name: ToolName, version: Version = None,
        reporters: Annotated[list[str] | None, Field(max_length=100, description=(
            "The principals that may report its results (key ids, key names or actors; "
            "default: any key that may write a tool_result)."))] = None,
        reason: Annotated[str, Field(min_length=1, max_length=2000)]
            = "registered as a trusted tool",
    ) -> ToolEvent:
        """Register a tool of the tenant: its results may make business facts active from
        now on (an admin key only; audited)."""
        p = self._admin()
        return ToolEvent(event=register_tool(self.store, p.tenant, name, version=version,
                                             reporters=tuple(reporters or ()), actor=p.actor,
                                             reason=reason))

    def unregister_tool(
        self, name: ToolName, version: Version = None,
        reason: Annotated[str, Field(min_length=1, max_length=2000)] = "no longer trusted",
    ) -> ToolEvent:
        """Withdraw a tool's registration: its later results are held as candidates again
        (an admin key only; audited)."""
        p = self._admin()
        return ToolEvent(event=unregister_tool(self.store, p.tenant, name, version=version,
                                               actor=p.actor, reason=reason))

    def registered_tools(self) -> ToolsOut:
        """The tools registered in the tenant now (an admin key only)."""
        p = self._admin()
        return ToolsOut(items=[ToolOut.of(t) for t in registered_tools(self.store, p.tenant)])
