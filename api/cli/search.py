"""``vintage search | index``: find facts and memories by what they say, inside the legal set.

Handlers parse, call ``vintage.queries.search.run`` / ``vintage.graph.retrieval.indexer`` and format
(``vintage.render.search``). The embedder is the one the store records for the tenant
(``vintage config embedder``; MiniLM by default: ``vintage.graph.retrieval.choice``).
"""

from __future__ import annotations

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
)
from vintage.cli.progress import counting
from vintage.cli.scoping import Project, Thread, User, scope_of
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.kinds import FactKind, required_authority
from vintage.graph.core.temporal import parse_instant
from vintage.graph.memory.draft import FACT_KIND, MemoryKind
from vintage.graph.retrieval import indexer
from vintage.graph.retrieval.choice import deferred, embedder_for
from vintage.queries.search.fusion import Mode
from vintage.queries.search.request import SearchRequest, check
from vintage.queries.search.run import search
from vintage.render import search as render_search
from vintage.render.terminal import console

_out = console()


def register(app: typer.Typer) -> None:
    app.command("search")(search_cmd)
    app.command("index")(index_cmd)


def search_cmd(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="Words, an exact code (E4031), a key or a "
                                              "concept (us-gaap:Revenues).")],
    subject: Annotated[list[str] | None, typer.Option(
        "--subject", help="Only these subjects: an id, CIK or ticker (repeatable).")] = None,
    kind: Annotated[list[str] | None, typer.Option(
        "--kind", help="Only these kinds: observation, derived, preference, fact, experience, "
                       "task_state, inference (repeatable).")] = None,
    user: User = None, project: Project = None, thread: Thread = None,
    all_scopes: AllScopes = False,
    actor: Annotated[str | None, typer.Option(
        "--actor", help="Who reads (with --all-scopes; default: the global --actor).")] = None,
    cutoff: Annotated[str | None, typer.Option(help="Knowledge cutoff (default: now).")] = None,
    valid_at: Annotated[str | None, typer.Option(
        help="Valid instant (default: the cutoff for a scoped search, any for --all-scopes).")]
        = None,
    system_at: Annotated[str | None, typer.Option(help="System instant (default: now).")]
        = None,
    limit: Annotated[int, typer.Option(help="How many answers (a conflict set is one).")] = 10,
    mode: Annotated[str, typer.Option(help="exact, keyword, semantic or hybrid.")] = "hybrid",
    form: Annotated[str | None, typer.Option(
        help="Two-stage: only facts a filing of this form supports (10-Q, 10-K).")] = None,
    period: Annotated[str | None, typer.Option(
        help="Two-stage: only facts of this calendar year or quarter (2018, 2018Q1).")] = None,
    candidates: Annotated[bool, typer.Option(help="Include candidates.")] = False,
    min_authority: MinAuthority = None, risk: RiskLevel = None,
    as_json: AsJson = False,
    fmt: Format = OutputFormat.TABLE,
) -> None:
    """Find facts and memories by what they say: only what the scope and the as-of instants
    make visible is ranked, never anything else."""
    options: Options = ctx.obj
    request = SearchRequest(
        query=query, scope=scope_of(options, user, project, thread), mode=_mode(mode),
        subjects=tuple(subject) if subject else None,
        kinds=tuple(_kind(k) for k in kind) if kind else None,
        cutoff=parse_instant(cutoff, "cutoff") if cutoff else None,
        valid_at=parse_instant(valid_at, "valid_at") if valid_at else None,
        system_at=parse_instant(system_at, "system_at") if system_at else None,
        limit=limit, candidates=candidates, all_scopes=all_scopes,
        actor=actor or options.actor, form=form, period=period,
        min_authority=required_authority(min_authority, risk))
    check(request)  # the request's own faults first, before the store is even opened
    with options.opened() as store, counting("indexing facts first (a store's first search "
                                             "embeds every fact)") as told:
        result = search(store, deferred(store, request.scope.tenant), request,
                        progress=told)
    render_search.search(_out, result, as_json, as_csv_unless_json(fmt, as_json))


def index_cmd(
    ctx: typer.Context,
    rebuild: Annotated[bool, typer.Option(
        "--rebuild", help="Drop every entry of the tenant first and index every fact again "
                          "(after an upgrade changed how facts are described).")] = False,
) -> None:
    """Embed and index every fact of the tenant that has no search entry yet (a search does
    this first anyway; this does it ahead of time)."""
    options: Options = ctx.obj
    tenant = options.scope().tenant
    dropped = None
    with options.opened() as store, counting("facts indexed") as told:
        embedder = embedder_for(store, tenant)
        if rebuild:
            dropped, count = indexer.rebuild(store, tenant, embedder, progress=told)
        else:
            count = indexer.refresh(store, tenant, embedder, progress=told)
    render_search.indexed(_out, count, embedder.name, dropped)


def _mode(text: str) -> Mode:
    try:
        return Mode(text.strip().lower())
    except ValueError:
        raise InvalidArgument(f"mode {text[:40]!r}: use one of "
                              f"{', '.join(m.value for m in Mode)}") from None


def _kind(text: str) -> FactKind:
    name = text.strip().lower()
    memory = {k.value: FACT_KIND[k] for k in MemoryKind}  # "fact" is an observation
    if name in memory:
        return memory[name]
    try:
        return FactKind(name)
    except ValueError:
        kinds = sorted({*FactKind, *MemoryKind})
        raise InvalidArgument(f"kind {text[:40]!r}: use one of {', '.join(kinds)}") from None
