"""`vintage neo4j start|stop|status`: the development Neo4j server of a source checkout
(docker/: the launcher and the plugin it loads); from an installed wheel each says, in one
line, that it needs a checkout.

The launcher (and with it the Neo4j driver) is imported by each command, not by this module:
``vintage`` on an embedded store never loads the driver.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from vintage.render.terminal import console, safe

if TYPE_CHECKING:
    from vintage.graph.neo4j.launcher import ServerInfo

neo4j_app = typer.Typer(
    name="neo4j",
    help="Run the development Neo4j 5.26 server with Vintage's plugin, from a source checkout "
    "(Java + Maven, no Docker needed).",
    no_args_is_help=True,
)

_out = console()
_err = console(stderr=True)


def _describe(info: ServerInfo) -> str:
    return f"[bold]{safe(info.uri)}[/bold] (pid {info.pid}, home {safe(info.home)})"


@neo4j_app.command()
def start(
    port: int | None = typer.Option(None, "--port", help="Bolt port; a free one if omitted."),
) -> None:
    """Start the server (builds it on first use); no-op if it already runs."""
    from vintage.graph.neo4j import launcher as neo4j_launcher

    try:
        with _err.status("Starting Neo4j (the first run compiles the launcher)..."):
            info = neo4j_launcher.start(port=port)
    except neo4j_launcher.LauncherError as exc:
        _err.print(f"[red]Neo4j failed to start:[/red] {safe(exc, lines=True)}", highlight=False)
        raise typer.Exit(1) from exc
    if port is not None and info.port != port:
        # start() is idempotent: an already running server wins over the requested port.
        _err.print(f"[yellow]already running on port {info.port}, not {port}[/yellow]")
    if info.note:
        _err.print(f"[yellow]{safe(info.note)}[/yellow]", highlight=False)
    _out.print(f"Neo4j running at {_describe(info)}")


@neo4j_app.command()
def stop() -> None:
    """Stop the server if it runs."""
    from vintage.graph.neo4j import launcher as neo4j_launcher

    try:
        stopped = neo4j_launcher.stop()
    except neo4j_launcher.LauncherError as exc:
        _err.print(f"[red]Neo4j failed to stop:[/red] {safe(exc, lines=True)}", highlight=False)
        raise typer.Exit(1) from exc
    _out.print("Neo4j stopped" if stopped else "Neo4j was not running")


@neo4j_app.command()
def status() -> None:
    """Print the running server's URI; exit status 1 when none runs."""
    from vintage.graph.neo4j import launcher as neo4j_launcher

    info = neo4j_launcher.status()
    if info is None:
        _out.print("Neo4j is not running")
        raise typer.Exit(1)
    _out.print(f"Neo4j running at {_describe(info)}")
