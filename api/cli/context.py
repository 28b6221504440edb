"""``vintage context | trace | used``: the context pack an agent is handed for a query, cut to a
token budget and recorded as an injection; the injection's trace; the items the agent used.

Handlers parse, call ``vintage.queries.search.pack`` / ``vintage.queries.search.trace`` and format
(``vintage.render.context``). The pack prints exactly as it was counted: its text already escapes
whatever could break a line.
"""

from __future__ import annotations

from typing import Annotated

import typer

from vintage.cli.options import (
    AllScopes,
    AsJson,
    MinAuthority,
    Options,
    OutputFormat,
    RiskLevel,
    as_csv_unless_json,
)
from vintage.cli.options import Format as TableFormat
from vintage.cli.scoping import Project, Thread, User, scope_of
from vintage.graph.core.kinds import required_authority
from vintage.graph.core.temporal import parse_instant
from vintage.graph.memory.scoping import require_read_scope
from vintage.graph.retrieval.choice import deferred
from vintage.queries.search.fusion import Mode
from vintage.queries.search.items import Format
from vintage.queries.search.pack import build_pack
from vintage.queries.search.request import SearchRequest, check
from vintage.queries.search.trace import judge, mark_used, read_injection
from vintage.render import context as render_context
from vintage.render.terminal import console

_out = console()


def register(app: typer.Typer) -> None:
    app.command("context")(context_cmd)
    app.command("trace")(trace_cmd)
    app.command("used")(used_cmd)


def context_cmd(
    ctx: typer.Context,
    query: Annotated[str, typer.Option(help="What the agent needs: words, a code or a key.")],
    budget: Annotated[int, typer.Option(help="Most tokens the pack may hold (counted with the "
                                             "tokenizer the pack names).")],
    subject: Annotated[list[str] | None, typer.Option(
        "--subject", help="Only these subjects (repeatable).")] = None,
    cutoff: Annotated[str | None, typer.Option(help="Knowledge cutoff (default: now).")]
        = None,
    valid_at: Annotated[str | None, typer.Option(
        help="Valid instant: what held then, as known at the cutoff (default: the cutoff).")]
        = None,
    for_thread: Annotated[str | None, typer.Option(
        "--for-thread", help="The thread the context is built for (default: --thread).")]
        = None,
    mode: Annotated[Mode, typer.Option(help="How to rank inside the legal set.")]
        = Mode.HYBRID,
    format: Annotated[Format, typer.Option("--format", help="markdown or json.")]
        = Format.MARKDOWN,
    tokenizer: Annotated[str | None, typer.Option(
        "--tokenizer", help="Count the budget in this tokenizer's tokens: minilm (the default), "
                            "cl100k_base, o200k_base, or an OpenAI model name (gpt-4o).")]
        = None,
    actor: Annotated[str | None, typer.Option(
        "--actor", help="Who builds the context (default: the global --actor).")] = None,
    user: User = None, project: Project = None, thread: Thread = None,
    all_scopes: AllScopes = False, min_authority: MinAuthority = None, risk: RiskLevel = None,
) -> None:
    """The context pack for QUERY from a scope (--user, --project or --thread; or
    --all-scopes, audited): pinned constraints, then the evidence best-ranked first, at most
    --budget tokens. The handover is recorded (an injection with its trace: vintage trace)."""
    options: Options = ctx.obj
    who = actor or options.actor
    request = SearchRequest(
        query=query, scope=scope_of(options, user, project, thread), mode=mode,
        subjects=tuple(subject) if subject else None,
        cutoff=parse_instant(cutoff, "cutoff") if cutoff else None, all_scopes=all_scopes,
        valid_at=parse_instant(valid_at, "valid_at") if valid_at else None,
        actor=who, min_authority=required_authority(min_authority, risk))
    # A context names its scope as every memory read does (docs/memory.md): exit 2 without one.
    require_read_scope(request.scope, "a context", all_scopes=all_scopes)
    check(request)  # the request's own faults first, before the store is even opened
    with options.opened() as store:
        pack = build_pack(store, deferred(store, request.scope.tenant), request,
                          budget=budget,
                          for_thread=for_thread or thread or "", actor=who, format=format,
                          tokenizer=tokenizer)
    typer.echo(pack.text)
    if pack.refusal is not None:  # beside the pack, which says it too
        typer.echo(f"refused: {pack.refusal}", err=True)
    # What the pack cost, beside it (stdout is exactly what the agent is handed): the total,
    # the header's share and each item's line
    # (docs/retrieval.md, "Context packs and the injection trace").
    typer.echo(f"tokens: {pack.tokens} of {pack.budget}: header "
               f"{pack.header_tokens}, items " + (", ".join(
                   f"{i} {n}" for i, n in pack.item_tokens.items()) or "none"), err=True)


def trace_cmd(
    ctx: typer.Context,
    injection: Annotated[str, typer.Argument(help="The injection id the context names.")],
    item: Annotated[list[str] | None, typer.Option(
        "--item", help="Say what became of this fact version (repeatable).")] = None,
    as_json: AsJson = False,
    fmt: TableFormat = OutputFormat.TABLE,
) -> None:
    """What a context considered, filtered, kept, cut and where each item went; with --item,
    whether a version was not saved, filtered, not found, cut, seen but unused, or used."""
    options: Options = ctx.obj
    to_csv = as_csv_unless_json(fmt, as_json)
    with options.opened() as store:
        found = read_injection(store, options.scope().tenant, injection)
        judged = judge(store, found, item or [])
    render_context.trace(_out, found, judged, as_json, to_csv)


def used_cmd(
    ctx: typer.Context,
    injection: Annotated[str, typer.Argument(help="The injection id the context names.")],
    items: Annotated[list[str], typer.Argument(help="Ids of the items the agent used.")],
    as_json: AsJson = False,
) -> None:
    """Record which items of a context the agent actually used (ids only)."""
    options: Options = ctx.obj
    with options.opened() as store:
        event = mark_used(store, options.scope().tenant, injection, items,
                          actor=options.actor)
    render_context.used(_out, injection, list(dict.fromkeys(items)), event, as_json)
