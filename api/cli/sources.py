"""``vintage sources trust | distrust | trusted``: the document sources a tenant trusts.

A memory from a ``document`` source is held as a candidate unless the tenant registered that
source (``vintage.graph.memory.trust``); registering and withdrawing are events naming ``--actor``.
Handlers parse, call ``vintage.graph.memory.trust`` and format.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from vintage.cli.options import AsJson, Format, Options, OutputFormat, as_csv_unless_json
from vintage.graph.core.kinds import SourceKind
from vintage.graph.memory.trust import distrust_source, trust_source, trusted_sources
from vintage.render import listings
from vintage.render.rows import print_table_csv
from vintage.render.terminal import console, print_json, safe

sources_app = typer.Typer(no_args_is_help=True,
                          help="Register the document sources this tenant trusts.")
_out = console()
Kind = Annotated[SourceKind, typer.Option("--kind", help="The source's kind (document).")]


@sources_app.command("trust")
def trust_cmd(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(help="The source id, as memories name it "
                                               "(--source-id).")],
    kind: Kind = SourceKind.DOCUMENT,
    reason: Annotated[str, typer.Option(help="Why (kept in the event).")]
        = "registered as a trusted source",
) -> None:
    """Trust SOURCE: its documents may make business facts active from now on."""
    options: Options = ctx.obj
    with options.opened(create=True) as store:
        event = trust_source(store, options.scope().tenant, source, kind=kind,
                             actor=options.actor, reason=reason)
    _out.print(f"trusted {kind.value} source {safe(source)} (event {safe(event)})")


@sources_app.command("distrust")
def distrust_cmd(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(help="The source id.")],
    kind: Kind = SourceKind.DOCUMENT,
    reason: Annotated[str, typer.Option(help="Why (kept in the event).")]
        = "no longer trusted",
) -> None:
    """Withdraw the trust: later writes from SOURCE are held as candidates again."""
    options: Options = ctx.obj
    with options.opened() as store:
        event = distrust_source(store, options.scope().tenant, source, kind=kind,
                                actor=options.actor, reason=reason)
    _out.print(f"no longer trusted: {kind.value} source {safe(source)} (event {safe(event)})")


@sources_app.command("trusted")
def trusted_cmd(ctx: typer.Context, kind: Kind = SourceKind.DOCUMENT,
                as_json: AsJson = False, fmt: Format = OutputFormat.TABLE) -> None:
    """The sources of a kind this tenant trusts now."""
    options: Options = ctx.obj
    to_csv = as_csv_unless_json(fmt, as_json)
    with options.opened() as store:
        found = sorted(trusted_sources(store, options.scope().tenant, kind))
    if to_csv:
        print_table_csv(*listings.trusted(kind.value, found))
    elif as_json:
        print_json(_out, json.dumps(found))
    else:
        _out.print("\n".join(map(safe, found)) if found else f"no trusted {kind.value} sources")
