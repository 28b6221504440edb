"""The lineage commands: ``explain`` (a fact's upstream tree), ``impact`` (what a source or fact
reaches downstream) and ``retract`` (a source withdrawn, or its retraction undone)."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from vintage.cli.options import (
    AllScopes,
    AsJson,
    Format,
    Options,
    OutputFormat,
    as_csv_unless_json,
)
from vintage.cli.scoping import Project, Thread, User, scope_of
from vintage.graph.core.temporal import parse_instant
from vintage.graph.memory.scoping import require_fact_scope, require_source_scope
from vintage.queries.lineage.explain import explain
from vintage.queries.lineage.export import graphml, prov_json
from vintage.queries.lineage.impact import impact
from vintage.queries.lineage.retraction import retract
from vintage.render import facts as render
from vintage.render import listings
from vintage.render.explain import explanation
from vintage.render.rows import print_table_csv
from vintage.render.terminal import console, print_json, visible

out = console()


def register(app: typer.Typer) -> None:
    app.command("explain")(explain_cmd)
    app.command("impact")(impact_cmd)
    app.command("retract")(retract_cmd)


def explain_cmd(
    ctx: typer.Context,
    fact_id: str,
    system_at: Annotated[str | None, typer.Option(help="System instant (default: now).")]
        = None,
    as_json: AsJson = False,
    prov: Annotated[bool, typer.Option("--prov", help="W3C PROV-JSON.")] = False,
    as_graphml: Annotated[bool, typer.Option("--graphml", help="GraphML (yEd, Gephi).")]
        = False,
    fmt: Format = OutputFormat.TABLE,
    user: User = None, project: Project = None, thread: Thread = None,
    all_scopes: AllScopes = False,
) -> None:
    """The full upstream tree of a fact: recipes, inputs, periods, sources, time stamps
    (``--format csv``: a row per fact version of the tree). A memory is explained in its
    scope (``--user``, ``--project``, ``--thread``) or with ``--all-scopes`` (audited)."""
    options: Options = ctx.obj
    to_csv = explain_csv(fmt, as_json, prov, as_graphml)
    with options.opened() as store:
        require_fact_scope(store, scope_of(options, user, project, thread), fact_id, "explain",
                           all_scopes=all_scopes, actor=options.actor)
        result = explain(store, options.scope(), fact_id,
                         parse_instant(system_at, "system_at") if system_at else None)
    if to_csv:
        print_table_csv(*listings.versions(result))
    elif prov:
        print_json(out, json.dumps(prov_json(result)))
    elif as_graphml:
        # XML 1.0 cannot hold control characters anyway: shown, never sent to the terminal.
        sys.stdout.write(visible(graphml(result), lines=True) + "\n")
    elif as_json:
        print_json(out, result.model_dump_json())
    else:
        explanation(out, result)


def explain_csv(fmt: OutputFormat, as_json: bool, prov: bool, as_graphml: bool) -> bool:
    """Whether ``explain`` writes CSV; CSV with --prov or --graphml is refused, as with --json."""
    to_csv = as_csv_unless_json(fmt, as_json)
    if to_csv and (prov or as_graphml):
        raise typer.BadParameter("give --prov, --graphml or --format csv, not two",
                                 param_hint="--format")
    return to_csv


def impact_cmd(
    ctx: typer.Context,
    source: Annotated[str | None, typer.Option("--source", help="A source id / accession.")]
        = None,
    fact: Annotated[str | None, typer.Option("--fact", help="A fact id.")] = None,
    as_json: AsJson = False,
    fmt: Format = OutputFormat.TABLE,
    user: User = None, project: Project = None, thread: Thread = None,
    all_scopes: AllScopes = False,
) -> None:
    """Every derived fact downstream of a source or fact, with its path; changes nothing. A
    memory's, or a source's that said memories, in their scope, or with ``--all-scopes``
    (audited), as ``explain``."""
    options: Options = ctx.obj
    with options.opened() as store:
        asked = scope_of(options, user, project, thread)
        if fact is not None:
            require_fact_scope(store, asked, fact, "impact", all_scopes=all_scopes,
                               actor=options.actor)
        if source is not None:
            require_source_scope(store, asked, source, "impact", all_scopes=all_scopes,
                                 actor=options.actor)
        result = impact(store, options.scope(), source_id=source, fact_id=fact)
    render.impact_out(out, result, as_json, as_csv_unless_json(fmt, as_json))


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
