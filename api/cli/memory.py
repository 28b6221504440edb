"""``vintage remember | memories | audit | forget | summarise | review | resolve | rollback |
invalidate``: agent memory from the command line (``correct | demote | context`` live in
``vintage.cli.memory_control``).

Handlers parse, call ``vintage.graph.memory`` / ``queries`` functions and format
(``vintage.render.memory``). A refused or conflicting write is a decision, not an error: it is
printed (and audited) and the exit code is 3, so that scripts can tell it from a stored memory (0).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated

import typer

from vintage.cli.options import (
    AllScopes,
    AsJson,
    Format,
    MinAuthority,
    Options,
    OutputFormat,
    RiskLevel,
    as_csv_unless_json,
    typed_value,
)
from vintage.cli.scoping import Project, Thread, User, scope_of
from vintage.graph.core.kinds import SourceKind, required_authority
from vintage.graph.core.temporal import parse_instant
from vintage.graph.memory.conflicts import review
from vintage.graph.memory.forget import forget
from vintage.graph.memory.gate import Decision, MemoryIn, MemoryKind
from vintage.graph.memory.held import held_for_review
from vintage.graph.memory.remember import Remembered, invalidate_memory
from vintage.graph.memory.requests import remember_checked, resolve_named
from vintage.graph.memory.rollback import rollback
from vintage.queries.memory.recall import audit, recall
from vintage.queries.memory.summaries import summarise
from vintage.render import memory as render_memory
from vintage.render.terminal import console, print_json, safe

_out = console()
REFUSED_EXIT = 3
ValidFrom = Annotated[str | None, typer.Option(
    help="Event time: from when it holds in the world (default: when it was observed, for a "
         "statement about the present; a restated value keeps its own).")]
ValidTo = Annotated[str | None, typer.Option(
    help="Event time: until when it holds (exclusive; default: open).")]


def instant_or_none(text: str | None, field: str) -> datetime | None:
    return parse_instant(text, field) if text else None


def _maybe_han(value: object) -> bool:
    """Whether ``value`` may hold Han characters (a cheap pre-check; the notice checks)."""
    return isinstance(value, str) and any(c >= "\u3400" for c in value)


def decided(done: Remembered, as_json: bool, **extra: int) -> None:
    """Print a write's decision; a refusal or a conflict exits with ``REFUSED_EXIT``."""
    render_memory.decision(_out, done, as_json, **extra)
    if done.decision in (Decision.REFUSED, Decision.CONFLICT):
        raise typer.Exit(REFUSED_EXIT)


def register(app: typer.Typer) -> None:
    app.command("remember")(remember_cmd)
    app.command("memories")(memories_cmd)
    app.command("audit")(audit_cmd)
    app.command("forget")(forget_cmd)
    app.command("review")(review_cmd)
    app.command("resolve")(resolve_cmd)
    app.command("rollback")(rollback_cmd)
    app.command("invalidate")(invalidate_cmd)
    app.command("summarise")(summarise_cmd)


def remember_cmd(
    ctx: typer.Context,
    kind: Annotated[MemoryKind, typer.Argument(help="preference, fact, experience, task_state, "
                                                    "inference")],
    subject: Annotated[str, typer.Argument(help="e.g. user:42")],
    key: Annotated[str, typer.Argument(help="e.g. shipping.preference")],
    value: Annotated[str, typer.Argument(help="The value (text; see --typed).")],
    source_kind: Annotated[SourceKind | None, typer.Option(help="Where it came from.")] = None,
    source_id: Annotated[str | None, typer.Option(help="Id of the message, tool call, ...")]
        = None,
    source_version: Annotated[str | None, typer.Option(help="Document / tool version.")] = None,
    tool: Annotated[str | None, typer.Option(
        help="The tool a tool_result comes from (registered: vintage tools register).")]
        = None,
    tool_version: Annotated[str | None, typer.Option(help="The tool's version.")] = None,
    observed_at: Annotated[str | None, typer.Option(
        help="When it was observed: from 1900 to now plus VINTAGE_CLOCK_SKEW seconds (300).")]
        = None,
    owner: Annotated[str | None, typer.Option(help="Whose memory it is.")] = None,
    reason: Annotated[str | None, typer.Option(help="Why it is kept (retention reason).")]
        = None,
    user: User = None, project: Project = None, thread: Thread = None,
    ttl: Annotated[int | None, typer.Option(
        help="Seconds until it expires: 1 to 3155760000 (100 years).")] = None,
    valid_from: ValidFrom = None, valid_to: ValidTo = None,
    evidence: Annotated[list[str] | None, typer.Option(help="Memory ids (inferences).")] = None,
    consent: Annotated[bool, typer.Option(help="Explicit consent for sensitive content.")]
        = False,
    expected_revision: Annotated[int | None, typer.Option(
        help="Compare-and-set: the revision this update expects.")] = None,
    typed: Annotated[bool, typer.Option(help="Read VALUE as a JSON literal (7, true).")]
        = False,
    as_json: AsJson = False,
) -> None:
    """Write one memory through the gates; print the decision and why."""
    options: Options = ctx.obj
    scope = scope_of(options, user, project, thread)
    draft = MemoryIn(
        kind=kind, tenant=scope.tenant, subject=subject, key=key,
        value=typed_value(value, typed), source_kind=source_kind,
        source_id=source_id, source_version=source_version, tool=tool,
        tool_version=tool_version,
        observed_at=parse_instant(observed_at, "observed_at") if observed_at else None,
        owner=owner, retention_reason=reason, user=user, project=project, thread=thread,
        ttl_seconds=ttl, evidence=tuple(evidence or ()), consent=consent,
        valid_from=instant_or_none(valid_from, "valid_from"),
        valid_to=instant_or_none(valid_to, "valid_to"),
    )
    with options.opened(create=True) as store:
        done = remember_checked(store, draft, actor=options.actor, expected=expected_revision)
        notice = None
        if done.decision is not Decision.REFUSED and _maybe_han(draft.value):
            # Imported here: it loads the embedders' module, which a write needs not otherwise.
            from vintage.graph.retrieval.choice import english_only_notice

            notice = english_only_notice(store, scope.tenant, draft.value)
    if notice is not None:  # a hint beside the decision, on stderr: the write stands
        typer.echo(notice, err=True)
    decided(done, as_json)


