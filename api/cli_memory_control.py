"""``vintage correct | outcome | promote | demote | context``: a user's correction by memory
id, an experience's outcomes and promotion, ranking weights, and the context an agent is given
(recorded as an injection).

Handlers parse, call ``graph.memory.amend`` / ``graph.memory.remember`` / ``graph.memory.ranking`` /
``queries.context`` and format.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console

from api.cli_memory import REFUSED_EXIT, AsJson, Project, Thread, User, scope_of
from api.options import Options
from graph.memory.amend import correct, current, draft_of
from graph.memory.gate import Decision
from graph.memory.ranking import demote
from graph.memory.remember import (
    DEFAULT_VALIDATIONS,
    Remembered,
    memory_key,
    outcome,
    promote,
    validations,
)
from graph.model import SourceKind
from graph.temporal import parse_instant
from queries.context import DEFAULT_LIMIT, build_context

_out = Console()


def register(app: typer.Typer) -> None:
    app.command("correct")(correct_cmd)
    app.command("outcome")(outcome_cmd)
    app.command("promote")(promote_cmd)
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
    _decided(done, as_json)


def _decided(done: Remembered, as_json: bool, **extra: int) -> None:
    data = {"decision": done.decision.value, "reason": done.reason, "memory": done.memory_id,
            "revision": done.revision, "event": done.event_id, **extra}
    if as_json:
        _out.print_json(json.dumps(data))
    else:
        _out.print(f"[bold]{done.decision.value}[/bold]: {done.reason}"
                   + (f" ({done.memory_id}, revision {done.revision})" if done.memory_id else "")
                   + "".join(f"; {k} {v}" for k, v in extra.items()))
    if done.decision in (Decision.REFUSED, Decision.CONFLICT):
        raise typer.Exit(REFUSED_EXIT)


def outcome_cmd(
    ctx: typer.Context,
    subject: Annotated[str, typer.Argument(help="e.g. agent:billing")],
    key: Annotated[str, typer.Argument(help="The experience's key.")],
    task: Annotated[str, typer.Option(help="The task it was applied to.")],
    failed: Annotated[bool, typer.Option("--failed", help="It did not work this time.")]
        = False,
    at: Annotated[str | None, typer.Option(help="When (default now).")] = None,
    user: User = None, project: Project = None, thread: Thread = None,
    as_json: AsJson = False,
) -> None:
    """Record an experience's outcome on a task: a success on a distinct task is validation
    evidence (a support); a failure is recorded, never counted."""
    options: Options = ctx.obj
    scope = scope_of(options, user, project, thread)
    with options.opened() as store:
        m = draft_of(current(store, scope, subject, key), scope.tenant)
        when = parse_instant(at, "at") if at else store.now()
        done = outcome(store, m, task=task, succeeded=not failed, at=when,
                       actor="vintage outcome")
        seen = validations(store, scope.tenant, memory_key(m))
    _decided(done, as_json, validated_tasks=seen)


def promote_cmd(
    ctx: typer.Context,
    subject: Annotated[str, typer.Argument()],
    key: Annotated[str, typer.Argument()],
    by_user: Annotated[bool, typer.Option("--by-user", help="The user's explicit action "
                                                            "(needs --source-id).")] = False,
    source_id: Annotated[str | None, typer.Option(help="Id of the user's message.")] = None,
    needed: Annotated[int, typer.Option(help="Validated tasks an experience needs.")]
        = DEFAULT_VALIDATIONS,
    user: User = None, project: Project = None, thread: Thread = None,
    as_json: AsJson = False,
) -> None:
    """Candidate to active: an experience validated on enough distinct tasks, or any
    candidate on the user's explicit action. Task state is never promoted."""
    options: Options = ctx.obj
    if by_user and not source_id:
        raise typer.BadParameter("--by-user needs --source-id (the user's message)",
                                 param_hint="--source-id")
    scope = scope_of(options, user, project, thread)
    with options.opened() as store:
        fact = current(store, scope, subject, key)
        m = (draft_of(fact, scope.tenant, observed_at=store.now(),
                      source_kind=SourceKind.USER_MESSAGE, source_id=source_id) if by_user
             else draft_of(fact, scope.tenant))
        done = promote(store, m, actor="vintage promote", by_user=by_user, needed=needed)
    _decided(done, as_json)


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
