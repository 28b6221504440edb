"""MCP over stdio and streamable HTTP with number literals read as written
(``vintage.graph.core.literals``).

The SDK's transports decode each JSON-RPC line with pydantic-core before any tool sees its
arguments: ``1e-400`` becomes ``0.0`` and the literal is gone, so no parameter type can refuse
it (docs/service.md). Here each stdio line passes through ``StrictLines``, and each HTTP POST
body through ``StrictBodies``, first: a message that holds a number a 64-bit float cannot hold
never reaches the SDK; a request gets a JSON-RPC ``-32602`` error naming the bound (the message
the command line and HTTP give; over HTTP with status 400), a notification over stdio is
dropped. A stdio line that is no JSON at all is answered with JSON-RPC's parse error (-32700,
id null), which the SDK left unanswered. Everything else goes on unchanged, so the SDK still
decides the rest.

Stdin is handed to the SDK as a stream, which skips the SDK's claim of file descriptor 0 (its
diversion to the null device while serving): Vintage's tools never read stdin, and stdout,
the wire, is still claimed by the SDK.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from contextlib import suppress
from io import TextIOWrapper
from typing import Any, cast

import anyio
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE
from mcp.shared.message import SessionMessage
from mcp.types import INVALID_PARAMS, PARSE_ERROR, ErrorData, JSONRPCError

from vintage.graph.core import literals


def refusal(line: str) -> JSONRPCError | None:
    """The JSON-RPC error answering ``line`` when it holds an out-of-range number literal (with
    the request's id; None for a notification, which is answered nothing over stdio); None:
    the line goes to the SDK as it is (a malformed one too: the SDK words that error)."""
    try:
        literals.loads(line)
        return None
    except literals.Refused as exc:
        message = str(exc)
    except ValueError:
        return None
    # The plain parser: only the id is read from it (an integer too long to be one reads None;
    # a line nested too deeply for any parser is answered without its id).
    try:
        found: Any = json.loads(line, parse_int=lambda t: int(t) if len(t) <= 20 else None)
    except RecursionError:
        found = None
    ident = found.get("id") if isinstance(found, dict) else None
    return JSONRPCError(jsonrpc="2.0", id=ident if isinstance(ident, str | int) else None,
                        error=ErrorData(code=INVALID_PARAMS, message=message))


def unparsed(line: str) -> JSONRPCError | None:
    """The JSON-RPC parse error answering a line that is not JSON (None: it is, or is blank)."""
    if not line.strip():
        return None
    try:
        json.loads(line)
        return None
    except ValueError:
        return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(
            code=PARSE_ERROR, message="Parse error: the message is not JSON"))


class StrictLines:
    """The lines of ``lines`` that the SDK may decode; the others answered (``refusal``)."""

    def __init__(self, lines: AsyncIterable[str]) -> None:
        self.lines = lines
        self.answers: MemoryObjectSendStream[SessionMessage] | None = None
        self.ready = anyio.Event()

    def answer_with(self, write: MemoryObjectSendStream[SessionMessage]) -> None:
        self.answers = write
        self.ready.set()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._passed()

    async def _passed(self) -> AsyncIterator[str]:
        async for line in self.lines:
            refused = refusal(line) or unparsed(line)
            if refused is None:
                yield line
            elif refused.id is not None or refused.error.code == PARSE_ERROR:
                # A notification is dropped (it expects no answer); a line that is no JSON is
                # answered with id null, as JSON-RPC asks (the SDK answered it nothing, and a
                # client waiting on its request hung).
                await self.ready.wait()  # set once the transport is up, before any line
                assert self.answers is not None
                await self.answers.send(SessionMessage(refused))


class _Unowned(TextIOWrapper):
    """A text layer that never closes the process's stdin buffer when collected."""

    def close(self) -> None:
        with suppress(ValueError):
            self.detach()


async def run_stdio(server: MCPServer) -> None:
    """``server.run("stdio")``, with ``StrictLines`` between stdin and the SDK."""
    stdin = StrictLines(anyio.wrap_file(_Unowned(sys.stdin.buffer, encoding="utf-8",
                                                 errors="replace")))
    async with stdio_server(stdin=cast(Any, stdin)) as (read, write):
        stdin.answer_with(write)
        low = server._lowlevel_server  # what server.run("stdio") runs (MCPServer.run_stdio_async)
        await low.run(read, write, low.create_initialization_options())


# -- streamable HTTP ----------------------------------------------------------------------------

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


class StrictBodies:
    """An ASGI wrapper of the SDK's streamable-HTTP app: a POST body holding an out-of-range
    number literal is answered 400 with the JSON-RPC error (``refusal``) before the SDK reads
    it; any other body is handed on as it came. Bodies past ``limit`` bytes are handed on
    unread: the SDK refuses them by its own limit."""

    def __init__(self, app: App, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[dict[str, Any]] = []
        size = 0
        while True:  # the whole body, as the SDK would read it
            message = await receive()
            chunks.append(message)
            size += len(message.get("body", b""))
            if message["type"] != "http.request" or not message.get("more_body") or \
                    size > self.limit:
                break
        body = b"".join(m.get("body", b"") for m in chunks)
        refused = refusal(body.decode("utf-8", "replace")) if size <= self.limit else None
        if refused is not None:
            payload = refused.model_dump_json(by_alias=True, exclude_unset=True).encode()
            await send({"type": "http.response.start", "status": 400,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": payload})
            return
        replay = iter(chunks)

        async def replayed() -> dict[str, Any]:
            return next(replay, None) or await receive()

        await self.app(scope, replayed, send)


async def run_http(server: MCPServer, *, host: str, port: int, path: str) -> None:
    """``server.run("streamable-http", ...)``, with ``StrictBodies`` in front of the SDK."""
    import uvicorn

    app = StrictBodies(cast(App, server.streamable_http_app(streamable_http_path=path,
                                                            host=host)),
                       DEFAULT_MAX_REQUEST_BODY_SIZE)
    config = uvicorn.Config(cast(Any, app), host=host, port=port,
                            log_level=server.settings.log_level.lower())
    await uvicorn.Server(config).serve()
