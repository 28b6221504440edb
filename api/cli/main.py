"""The ``vintage`` command line. Its handlers (here and in the ``api.cli_*`` groups) parse the
arguments, call functions of ``queries``, ``ingest`` and ``vintage.graph.memory`` (or the demo,
``vintage.cli.demo``) on the store ``vintage.cli.options`` opens, and format the result
(``vintage.render.facts``,
``vintage.render.memory``); they make no store call and no decision of their own. Global options go
before the command: ``vintage --store URI --tenant T asof ...``.

Exit codes: 0 done; 2 a malformed command line, or a request or input refused
(``vintage.graph.core.errors.UserError``, or pydantic's ``ValidationError`` of the input), said in
one line on stderr; 3 a memory write the gate refused or found in conflict (``vintage.cli.memory``);
1 from
``vintage neo4j`` when the server fails to start or stop, or none runs; 69 the store's server did
not answer (``vintage.graph.store.protocol.StoreUnreachable``: try again later); 70 an internal
error, one line on stderr, with its traceback only when ``VINTAGE_DEBUG=1``.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Annotated

import typer
from pydantic import ValidationError

from vintage.cli import context as cli_context
from vintage.cli import eval as cli_eval
from vintage.cli import facts as cli_facts
from vintage.cli import mcp as cli_mcp
from vintage.cli import memory as cli_memory
from vintage.cli import memory_control as cli_memory_control
from vintage.cli import search as cli_search
from vintage.cli import serve as cli_serve
from vintage.cli import stats as cli_stats
from vintage.cli.demo import DEMO_TENANT, run_demo
from vintage.cli.ingest import ingest_app
from vintage.cli.keys import keys_app
from vintage.cli.neo4j import neo4j_app
from vintage.cli.options import (
    AsJson,
    Format,
    Options,
    OutputFormat,
    as_csv_unless_json,
    default_actor,
)
from vintage.cli.sources import sources_app
from vintage.cli.store import store_app
from vintage.cli.tools import tools_app
from vintage.client.commands import KeepsArgs, run_remote
from vintage.graph.core.errors import UserError
from vintage.graph.core.temporal import parse_instant
from vintage.graph.store.backends import resolve_uri
from vintage.graph.store.protocol import StoreUnreachable
from vintage.queries.lineage.explain import explain
from vintage.queries.lineage.export import graphml, prov_json
from vintage.queries.lineage.impact import impact
from vintage.queries.lineage.retraction import retract
from vintage.render import facts as render
from vintage.render.explain import explanation
from vintage.render.terminal import console, print_json, safe, visible

app = typer.Typer(name="vintage", no_args_is_help=True, add_completion=False,
                  pretty_exceptions_enable=False, cls=KeepsArgs,
                  help="Bitemporal facts on Neo4j: what was known, when, and why.")
app.add_typer(neo4j_app, name="neo4j")
cli_memory.register(app)
cli_memory_control.register(app)
cli_search.register(app)
cli_context.register(app)
cli_facts.register(app)
cli_stats.register(app)
app.add_typer(ingest_app, name="ingest")
app.add_typer(sources_app, name="sources")
app.add_typer(tools_app, name="tools")
app.add_typer(keys_app, name="keys")
app.add_typer(store_app, name="store")
cli_serve.register(app)
cli_mcp.register(app)
cli_eval.register(app)
out = console()
err = console(stderr=True)

USER_ERROR_EXIT = 2
UNREACHABLE_EXIT = 69  # EX_UNAVAILABLE (sysexits.h): the store's server did not answer
INTERNAL_ERROR_EXIT = 70  # EX_SOFTWARE (sysexits.h)
DEBUG_ENV = "VINTAGE_DEBUG"


@app.callback()
def main_options(
    ctx: typer.Context,
    store: Annotated[str | None, typer.Option(
        "--store", envvar="VINTAGE_STORE",
        help="bolt:// or neo4j:// URI, or a directory for the embedded store "
             "(default: ./.vintage/store).")] = None,
    tenant: Annotated[str | None, typer.Option(
        "--tenant", envvar="VINTAGE_TENANT", help="Tenant every read and write is scoped to.")]
        = None,
    actor: Annotated[str | None, typer.Option(
        "--actor", envvar="VINTAGE_ACTOR",
        help="Who runs the command, named by every event it causes (default: user:<your OS "
             "user name>).")] = None,
    server: Annotated[str | None, typer.Option(
        "--server", envvar="VINTAGE_SERVER",
        help="A vintage serve URL: run the command against its HTTP API, as the key's "
             "principal, instead of opening a store (vintage.client.commands).")] = None,
    key: Annotated[str | None, typer.Option(
        "--key", envvar="VINTAGE_KEY", help="The API key for --server.")] = None,
) -> None:
    if actor is not None and not actor.strip():
        raise typer.BadParameter("name who runs the command", param_hint="--actor")
    ctx.obj = Options(store, tenant, actor or default_actor())
    if server:
        run_remote(ctx, server, key)


@app.command()
def demo(ctx: typer.Context) -> None:
    """Load bundled real SEC filings and answer as-of questions around real revisions."""
    options: Options = ctx.obj
    with options.opened() as store:
        result = run_demo(store, tenant=options.tenant or DEMO_TENANT)
    render.demo(out, result)
    out.print(f"[dim]store: {safe(resolve_uri(options.store))}[/dim]")


@app.command("explain")
def explain_cmd(
    ctx: typer.Context,
    fact_id: str,
    system_at: Annotated[str | None, typer.Option(help="System instant (default: now).")]
        = None,
    as_json: AsJson = False,
    prov: Annotated[bool, typer.Option("--prov", help="W3C PROV-JSON.")] = False,
    as_graphml: Annotated[bool, typer.Option("--graphml", help="GraphML (yEd, Gephi).")]
        = False,
) -> None:
    """The full upstream tree of a fact: recipes, inputs, periods, sources, time stamps."""
    options: Options = ctx.obj
    with options.opened() as store:
        result = explain(store, options.scope(), fact_id,
                         parse_instant(system_at, "system_at") if system_at else None)
    if prov:
        print_json(out, json.dumps(prov_json(result)))
    elif as_graphml:
        # XML 1.0 cannot hold control characters anyway: shown, never sent to the terminal.
        sys.stdout.write(visible(graphml(result), lines=True) + "\n")
    elif as_json:
        print_json(out, result.model_dump_json())
    else:
        explanation(out, result)


@app.command("impact")
def impact_cmd(
    ctx: typer.Context,
    source: Annotated[str | None, typer.Option("--source", help="A source id / accession.")]
        = None,
    fact: Annotated[str | None, typer.Option("--fact", help="A fact id.")] = None,
    as_json: AsJson = False,
    fmt: Format = OutputFormat.TABLE,
) -> None:
    """Every derived fact downstream of a source or fact, with its path; changes nothing."""
    options: Options = ctx.obj
    with options.opened() as store:
        result = impact(store, options.scope(), source_id=source, fact_id=fact)
    render.impact_out(out, result, as_json, as_csv_unless_json(fmt, as_json))


@app.command("retract")
def retract_cmd(
    ctx: typer.Context,
    source: Annotated[str, typer.Option("--source", help="The source id / accession.")],
    reason: Annotated[str, typer.Option("--reason", help="Why (kept in the audit event).")],
    undo: Annotated[bool, typer.Option("--undo", help="Undo its latest retraction.")] = False,
    as_json: AsJson = False,
) -> None:
    """Retract a source (its facts lose its support; the cascade follows), or undo that."""
    options: Options = ctx.obj
    with options.opened() as store:
        report = retract(store, options.scope(), source, reason=reason, actor=options.actor,
                         undo=undo)
    render.retraction(out, report, undo, as_json)


def main() -> None:
    """Run the command line; a refused request and an internal error each end in one line on
    stderr and their own exit code (module docstring), never a traceback unless asked for."""
    try:
        app()
    except StoreUnreachable as exc:
        err.print(f"[red]error:[/red] {safe(exc)}", highlight=False)
        sys.exit(UNREACHABLE_EXIT)
    except (UserError, ValidationError) as exc:
        err.print(f"[red]error:[/red] {safe(refusal(exc))}", highlight=False)
        sys.exit(USER_ERROR_EXIT)
    except Exception as exc:
        if os.environ.get(DEBUG_ENV) == "1":
            raise
        sys.stderr.write(internal_error(exc) + "\n")
        sys.exit(INTERNAL_ERROR_EXIT)


def refusal(exc: Exception) -> str:
    """A refusal's message on one line: pydantic's several lines become each field and what
    is wrong with it (never the input value, which may be content)."""
    if not isinstance(exc, ValidationError):
        return str(exc)
    return "; ".join(
        f"{'.'.join(map(str, e['loc'])) or exc.title}: {e['msg'].removeprefix('Value error, ')}"
        for e in exc.errors())


def internal_error(exc: BaseException) -> str:
    """The one line an engine fault is reported with (its message folded onto that line, its
    control characters shown, not obeyed)."""
    message = visible(" ".join(str(exc).split()))
    return (f"internal error: {type(exc).__name__}: {message} "
            f"(set {DEBUG_ENV}=1 for the traceback)")
