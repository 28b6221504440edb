"""The ``vintage`` group, which imports a command's module only when that command is named.

A process runs one command, so it should pay for that command's imports only: ``vintage asof``
need not load the evaluation harness, the MCP SDK, networkx or the HTTP client (issue 39: a new
process per command, p95 under a second on a full store; ``bench/embedded_cli``). ``COMMANDS``
names each command's module in the order ``vintage --help`` lists them; a module ``register``s
its commands on a Typer app, or holds a Typer sub-app (``GROUPS``). The table is checked against
the modules themselves (tests/test_cli_commands.py), so a command cannot be added to a module
without being named here.

The group also keeps the words of the command it resolved (``ctx.meta[ARGS]``), so that
``--server`` can parse them with that very command before it would run locally
(``vintage.client.commands.run_remote``).
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

import typer
import typer.main
from typer.core import TyperGroup

ARGS = "vintage.command_args"

# command -> the module that registers it (``register(app)``), in the order of --help.
COMMANDS: dict[str, str] = {
    **dict.fromkeys(("remember", "memories", "audit", "forget", "review", "resolve", "rollback",
                     "invalidate", "summarise"), "vintage.cli.memory"),
    **dict.fromkeys(("correct", "outcome", "promote", "demote"), "vintage.cli.memory_control"),
    **dict.fromkeys(("search", "index"), "vintage.cli.search"),
    **dict.fromkeys(("context", "trace", "used"), "vintage.cli.context"),
    **dict.fromkeys(("asof", "facts", "history"), "vintage.cli.facts"),
    "stats": "vintage.cli.stats",
    "serve": "vintage.cli.serve",
    "mcp": "vintage.cli.mcp",
    **dict.fromkeys(("eval", "health"), "vintage.cli.eval"),
    "demo": "vintage.cli.demo",
    **dict.fromkeys(("explain", "impact", "retract"), "vintage.cli.lineage"),
}
# group -> (module, the Typer sub-app it holds)
GROUPS: dict[str, tuple[str, str]] = {
    "neo4j": ("vintage.cli.neo4j", "neo4j_app"),
    "ingest": ("vintage.cli.ingest", "ingest_app"),
    "import": ("vintage.cli.imports", "import_app"),
    "sources": ("vintage.cli.sources", "sources_app"),
    "tools": ("vintage.cli.tools", "tools_app"),
    "keys": ("vintage.cli.keys", "keys_app"),
    "store": ("vintage.cli.store", "store_app"),
    "config": ("vintage.cli.config", "config_app"),
}


@functools.cache
def registered(module: str) -> TyperGroup:
    """The commands ``module`` registers, as click commands (built once per process)."""
    holder = typer.Typer()
    importlib.import_module(module).register(holder)
    return typer.main.get_group(holder)


@functools.cache
def group(name: str) -> Any:
    module, attribute = GROUPS[name]
    holder = typer.Typer()
    holder.add_typer(getattr(importlib.import_module(module), attribute), name=name)
    return typer.main.get_group(holder).commands[name]


class VintageGroup(TyperGroup):
    """Lists every command; builds one when it is named."""

    def list_commands(self, ctx: Any) -> list[str]:  # typer's own (vendored click) Context
        return [*super().list_commands(ctx), *COMMANDS, *GROUPS]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        found = super().get_command(ctx, cmd_name)
        if found is not None:
            return found
        if cmd_name in COMMANDS:
            return registered(COMMANDS[cmd_name]).get_command(ctx, cmd_name)
        if cmd_name in GROUPS:
            return group(cmd_name)
        return None

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:  # typer's own Context
        found = super().resolve_command(ctx, args)
        ctx.meta[ARGS] = list(found[2])
        return found
