"""``vintage demo``: the main job (``vintage.demo``) on the store the options open, printed."""

from __future__ import annotations

import typer

from vintage.cli.options import Options
from vintage.demo import DEMO_TENANT, run_demo
from vintage.graph.store.backends import resolve_uri
from vintage.render import facts as render
from vintage.render.terminal import console, safe

out = console()


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)


def demo(ctx: typer.Context) -> None:
    """Load bundled real SEC filings and answer as-of questions around real revisions."""
    options: Options = ctx.obj
    with options.opened(create=True) as store:
        result = run_demo(store, tenant=options.tenant or DEMO_TENANT)
    render.demo(out, result)
    out.print(f"[dim]store: {safe(resolve_uri(options.store))}[/dim]")
