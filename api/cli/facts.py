"""``vintage asof``, ``facts`` and ``history``: a metric as of one or more cutoffs, the facts
visible at a cutoff, every version of one assertion. Handlers parse the arguments, call
``vintage.queries`` on the store ``vintage.cli.options`` opens, and format the result
(``vintage.render.facts``, or ``--json``, or ``--format csv`` through ``vintage.render.rows``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from vintage.cli.options import AsJson, Format, Options, OutputFormat, as_csv_unless_json
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.temporal import as_of, parse_instant
from vintage.queries.lineage import asof as asof_queries
from vintage.queries.lineage.subjects import resolve_subjects
from vintage.queries.metrics.definitions import resolve_metric
from vintage.queries.metrics.metric_files import load_metrics
from vintage.queries.metrics.periods import parse_period
from vintage.queries.metrics.question import ask
from vintage.render import facts as render
from vintage.render.rows import print_csv
from vintage.render.terminal import console, print_json

out = console()


def register(app: typer.Typer) -> None:
    app.command("asof")(asof)
    app.command("facts")(facts_cmd)
    app.command("history")(history_cmd)


Hindsight = Annotated[bool, typer.Option(
    "--hindsight", help="Also show what became known after the cutoff (revisions, knowledge "
                        "ends), apart from the answer; off by default: no look-ahead.")]


def asof(
    ctx: typer.Context,
    metric: Annotated[str, typer.Argument(
        help="A built-in metric (revenue, operating_margin, ...), a metric of --metrics, or a "
             "concept such as us-gaap:Revenues.")],
    subject: Annotated[list[str], typer.Option("--subject", help="Repeatable.")],
    cutoff: Annotated[list[str], typer.Option(
        help="Knowledge cutoff: only what was public by then. Repeatable: a column each.")],
    period: Annotated[str, typer.Option(
        help="FY2024, FY2024Q4, LTM (latest twelve months) or START..END (half-open: END "
             "the day after the last).")] = "LTM",
    metrics: Annotated[Path | None, typer.Option(
        "--metrics", exists=True, dir_okay=False, help="YAML file of metric definitions.")]
        = None,
    hindsight: Hindsight = False,
    as_json: AsJson = False,
    fmt: Format = OutputFormat.TABLE,
) -> None:
    """A metric per company as it could have been computed at the cutoff, with its lineage."""
    options: Options = ctx.obj
    scope = options.scope()
    to_csv = as_csv_unless_json(fmt, as_json)
    chosen = resolve_metric(metric, load_metrics(metrics) if metrics else None)
    cutoffs = [parse_instant(c, "cutoff") for c in cutoff]
    with options.opened() as store:
        answers = [ask(store, scope, chosen, subject, c, parse_period(period),
                       hindsight=hindsight) for c in cutoffs]
    render.metric_answers(out, answers, as_json, to_csv)


def facts_cmd(
    ctx: typer.Context,
    predicate: Annotated[str, typer.Argument(help="e.g. us-gaap:Revenues")],
    subject: Annotated[list[str], typer.Option("--subject", help="Repeatable.")],
    cutoff: Annotated[str | None, typer.Option(help="Knowledge cutoff (default: now).")] = None,
    valid_at: Annotated[str | None, typer.Option(help="Valid instant (default: any).")] = None,
    system_at: Annotated[str | None, typer.Option(help="System instant (default: now).")]
        = None,
    hindsight: Hindsight = False,
    as_json: AsJson = False,
    fmt: Format = OutputFormat.TABLE,
) -> None:
    """Facts visible at a knowledge cutoff (filtered inside the store, before any limit), as
    known then: a knowledge end after the cutoff reads as open unless --hindsight."""
    options: Options = ctx.obj
    scope = options.scope()
    known_at = parse_instant(cutoff, "cutoff") if cutoff else None
    valid = as_of(parse_instant(valid_at, "valid_at")) if valid_at else None
    held_at = parse_instant(system_at, "system_at") if system_at else None
    with options.opened() as store:
        answers = asof_queries.facts_as_of(
            store, scope, subjects=resolve_subjects(store, scope.tenant, subject),
            predicates=[predicate], known_at=known_at, valid=valid, system_at=held_at,
            hindsight=hindsight)
    show(answers, as_json, fmt, f"{predicate} as of {cutoff or 'now'}")


def history_cmd(
    ctx: typer.Context,
    predicate: str,
    subject: Annotated[str, typer.Option("--subject")],
    period: Annotated[str, typer.Option(
        help="START..END, half-open (END the day after the last): the assertion's period.")],
    unit: Annotated[str | None, typer.Option(help="The unit (part of an assertion's identity).")]
        = None,
    as_json: AsJson = False,
    fmt: Format = OutputFormat.TABLE,
) -> None:
    """Every version of one assertion, on every axis."""
    options: Options = ctx.obj
    start, sep, end = period.partition("..")
    if not sep:
        raise typer.BadParameter("use START..END", param_hint="--period")
    valid_from = parse_instant(start, "period start")
    valid_to = parse_instant(end, "period end") if end else None
    with options.opened() as store:
        (named,) = resolve_subjects(store, options.scope().tenant, [subject])
        answers = asof_queries.history(store, options.scope(), named, predicate, valid_from,
                                       valid_to, unit)
    if not answers:
        raise no_history(subject, predicate, period, unit)
    show(answers, as_json, fmt, f"history of {subject} {predicate}")


def no_history(subject: str, predicate: str, period: str, unit: str | None) -> InvalidArgument:
    """Why a history is empty, instead of an empty table: the period and the unit name one
    assertion exactly, and the period is half-open (an inclusive end misses by a day)."""
    return InvalidArgument(
        f"no assertion of {predicate} for {subject} has the valid period {period} with "
        f"{'unit ' + unit if unit else 'no unit'}: --period is half-open, its END the day "
        "after the last (the quarter ending 2018-03-31 is 2018-01-01..2018-04-01), and it "
        f"and --unit name one assertion exactly; vintage facts {predicate} --subject "
        f"{subject} lists the periods and units held")


def show(answers: list[asof_queries.Answer], as_json: bool, fmt: OutputFormat,
         title: str) -> None:
    if as_csv_unless_json(fmt, as_json):
        print_csv(answers)
    elif as_json:
        print_json(out, json.dumps([render.answer_json(a) for a in answers]))
    else:
        out.print(render.answers_table(title, answers))


