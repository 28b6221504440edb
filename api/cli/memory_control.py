"""``vintage correct | outcome | promote | demote``: a user's correction by memory id, an
experience's outcomes and promotion, and ranking weights (the context an agent is given is
``vintage.cli.context``).

Handlers parse, call ``vintage.graph.memory.requests`` / ``vintage.graph.memory.ranking`` and format
(``vintage.render.memory``).
"""

from __future__ import annotations

from typing import Annotated

import typer

from vintage.cli.memory import decided, instant_or_none
from vintage.cli.options import AsJson, Options, typed_value
from vintage.cli.scoping import Project, Thread, User, scope_of
from vintage.graph.core.temporal import parse_instant
from vintage.graph.memory.promotion import DEFAULT_SUCCESS_RATE, DEFAULT_VALIDATIONS
from vintage.graph.memory.ranking import demote
from vintage.graph.memory.requests import correct_by_id, promote_named, record_outcome
from vintage.render.terminal import console, safe

_out = console()


def register(app: typer.Typer) -> None:
    app.command("correct")(correct_cmd)
    app.command("outcome")(outcome_cmd)
    app.command("promote")(promote_cmd)
    app.command("demote")(demote_cmd)


def correct_cmd(
    ctx: typer.Context,
    memory: Annotated[str, typer.Argument(help="The memory id, as `vintage memories` shows.")],
    value: Annotated[str, typer.Argument(help="The corrected value (text; see --typed).")],
    source_id: Annotated[str, typer.Option(help="Id of the user's message.")],
    observed_at: Annotated[str | None, typer.Option(help="When the user said it (default "
                                                         "now).")] = None,
    valid_from: Annotated[str | None, typer.Option(
        help="Event time: from when the corrected value holds (default: the version's).")]
        = None,
    valid_to: Annotated[str | None, typer.Option(
        help="Event time: until when it holds, exclusive (default: the version's).")] = None,
    consent: Annotated[bool, typer.Option(help="Explicit consent for sensitive content.")]
        = False,
    typed: Annotated[bool, typer.Option(help="Read VALUE as a JSON literal (7, true).")]
        = False,
    as_json: AsJson = False,
) -> None:
    """The user corrects one memory: the version they saw must still be current."""
    options: Options = ctx.obj
    tenant = options.scope().tenant
    corrected = typed_value(value, typed)
    when = parse_instant(observed_at, "observed_at") if observed_at else None
    with options.opened() as store:
        done = correct_by_id(store, tenant, memory, corrected, source_id=source_id,
                             observed_at=when, actor=options.actor, consent=consent,
                             valid_from=instant_or_none(valid_from, "valid_from"),
                             valid_to=instant_or_none(valid_to, "valid_to"))
    decided(done, as_json)


def outcome_cmd(
    ctx: typer.Context,
    subject: Annotated[str, typer.Argument(help="e.g. agent:billing")],
    key: Annotated[str, typer.Argument(help="The experience's key.")],
    task: Annotated[str, typer.Option(help="The task it was applied to.")],
    failed: Annotated[bool, typer.Option("--failed", help="It did not work this time.")]
        = False,
    at: Annotated[str | None, typer.Option(help="When (default now).")] = None,
    reporter: Annotated[str | None, typer.Option(
        help="Who reports the outcome (default: the actor).")] = None,
    user: User = None, project: Project = None, thread: Thread = None,
    as_json: AsJson = False,
) -> None:
    """Record an experience's outcome on a task, and who reported it: a success on a
    distinct task counts for promotion (a support), a failure counts against it."""
    options: Options = ctx.obj
    scope = scope_of(options, user, project, thread)
    when = parse_instant(at, "at") if at else None
    with options.opened() as store:
        done, seen = record_outcome(store, scope, subject, key, task=task, succeeded=not failed,
                                    at=when, actor=options.actor, reporter=reporter)
    decided(done, as_json, validated_tasks=seen.succeeded, failed_tasks=seen.failed)


def promote_cmd(
    ctx: typer.Context,
    subject: Annotated[str, typer.Argument()],
    key: Annotated[str, typer.Argument()],
    by_user: Annotated[bool, typer.Option("--by-user", help="The user's explicit action "
                                                            "(needs --source-id).")] = False,
    source_id: Annotated[str | None, typer.Option(help="Id of the user's message.")] = None,
    needed: Annotated[int, typer.Option(
        help="Distinct tasks an experience must have succeeded on.", min=1)]
        = DEFAULT_VALIDATIONS,
    min_success_rate: Annotated[float, typer.Option(
        help="Least share of successes among reported outcomes.", min=0.0, max=1.0)]
        = DEFAULT_SUCCESS_RATE,
    user: User = None, project: Project = None, thread: Thread = None,
    as_json: AsJson = False,
) -> None:
    """Candidate to active: an experience that succeeded on enough distinct tasks with a high
    enough success rate (failures count), or any candidate on the user's explicit action.
    Task state is never promoted."""
    options: Options = ctx.obj
    if by_user and not source_id:
        raise typer.BadParameter("--by-user needs --source-id (the user's message)",
                                 param_hint="--source-id")
    scope = scope_of(options, user, project, thread)
    with options.opened() as store:
        done = promote_named(store, scope, subject, key, actor=options.actor,
                             by_user=by_user, source_id=source_id, needed=needed,
                             min_success_rate=min_success_rate)
    decided(done, as_json)


def demote_cmd(
    ctx: typer.Context,
    subject: Annotated[str, typer.Argument()],
    key: Annotated[str, typer.Argument()],
    reason: Annotated[str, typer.Option(help="Why (kept in the event).")],
    weight: Annotated[float, typer.Option(help="Ranking weight in [0, 1]; 1 restores.")] = 0.5,
    user: User = None, project: Project = None, thread: Thread = None,
) -> None:
    """Lower a memory's ranking weight (what a size-limited context keeps first); its
    visibility and every answer stay exactly as they were."""
    options: Options = ctx.obj
    with options.opened() as store:
        done = demote(store, scope_of(options, user, project, thread), subject, key,
                      weight=weight, actor=options.actor, reason=reason)
    _out.print(f"{safe(subject)} {safe(key)} ({safe(done.memory_id)}): weight "
               f"{done.previous:g} -> {done.weight:g} (event {safe(done.event_id)})")
