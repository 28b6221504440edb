"""``vintage mcp``: the MCP server (``vintage.mcp``) on the store of ``--store``, as the principal
of one API key (``--key`` or ``VINTAGE_KEY``), over stdio (a client such as Claude Desktop starts
it as a subprocess) or streamable HTTP (``/mcp`` on ``--host``:``--port``).

The key is verified against the store before anything is served (an invalid or revoked one
exits 2, said in one line); every tool call then runs as its principal: its tenant, its scope,
its authority. Over stdio, stdout carries the protocol only: everything else goes to stderr.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from vintage.cli.listening import LogLevel, check_listen
from vintage.cli.options import Options
from vintage.graph.core.errors import InvalidArgument

HTTP_PATH = "/mcp"


class Transport(StrEnum):
    STDIO = "stdio"
    HTTP = "http"


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp_cmd)


def mcp_cmd(
    ctx: typer.Context,
    transport: Annotated[Transport, typer.Option(help="stdio, or http (streamable HTTP).")]
        = Transport.STDIO,
    host: Annotated[str, typer.Option(help="Address to listen on, with --transport http.")]
        = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port, with --transport http.", min=1,
                                      max=65535)] = 8000,
    key: Annotated[str | None, typer.Option(
        "--key", envvar="VINTAGE_KEY", show_default=False,
        help="The API key every tool call runs as (vintage keys create).")] = None,
    log_level: Annotated[LogLevel, typer.Option(
        help="What the server logs on stderr (the SDK's and uvicorn's lines).")]
        = LogLevel.WARNING,
) -> None:
    """Serve Vintage's tools (search, context, remember, correct, forget, asof, explain,
    impact) over MCP, as the principal of one API key, until the client disconnects or
    Ctrl-C."""
    # Imported here: the command line without `mcp` never loads the SDK.
    from vintage.mcp.server import build_server

    options: Options = ctx.obj
    if not key:  # the library's "missing" names an HTTP header: here the key is an option
        raise InvalidArgument("vintage mcp runs as one API key: give --key or set VINTAGE_KEY "
                              "(vintage keys create makes one)")
    if transport is Transport.HTTP:
        check_listen(host, port)
    with options.opened() as store:  # its key lives in the store: a new one holds none
        server = build_server(store, key, log_level=log_level.value.upper())  # type: ignore[arg-type]
        # Vintage's own runs of the SDK's transports: 1e-400 is refused, not read as 0
        # (vintage.mcp.strict).
        import anyio

        from vintage.mcp.strict import run_http, run_stdio

        if transport is Transport.STDIO:
            anyio.run(run_stdio, server)
        else:
            anyio.run(lambda: run_http(server, host=host, port=port, path=HTTP_PATH))
