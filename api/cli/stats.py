"""``vintage stats``: what a store holds for the tenant (``--tenant``): subjects, concepts,
facts by kind, sources, events, the span of knowledge, and an embedded store's size on disk.
The handler parses, calls ``vintage.queries.lineage.stats`` and formats
(``vintage.render.facts.holdings``)."""

from __future__ import annotations

from pathlib import Path

import typer

from vintage.cli.options import AsJson, Options
from vintage.graph.store.backends import is_neo4j, resolve_uri
from vintage.queries.lineage.stats import holdings
from vintage.render import facts as render
from vintage.render.terminal import console

_out = console()


def register(app: typer.Typer) -> None:
    app.command("stats")(stats_cmd)


def stats_cmd(ctx: typer.Context, as_json: AsJson = False) -> None:
    """What the store holds for the tenant: subjects, concepts, facts, sources, events, size."""
    options: Options = ctx.obj
    uri = resolve_uri(options.store)
    with options.opened() as store:
        held = holdings(store, options.scope().tenant, None if is_neo4j(uri) else Path(uri))
    render.holdings(_out, held, uri, as_json)