def memories_cmd(
    ctx: typer.Context,
    subject: Annotated[str, typer.Argument(help="e.g. user:42")],
    key: Annotated[str | None, typer.Option(help="Only this key.")] = None,
    at: Annotated[str | None, typer.Option(help="As known and holding then (default now).")]
        = None,
    system_at: Annotated[str | None, typer.Option(
        help="As the engine held them then (default now): sees past a later invalidation.")]
        = None,
    valid_at: Annotated[str | None, typer.Option(
        help="Holding at this instant of event time (default: --at), as known at --at.")]
        = None,
    candidates: Annotated[bool, typer.Option(help="Include candidates.")] = False,
    hindsight: Annotated[bool, typer.Option(
        "--hindsight", help="Show a knowledge end learned after --at (off: it reads as open).")]
        = False,
    user: User = None, project: Project = None, thread: Thread = None,
    all_scopes: AllScopes = False, min_authority: MinAuthority = None, risk: RiskLevel = None,
    as_json: AsJson = False, fmt: Format = OutputFormat.TABLE,
) -> None:
    """A subject's memories in a scope (--user, --project or --thread; or --all-scopes,
    audited) with source, times, status and retention reason."""
    options: Options = ctx.obj
    to_csv = as_csv_unless_json(fmt, as_json)
    with options.opened() as store:
        found = recall(store, scope_of(options, user, project, thread), subject, key,
                       at=parse_instant(at, "at") if at else None,
                       system_at=parse_instant(system_at, "system_at") if system_at else None,
                       valid_at=instant_or_none(valid_at, "valid_at"), candidates=candidates,
                       all_scopes=all_scopes, actor=options.actor, hindsight=hindsight,
                       min_authority=required_authority(min_authority, risk))
    render_memory.memories(_out, subject, found, as_json, to_csv)


def audit_cmd(
    ctx: typer.Context,
    subject: Annotated[str | None, typer.Option(help="Only events about this subject.")] = None,
    key: Annotated[str | None, typer.Option(help="Only events about this key.")] = None,
    since: Annotated[str | None, typer.Option(help="From this instant.")] = None,
    until: Annotated[str | None, typer.Option(help="Before this instant.")] = None,
    as_json: AsJson = False, fmt: Format = OutputFormat.TABLE,
) -> None:
    """Who did what, when and why (gate decisions included); never the erased content."""
    options: Options = ctx.obj
    to_csv = as_csv_unless_json(fmt, as_json)
    with options.opened() as store:
        events = audit(store, options.scope().tenant, subject=subject, key=key,
                       since=parse_instant(since, "since") if since else None,
                       until=parse_instant(until, "until") if until else None)
    render_memory.audit(_out, events, as_json, to_csv)


def forget_cmd(
    ctx: typer.Context,
    reason: Annotated[str, typer.Option(help="Why (kept in the tombstone event).")],
    subject: Annotated[str | None, typer.Option(help="With --key: one memory.")] = None,
    key: Annotated[str | None, typer.Option(help="With --subject: one memory.")] = None,
    source: Annotated[str | None, typer.Option(help="What one source said.")] = None,
    everything: Annotated[bool, typer.Option(help="Everything of --user in the tenant.")]
        = False,
    user: User = None, project: Project = None, thread: Thread = None,
    as_json: AsJson = False,
) -> None:
    """Erase content: a memory (every version), a source's, or all of a user's; derived
    summaries go with it; a content-free tombstone event remains."""
    options: Options = ctx.obj
    if everything and not user:
        raise typer.BadParameter("--everything needs --user", param_hint="--everything")
    scope = scope_of(options, None if everything else user, project, thread)
    with options.opened() as store:
        gone = forget(store, scope, subject=subject, key=key, source_id=source,
                      user=user if everything else None, actor=options.actor, reason=reason)
    render_memory.forgotten(_out, {
        "by": gone.by, "facts": gone.facts, "derived": gone.derived, "kept": gone.kept,
        "released": gone.released, "event": gone.event_id}, as_json)


