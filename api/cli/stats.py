"""``vintage stats``: what a store holds for the tenant (``--tenant``): subjects, concepts,
facts by kind, sources, events, the span of knowledge, and an embedded store's size on disk;
with ``--all-tenants``, the same for every tenant of a local store (its owner's view: the
command line on the store itself, never over ``--server``). The handler parses, calls
``vintage.queries.lineage.stats`` and formats (``vintage.render.stats``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from vintage.cli.options import AsJson, Format, Options, OutputFormat, as_csv_unless_json
from vintage.graph.store.backends import is_neo4j, resolve_uri
from vintage.queries.lineage.stats import every_tenant, holdings, size_of
from vintage.render import stats as render
from vintage.render.terminal import console

_out = console()


def register(app: typer.Typer) -> None:
    app.command("stats")(stats_cmd)


def stats_cmd(
    ctx: typer.Context,
    all_tenants: Annotated[bool, typer.Option(
        "--all-tenants", help="Every tenant of the store, a row each (a local store: its "
                              "owner's view).")] = False,
    as_json: AsJson = False, fmt: Format = OutputFormat.TABLE,
) -> None:
    """What the store holds for the tenant: subjects, concepts, facts, sources, events, size."""
    options: Options = ctx.obj
    to_csv = as_csv_unless_json(fmt, as_json)
    uri = resolve_uri(options.store)
    directory = None if is_neo4j(uri) else Path(uri)
    with options.opened() as store:
        if all_tenants:
            found = every_tenant(store, directory)
        else:
            held = holdings(store, options.scope().tenant, directory)
    if all_tenants:
        size = size_of(directory) if directory is not None else None
        render.every_tenant(_out, found, uri, size, as_json, to_csv)
    else:
        render.holdings(_out, held, uri, as_json, to_csv)
