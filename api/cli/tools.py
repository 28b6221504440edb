"""``vintage tools register | unregister | list``: the tools whose results carry authority.

A ``tool_result`` from a tool the tenant did not register (at that version, for that reporter)
is held as a candidate (``vintage.graph.memory.tools``); registering and withdrawing are audited
``trust`` events naming ``--actor``. Handlers parse, call ``vintage.graph.memory.tools`` and
format (``show_tools``, which ``vintage.client.tools`` prints with too).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated, Any

import typer

from vintage.cli.options import AsJson, Format, Options, OutputFormat, as_csv_unless_json
from vintage.graph.memory.tools import (
    ANY_VERSION,
    Tool,
    register_tool,
    registered_tools,
    unregister_tool,
)
from vintage.render import listings
from vintage.render.rows import print_table_csv
from vintage.render.terminal import console, print_json, safe

tools_app = typer.Typer(no_args_is_help=True,
                        help="Register the tools whose results this tenant trusts.")
_out = console()
Name = Annotated[str, typer.Argument(help="The tool's name, as tool results name it (--tool).")]
Version = Annotated[str | None, typer.Option(
    "--version", help="Only this version of the tool (default: every version).")]


@tools_app.command("register")
def register_cmd(
    ctx: typer.Context, name: Name, version: Version = None,
    reporter: Annotated[list[str] | None, typer.Option(
        "--reporter", help="A principal that may report its results (a key id, key name or "
                           "actor; repeat; default: anyone who may write a tool_result).")]
        = None,
    reason: Annotated[str, typer.Option(help="Why (kept in the event).")]
        = "registered as a trusted tool",
) -> None:
    """Register NAME: its results may make business facts active from now on."""
    options: Options = ctx.obj
    with options.opened(create=True) as store:
        event = register_tool(store, options.scope().tenant, name, version=version,
                              reporters=tuple(reporter or ()), actor=options.actor,
                              reason=reason)
    registered(name, version, event)


@tools_app.command("unregister")
def unregister_cmd(
    ctx: typer.Context, name: Name, version: Version = None,
    reason: Annotated[str, typer.Option(help="Why (kept in the event).")] = "no longer trusted",
) -> None:
    """Withdraw NAME's registration: its later results are held as candidates again."""
    options: Options = ctx.obj
    with options.opened() as store:
        event = unregister_tool(store, options.scope().tenant, name, version=version,
                                actor=options.actor, reason=reason)
    unregistered(name, version, event)


@tools_app.command("list")
def list_cmd(ctx: typer.Context, as_json: AsJson = False,
             fmt: Format = OutputFormat.TABLE) -> None:
    """The tools registered now."""
    options: Options = ctx.obj
    to_csv = as_csv_unless_json(fmt, as_json)
    with options.opened() as store:
        found = registered_tools(store, options.scope().tenant)
    show_tools(found, as_json, to_csv)


def _which(name: str, version: str | None) -> str:
    return f"tool {safe(name)}" + ("" if version is None else f" version {safe(version)}")


def registered(name: str, version: str | None, event: str) -> None:
    _out.print(f"registered {_which(name, version)} (event {safe(event)})")


def unregistered(name: str, version: str | None, event: str) -> None:
    _out.print(f"no longer registered: {_which(name, version)} (event {safe(event)})")


def show_tools(found: Sequence[Tool], as_json: bool, to_csv: bool = False) -> None:
    if to_csv:
        print_table_csv(*listings.tools(found))
        return
    rows: list[dict[str, Any]] = [
        {"name": t.name, "version": None if t.version == ANY_VERSION else t.version,
         "reporters": list(t.reporters), "event": t.event} for t in found]
    if as_json:
        print_json(_out, json.dumps(rows))
        return
    if not rows:
        _out.print("no registered tools")
        return
    for r in rows:
        _out.print(f"{safe(str(r['name']))}  version {safe(str(r['version'] or 'any'))}  "
                   f"reported by {safe(', '.join(r['reporters']) or 'any writer')}")
