"""``vintage serve``: the HTTP API (``vintage.http``) under uvicorn, on the store of ``--store``.

The service opens the store once, at startup, and closes it on shutdown (Ctrl-C, SIGTERM).
Requests authenticate with API keys (``vintage keys create``): each key names its tenant, so
``--tenant`` plays no part here. One process serves one store: an embedded store is held by
one process at a time; a Neo4j store can sit behind several such processes.
"""

from __future__ import annotations

from typing import Annotated

import typer

from vintage.cli.listening import ServeLogLevel, check_listen
from vintage.cli.options import Options
from vintage.graph.store.backends import checked_neo4j_uri, is_neo4j, open_store, resolve_uri
from vintage.render.terminal import console, safe

_err = console(stderr=True)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve_cmd)


def serve_cmd(
    ctx: typer.Context,
    host: Annotated[str, typer.Option(help="Address to listen on (127.0.0.1: this machine "
                                           "only; 0.0.0.0: every interface).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.", min=1, max=65535)] = 8000,
    log_level: Annotated[ServeLogLevel, typer.Option(help="uvicorn's log level.")]
        = ServeLogLevel.INFO,
) -> None:
    """Serve the HTTP API (OpenAPI at /openapi.json) until interrupted."""
    # Imported here: the command line without `serve` never loads the web stack.
    import uvicorn

    from vintage.http.app import create_app
    from vintage.http.limits import MAX_HEAD, BoundedH11
    from vintage.http.service import STORE_RETRY_SECONDS

    options: Options = ctx.obj
    uri = options.store
    target = resolve_uri(uri)
    if is_neo4j(target):
        checked_neo4j_uri(target)  # before the URI is printed: it may hold a password
    check_listen(host, port)
    _err.print(f"serving {safe(target)} on http://{safe(host)}:{port} "
               "(docs at /docs, the explorer at /ui, Ctrl-C stops)", highlight=False)
    uvicorn.run(create_app(lambda: open_store(uri, retry_seconds=STORE_RETRY_SECONDS)),
                host=host, port=port, log_level=log_level.value, http=BoundedH11,
                h11_max_incomplete_event_size=MAX_HEAD)