def summarise_cmd(
    ctx: typer.Context,
    subject: Annotated[str, typer.Argument(help="e.g. user:42")],
    key: Annotated[list[str] | None, typer.Option(help="Only these keys (repeatable).")]
        = None,
    user: User = None, project: Project = None, thread: Thread = None,
    as_json: AsJson = False,
) -> None:
    """A derived summary of a subject's active memories, with lineage to each of them."""
    options: Options = ctx.obj
    with options.opened() as store:
        done = summarise(store, scope_of(options, user, project, thread), subject, keys=key,
                         actor=options.actor)
    if as_json:
        print_json(_out, json.dumps({"fact": done.fact.id, "derivation": done.derivation_id,
                                     "value": done.fact.value}))
    else:
        _out.print(f"{safe(done.fact.id)}\n{safe(done.fact.value, lines=True)}")


def review_cmd(
    ctx: typer.Context,
    user: User = None, project: Project = None, thread: Thread = None,
    all_scopes: AllScopes = False, as_json: AsJson = False, fmt: Format = OutputFormat.TABLE,
) -> None:
    """The open conflict sets of a scope (or --all-scopes, audited): memories of equal
    authority that disagree; and the candidates held because they read as instructions to the
    model (named, never quoted)."""
    options: Options = ctx.obj
    to_csv = as_csv_unless_json(fmt, as_json)
    with options.opened() as store:
        scope = scope_of(options, user, project, thread)
        sets = review(store, scope, all_scopes=all_scopes, actor=options.actor)
        held = held_for_review(store, scope, all_scopes=all_scopes)
    render_memory.conflicts(_out, sets, as_json, held, to_csv)


def resolve_cmd(
    ctx: typer.Context,
    subject: Annotated[str, typer.Argument()],
    key: Annotated[str, typer.Argument()],
    keep: Annotated[str, typer.Argument(help="The value to keep.")],
    source_id: Annotated[str, typer.Option(help="Id of this decision (e.g. a ticket).")],
    owner: Annotated[str, typer.Option(help="Who decides.")],
    reason: Annotated[str, typer.Option(help="Why.")],
    observed_at: Annotated[str | None, typer.Option(help="When decided (default now).")]
        = None,
    user: User = None, project: Project = None, thread: Thread = None,
) -> None:
    """A person's decision on a conflict set: KEEP becomes active, the other sides retire."""
    options: Options = ctx.obj
    when = parse_instant(observed_at, "observed_at") if observed_at else None
    with options.opened() as store:
        resolve_named(store, scope_of(options, user, project, thread), subject, key, keep,
                      source_id=source_id, observed_at=when, owner=owner, reason=reason,
                      actor=options.actor)
    _out.print(f"resolved {safe(subject)} {safe(key)}: kept {safe(repr(keep))}")


def rollback_cmd(
    ctx: typer.Context,
    to: Annotated[str, typer.Option(help="The system time to restore the scope to.")],
    reason: Annotated[str, typer.Option(help="Why (kept in the event).")],
    user: User = None, project: Project = None, thread: Thread = None,
    as_json: AsJson = False,
) -> None:
    """Restore the scope's memories to what was held at --to, as new versions (nothing is
    deleted); roll back to the instant before a rollback to undo it."""
    options: Options = ctx.obj
    with options.opened() as store:
        done = rollback(store, scope_of(options, user, project, thread),
                        parse_instant(to, "to"), actor=options.actor, reason=reason)
    data = {"event": done.event_id, "restored": done.restored, "retired": done.retired}
    if as_json:
        print_json(_out, json.dumps(data))
    else:
        _out.print(f"restored {done.restored}, retired {done.retired} "
                   f"(event {safe(done.event_id)})")


def invalidate_cmd(
    ctx: typer.Context,
    subject: Annotated[str, typer.Argument()],
    key: Annotated[str, typer.Argument()],
    reason: Annotated[str, typer.Option(help="Why (kept in the event).")],
    user: User = None, project: Project = None, thread: Thread = None,
) -> None:
    """Stop holding one memory from now on (history kept; as-of reads before it unchanged)."""
    options: Options = ctx.obj
    with options.opened() as store:
        report = invalidate_memory(store, scope_of(options, user, project, thread), subject, key,
                                   actor=options.actor, reason=reason)
    _out.print(f"invalidated {safe(subject)} {safe(key)}; {len(report.cascade)} derived facts "
               "closed")
