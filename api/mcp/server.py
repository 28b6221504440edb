"""The MCP server: ``build_server(store, key)`` verifies the key against the store and exposes
the tools of ``vintage.mcp.tools`` on the official MCP SDK's ``MCPServer``; ``vintage mcp``
(``vintage.cli.mcp``) runs it over stdio or streamable HTTP.

A tool's failure is an MCP tool error (``is_error``) carrying one line: the refusal's message
prefixed by its kind (the titles of ``vintage.http.kinds``, so that both interfaces say the
same), never a traceback. What could name another tenant, a server address or a path is said by its
kind alone; an engine fault is logged with its traceback on the server's stderr and the client
is told only that it happened.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any, Literal

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import ValidationError

from vintage.graph.access import verify
from vintage.graph.core.errors import UserError
from vintage.graph.retrieval.embedder import Embedder
from vintage.graph.store.protocol import Store, StoreUnreachable
from vintage.http.kinds import detail_of, kind_of
from vintage.mcp.tools import Tools

_log = logging.getLogger("vintage.mcp")
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
INSTRUCTIONS = (
    "Vintage: bitemporal facts and agent memory. Every tool runs as the API key the server was "
    "started with: its tenant, its scope (a key bound to a user reads and writes only that "
    "user's memories) and its authority (an agent key never writes user_message).")


def build_server(store: Store, key: str | None, embedder: Embedder | None = None,
                 *, name: str = "vintage", log_level: LogLevel = "WARNING") -> MCPServer:
    """The server whose tools run as ``key``'s principal on ``store`` (``Unauthorized`` now if
    the key is missing, unknown or revoked). ``embedder`` ranks searches (default: the one
    the store records for the tenant, ``vintage config embedder``; it loads on the first
    search). ``log_level`` is the SDK's and, over HTTP, uvicorn's: warnings and errors only by
    default, since a client that starts the server shows its stderr to its user."""
    verify(store, key)
    assert key is not None
    tools = Tools(store, key, embedder)
    taken = {tool: frozenset(inspect.signature(getattr(tools, tool)).parameters)
             for tool in Tools.NAMES}
    server = MCPServer(name, instructions=INSTRUCTIONS,
                       middleware=[one_line_errors, known_arguments(taken)],
                       log_level=log_level)
    for tool in Tools.NAMES:
        server.add_tool(one_line(getattr(tools, tool)), name=tool)
    return server


def one_line(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with every failure raised as a ``ToolError`` of one line (module docstring)."""

    @functools.wraps(fn)
    def called(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (UserError, StoreUnreachable) as exc:
            raise ToolError(message(exc)) from None
        except ValidationError as exc:
            fields = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'input'}: {e['msg']}"
                               for e in exc.errors())
            raise ToolError(flat(f"The request does not match its schema: {fields}")) from None
        except Exception:
            _log.exception("tool %s failed", fn.__name__)
            raise ToolError("Internal error: the server's log has the details") from None

    return called


async def one_line_errors(ctx: ServerRequestContext[Any, Any],
                          call_next: CallNext) -> HandlerResult:
    """Every tool error in one line, those the SDK words itself included (arguments that do
    not match the tool's schema: pydantic's message spans lines and links its docs)."""
    result = await call_next(ctx)
    if isinstance(result, CallToolResult):
        result = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(result, dict) and result.get("isError"):
        content = [c | {"text": condensed(c["text"])} if c.get("type") == "text" else c
                   for c in result.get("content", [])]
        return result | {"content": content}
    return result


def known_arguments(taken: dict[str, frozenset[str]]) -> Callable[..., Any]:
    """A middleware that refuses a tool call naming an argument its tool does not take: the
    SDK drops it unsaid, so a misspelt ``valid_form`` wrote a memory without its event time
    (HTTP answers 422 for the same body). Its names are said, cut short; never its values."""

    async def refuse_unknown(ctx: ServerRequestContext[Any, Any],
                             call_next: CallNext) -> HandlerResult:
        params = ctx.params or {}
        arguments = params.get("arguments")
        known = taken.get(str(params.get("name")))
        if ctx.method == "tools/call" and known is not None and isinstance(arguments, dict):
            unknown = sorted(str(a)[:64] for a in arguments if a not in known)
            if unknown:
                said = ", ".join(unknown[:5]) + (", ..." if len(unknown) > 5 else "")
                return CallToolResult(content=[TextContent(type="text", text=flat(
                    f"Invalid arguments: {params['name']} takes no argument named {said}"))],
                    is_error=True).model_dump(mode="json", by_alias=True, exclude_none=True)
        return await call_next(ctx)

    return refuse_unknown


def condensed(text: str) -> str:
    """pydantic's ``N validation errors for ...`` as ``field: message; ...`` on one line."""
    head, _, rest = text.partition("\n")
    if "validation error" not in head:
        return flat(text)
    said, field = [], None
    for line in rest.splitlines():
        if line.strip().startswith("For further information"):
            continue
        if not line.startswith(" "):
            field = line.strip()
        else:
            said.append(f"{field}: {line.strip().split(' [type=')[0]}")
    prefix = head.split(":")[0] if ":" in head else "Invalid arguments"
    return flat(f"{prefix}: the arguments do not match the tool's schema: {'; '.join(said)}")


def message(exc: BaseException) -> str:
    detail = detail_of(exc)
    title = kind_of(exc).title
    return flat(f"{title}: {detail}" if detail else title)


def flat(text: str) -> str:
    return " ".join(text.split())
