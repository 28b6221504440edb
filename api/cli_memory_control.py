"""``vintage correct | demote | context``: a user's correction by memory id, ranking weights,
and the context an agent is given (recorded as an injection).

Handlers parse, call ``graph.correct`` / ``graph.ranking`` / ``queries.context`` and format.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console

from api.cli_memory import REFUSED_EXIT, AsJson, Project, Thread, User, scope_of
from api.options import Options
from graph.correct import correct
from graph.memory import Decision
from graph.ranking import demote
from graph.temporal import parse_instant
from queries.context import DEFAULT_LIMIT, build_context

_out = Console()


def register(app: typer.Typer) -> None:
    app.command("correct")(correct_cmd)
    app.command("demote")(demote_cmd)
    app.command("context")(context_cmd)


def correct_cmd(
    ctx: typer.Context,
    memory: Annotated[str, typer.Argument(help="The memory id, as `vintage memories` shows.")],
    value: Annotated[str, typer.Argument(help="The corrected value (text; see --typed).")],
    source_id: Annotated[str, typer.Option(help="Id of the user's message.")],
    observed_at: Annotated[str | None, typer.Option(help="When the user said it (default "
                                                         "now).")] = None,
    consent: Annotated[bool, typer.Option(help="Explicit consent for sensitive content.")]
        = False,
    typed: Annotated[bool, typer.Option(help="Read VALUE as a JSON literal (7, true).")]
        = False,
    as_json: AsJson = False,
) -> None:
    """The user corrects one memory: the version they saw must still be current."""
    options: Options = ctx.obj
    tenant = options.scope().tenant
    with options.opened() as store:
        when = parse_instant(observed_at, "observed_at") if observed_at else store.now()
        done = correct(store, tenant, memory, json.loads(value) if typed else value,
                       source_id=source_id, observed_at=when, actor="vintage correct",
                       consent=consent)
    data = {"decision": done.decision.value, "reason": done.reason, "memory": done.memory_id,
            "revision": done.revision, "event": done.event_id}
    if as_json:
        _out.print_json(json.dumps(data))
    else:
        _out.print(f"[bold]{done.decision.value}[/bold]: {done.reason}"
                   + (f" ({done.memory_id}, revision {done.revision})" if done.memory_id else ""))
    if done.decision in (Decision.REFUSED, Decision.CONFLICT):
        raise typer.Exit(REFUSED_EXIT)


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
                      weight=weight, actor="vintage demote", reason=reason)
    _out.print(f"{subject} {key} ({done.memory_id}): weight {done.previous:g} -> "
               f"{done.weight:g} (event {done.event_id})")


def context_cmd(
    ctx: typer.Context,
    subject: Annotated[str, typer.Argument(help="e.g. user:42")],
    for_thread: Annotated[str, typer.Option("--for-thread",
                                            help="The thread the context is built for.")],
    limit: Annotated[int, typer.Option(help="Most memories to hand over.")] = DEFAULT_LIMIT,
    user: User = None, project: Project = None, thread: Thread = None,
    as_json: AsJson = False,
) -> None:
    """The memories an agent gets for SUBJECT now, best-ranked first; the handover is
    recorded (an injection event) so that an echo of them is never taken for evidence."""
    options: Options = ctx.obj
    with options.opened() as store:
        built = build_context(store, scope_of(options, user, project, thread), subject,
                              thread=for_thread, limit=limit, actor="vintage context")
    if as_json:
        _out.print_json(json.dumps({
            "injection": built.injection_id, "thread": built.thread, "left_out": built.left_out,
            "memories": [m.model_dump(mode="json") for m in built.memories]}))
        return
    for m in built.memories:
        flag = "" if m.status == "active" else f" [{m.status}]"
        _out.print(f"- {m.key}: {m.value}{flag} ({m.id}, weight {m.weight:g})")
    _out.print(f"[dim]injection {built.injection_id}; {built.left_out} left out[/dim]")
