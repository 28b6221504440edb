"""``vintage ingest facts|companyfacts``: load files into facts, with a progress bar and a
summary (``--json`` for the same as data; ``--format csv``: the derived facts the files'
corrections reached, a row each, ``vintage.render.listings.cascade``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

from vintage.cli.options import AsJson, Format, Options, OutputFormat, as_csv_unless_json
from vintage.graph.core.errors import UserError
from vintage.graph.core.model import Scope
from vintage.graph.store.protocol import Store
from vintage.ingest.batches import Summary
from vintage.ingest.facts_table import ingest_table
from vintage.ingest.sec.companyfacts import ingest_companyfacts, read_acceptance_times
from vintage.render import facts as render
from vintage.render import listings
from vintage.render.rows import print_table_csv
from vintage.render.terminal import console, print_json, safe

ingest_app = typer.Typer(name="ingest", no_args_is_help=True, help="Load sources into facts.")
_out = console()
_err = console(stderr=True)

Recompute = Annotated[bool, typer.Option(
    "--recompute", help="Recompute derived facts that corrections cascade to.")]
DryRun = Annotated[bool, typer.Option(
    "--dry-run", help="Report what the files would change, cascade included; write nothing.")]
Ingest = Callable[[Store, Scope, Path, Callable[[int, int], None]], Summary]


@ingest_app.command("facts")
def ingest_facts(
    ctx: typer.Context,
    files: Annotated[list[Path], typer.Argument(exists=True, dir_okay=False)],
    recompute: Recompute = False,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    fmt: Format = OutputFormat.TABLE,
) -> None:
    """Observations from CSV or JSON-lines files (KPIs from earnings releases, ...)."""
    _ingest(ctx.obj, files, as_json, fmt, lambda store, scope, path, progress: ingest_table(
        store, scope, path, ctx.obj.actor, recompute=recompute, dry_run=dry_run,
        progress=progress))


@ingest_app.command("companyfacts")
def companyfacts(
    ctx: typer.Context,
    files: Annotated[list[Path], typer.Argument(
        exists=True, dir_okay=False, help="SEC companyfacts .json or .json.gz files.")],
    ticker: Annotated[str | None, typer.Option(
        help="Ticker of the company (default: from a CIK##########_TICKER.json name).")] = None,
    accepted: Annotated[Path | None, typer.Option(
        exists=True, dir_okay=False,
        help="CSV of accession,accepted_at: finer availability than the filed date.")] = None,
    recompute: Recompute = False,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    fmt: Format = OutputFormat.TABLE,
) -> None:
    """SEC EDGAR XBRL companyfacts: one fact per concept, unit and period, revisions classified."""
    if ticker is not None and len(files) > 1:
        raise typer.BadParameter("--ticker names one company: give one file", param_hint="--ticker")
    times = read_acceptance_times(accepted) if accepted else None
    _ingest(ctx.obj, files, as_json, fmt, lambda store, scope, path, progress: ingest_companyfacts(
        store, scope, path, actor=ctx.obj.actor, ticker=ticker, accepted=times,
        recompute=recompute, dry_run=dry_run, progress=progress))


def _ingest(options: Options, files: list[Path], as_json: bool, fmt: OutputFormat,
            load: Ingest) -> None:
    """Each file in turn, with a progress bar on stderr; then the summaries."""
    to_csv = as_csv_unless_json(fmt, as_json)  # refused before anything is read
    scope = options.scope()
    summaries: list[Summary] = []
    with options.opened(create=True) as store, Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
        console=_err, transient=True, disable=as_json or not _err.is_terminal,
    ) as bar:
        for path in files:
            task = bar.add_task(safe(path.name), total=None)

            def advance(done: int, total: int, task: TaskID = task) -> None:
                bar.update(task, completed=done, total=total)

            try:
                summaries.append(load(store, scope, path, advance))
            except UserError as exc:
                raise _after(exc, summaries) from None
    if to_csv:
        print_table_csv(*listings.cascade(summaries))
    elif as_json:
        print_json(_out, json.dumps([s.as_data() for s in summaries], default=str))
    else:
        for summary in summaries:
            render.ingest_summary(_out, summary)


class PartlyIngested(UserError):
    """A file refused after earlier files of the same command were ingested."""


def _after(exc: UserError, done: list[Summary]) -> UserError:
    """``exc``, saying what the files before the refused one wrote: each file is its own
    write, so "nothing from this file was written" said nothing of them."""
    if not done or any(s.dry_run for s in done):
        return exc
    written = ", ".join(f"{Path(s.file).name} ({s.created:,} fact{'' if s.created == 1 else 's'})"
                        for s in done)
    return PartlyIngested(f"{exc}; the files before it were ingested: {written}")
