"""``vintage import graphiti``: a Graphiti graph in the same Neo4j, brought over into
subjects, sources and facts (``vintage.ingest.graphiti``; docs/graphiti.md). A progress bar on
stderr at a terminal, quiet when piped or with ``--json``; then the summary."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from vintage.cli.options import AsJson, Options
from vintage.ingest.graphiti.run import ImportSummary, import_graphiti
from vintage.render.terminal import console, print_json, safe

import_app = typer.Typer(name="import", no_args_is_help=True,
                         help="Bring a graph from another system over into facts.")
_out = console()
_err = console(stderr=True)


@import_app.command("graphiti")
def graphiti(
    ctx: typer.Context,
    group_id: Annotated[list[str] | None, typer.Option(
        "--group-id", help="A Graphiti group to import (repeat for several; default: every "
                           "group the database holds). Each lands in scope project=<group>.")]
        = None,
    trust_group: Annotated[list[str] | None, typer.Option(
        "--trust-group", help="Trust this group's extractions: its facts enter active rather "
                              "than as candidates (instruction-like text stays a candidate). "
                              "Recorded on the import's events.")] = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Say what would be imported; write nothing.")] = False,
    as_json: AsJson = False,
) -> None:
    """Import a Graphiti 0.31 graph (Entity, RELATES_TO, Episodic) from the Neo4j of --store."""
    options: Options = ctx.obj
    tenant = options.scope().tenant
    with options.opened(create=True) as store, Progress(
        TextColumn("graphiti"), BarColumn(), MofNCompleteColumn(), console=_err,
        transient=True, disable=as_json or not _err.is_terminal,
    ) as bar:
        task = bar.add_task("graphiti", total=None)
        summary = import_graphiti(
            store, tenant, group_id or (), actor=options.actor, trusted=trust_group or (),
            dry_run=dry_run,
            progress=lambda done, total: bar.update(task, completed=done, total=total))
    if as_json:
        print_json(_out, json.dumps(summary.as_data(), default=str))
    else:
        _render(summary)


def _render(s: ImportSummary) -> None:
    verb = "would import (dry run, nothing written)" if s.dry_run else "imported"
    trust = f"; trusted: {safe(', '.join(s.trusted))}" if s.trusted else ""
    _out.print(
        f"graphiti groups {safe(', '.join(s.groups))} {verb} into tenant {safe(s.tenant)}: "
        f"{s.entities} entities, {s.episodes} episodes, {s.edges} edges -> "
        f"{s.facts_created} new fact versions, {s.support_repeats} repeats as support, "
        f"{s.unchanged} already held, "
        f"{s.superseded} superseded; {s.active} active, {s.candidates} candidates "
        f"({s.held} held by the instruction gate), {s.promoted} promoted{trust}")
    for origin, why in s.skipped:
        _out.print(f"  skipped {safe(origin)}: {safe(why)}")
    for what, n in sorted(s.unmapped.items()):
        _out.print(f"  not mapped: {n} {safe(what)}")
