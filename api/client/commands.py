"""The command line as a client of the HTTP API: ``vintage --server URL [--key K] COMMAND``.

With ``--server`` (or ``VINTAGE_SERVER``) a command opens no store: its arguments, parsed by the
very command they were written for (same options, same checks), become one request to the API,
made with the key of ``--key`` or ``VINTAGE_KEY``, and the JSON answer is read back into the
views the local renderers print, so that the output is the local one (``--json`` prints the
same JSON as locally). The tenant, scope and actor are the key's: ``--tenant`` and ``--actor``
do not travel, and a ``--tenant`` naming another tenant than the key's is refused. ``search``,
``context``, ``remember``, ``memories`` and ``forget`` run here; the fact reads (``asof``,
``facts``, ``history``, ``explain``, ``impact``) in ``vintage.client.facts``; ``audit``,
``trace``, ``used`` and the other memory verbs in ``vintage.client.memory``; ``keys`` in
``vintage.client.keys``; ``tools`` in ``vintage.client.tools``; ``config embedder`` in
``vintage.client.settings``; ``ingest`` (an upload followed as a job) and ``retract`` in
``vintage.client.ingest``. Any other command (sources, serve, ...) is refused in one line naming
it (exit 2), and so is an option the API cannot honour.

A problem+json answer is one line on stderr: 401, 403, 404, 400, 409 and 422 are refusals (exit
2), 503 or no answer at all is ``StoreUnreachable`` (exit 69), a gate's refusal or conflict is a
decision printed as locally (exit 3). Only the standard library speaks HTTP: no dependency.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import typer
from typer.core import TyperGroup

from vintage.cli.commands import ARGS
from vintage.cli.options import as_csv_unless_json, typed_value
from vintage.client.facts import FACT_COMMANDS
from vintage.client.http import Remote, instant, scoped
from vintage.client.ingest import INGEST_COMMANDS
from vintage.client.keys import KEY_COMMANDS
from vintage.client.memory import MEMORY_COMMANDS, decide
from vintage.client.settings import SETTINGS_COMMANDS
from vintage.client.tools import TOOL_COMMANDS
from vintage.graph.access.keystring import parse
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.kinds import authority_named, required_authority
from vintage.graph.core.temporal import parse_instant
from vintage.queries.lineage.staleness import Stale
from vintage.queries.lineage.views import SourceView
from vintage.queries.memory.recall import MemoryView
from vintage.queries.search.abstain import Verdict
from vintage.queries.search.fusion import Mode
from vintage.queries.search.request import Found, SearchResult
from vintage.render import memory as render_memory
from vintage.render import search as render_search
from vintage.render.terminal import console

_out = console()


def search(remote: Remote, p: dict[str, Any]) -> None:
    body = scoped(p) | {
        "query": p["query"], "mode": p["mode"], "subjects": p["subject"],
        "kinds": p["kind"], "cutoff": instant(p["cutoff"], "cutoff"),
        "valid_at": instant(p["valid_at"], "valid_at"),
        "system_at": instant(p["system_at"], "system_at"), "limit": p["limit"],
        "candidates": p["candidates"], "form": p["form"], "period": p["period"],
        "all_scopes": p["all_scopes"]} | _required(p)
    answer = remote.call("POST", "/v1/search", body=body)
    found = tuple(found_of(r, rank) for rank, r in enumerate(answer["results"], 1))
    render_search.search(_out, SearchResult(
        query=answer["query"], mode=Mode(answer["mode"]), results=found, considered=found,
        legal=answer["legal"], matched=answer["matched"], excluded=answer["excluded"],
        closed=tuple(c for c in map(Stale.of_document, answer.get("closed", [])) if c),
        required=required_authority(p["min_authority"], p["risk"]),
        verdict=Verdict.of(answer["relevance"]) if answer.get("relevance") else None),
        p["as_json"], as_csv_unless_json(p["fmt"], p["as_json"]))


def found_of(r: dict[str, Any], rank: int) -> Found:
    """A result read back; its kind and conflict partners are not in the API's answer."""
    return Found(id=r["id"], subject=r["subject"], predicate=r["predicate"], value=r["value"],
                 unit=r["unit"], status=r["status"], kind="", score=r["score"],
                 signals=r["signals"],
                 sources=tuple(SourceView.model_validate(s) for s in r["sources"]),
                 valid=(parse_instant(r["valid"][0], "valid"), _maybe(r["valid"][1])),
                 knowledge=(parse_instant(r["knowledge"][0], "knowledge"),
                            _maybe(r["knowledge"][1])),
                 conflicts_with=(), rank=rank, stale=Stale.of_document(r.get("stale")),
                 sources_via_inputs=bool(r.get("sources_via_inputs", False)))


def _maybe(text: str | None) -> Any:
    return parse_instant(text, "instant") if text else None


def context(remote: Remote, p: dict[str, Any]) -> None:
    body = scoped(p) | {
        "query": p["query"], "budget": p["budget"], "subjects": p["subject"],
        "cutoff": instant(p["cutoff"], "cutoff"), "for_thread": p["for_thread"],
        "valid_at": instant(p["valid_at"], "valid_at"),
        "mode": p["mode"], "format": p["format"], "all_scopes": p["all_scopes"],
        "tokenizer": p["tokenizer"]} | _required(p)
    answer = remote.call("POST", "/v1/context", body=body)
    typer.echo(answer["text"])
    if answer.get("refusal"):
        typer.echo(f"refused: {answer['refusal']}", err=True)


def _required(p: dict[str, Any]) -> dict[str, Any]:
    """The read's minimum authority as the API takes it, checked here first (one line)."""
    required_authority(p["min_authority"], p["risk"])
    least = p["min_authority"]
    return {"min_authority": least and authority_named(least).name.lower(),
            "risk": p["risk"] and p["risk"].strip().lower()}


def remember(remote: Remote, p: dict[str, Any]) -> None:
    body = scoped(p) | {
        "kind": p["kind"], "subject": p["subject"], "key": p["key"],
        "value": typed_value(p["value"], p["typed"]), "source_kind": p["source_kind"],
        "source_id": p["source_id"], "source_version": p["source_version"],
        "tool": p["tool"], "tool_version": p["tool_version"],
        "observed_at": instant(p["observed_at"], "observed_at"), "owner": p["owner"],
        "retention_reason": p["reason"], "ttl_seconds": p["ttl"],
        "valid_from": instant(p["valid_from"], "valid_from"),
        "valid_to": instant(p["valid_to"], "valid_to"),
        "evidence": p["evidence"], "consent": p["consent"]}
    if p["expected_revision"] is not None:
        raise InvalidArgument("--expected-revision is not available over --server yet (the "
                              "API takes it as If-Match)")
    decide(remote, "/v1/memories", body, p["as_json"], key=p["key"])


def memories(remote: Remote, p: dict[str, Any]) -> None:
    query = scoped(p) | {
        "subject": p["subject"], "key": p["key"], "at": instant(p["at"], "at"),
        "system_at": instant(p["system_at"], "system_at"),
        "valid_at": instant(p["valid_at"], "valid_at"), "candidates": p["candidates"] or None,
        "hindsight": p["hindsight"] or None,
        "all_scopes": p["all_scopes"] or None} | _required(p)
    found = [MemoryView.model_validate(m) for m in remote.pages("/v1/memories", query)]
    render_memory.memories(_out, p["subject"], found, p["as_json"],
                           as_csv_unless_json(p["fmt"], p["as_json"]))


def forget(remote: Remote, p: dict[str, Any]) -> None:
    if p["everything"] and not p["user"]:
        raise typer.BadParameter("--everything needs --user", param_hint="--everything")
    body = scoped(p) | {"reason": p["reason"], "subject": p["subject"], "key": p["key"],
                        "source": p["source"], "everything": p["everything"] or None}
    render_memory.forgotten(_out, remote.call("POST", "/v1/forget", body=body), p["as_json"])


COMMANDS: dict[str, Callable[[Remote, dict[str, Any]], None]] = {
    "search": search, "context": context, "remember": remember, "memories": memories,
    "forget": forget} | FACT_COMMANDS | MEMORY_COMMANDS | KEY_COMMANDS | INGEST_COMMANDS \
    | TOOL_COMMANDS | SETTINGS_COMMANDS


def run_remote(ctx: typer.Context, server: str, key: str | None) -> None:
    """Run the command ``ctx`` is about to invoke against ``server`` instead, then exit. Its
    arguments are parsed by the command itself (so ``--help`` and every check are the
    local ones); a command the API does not serve yet is refused, naming it. A group's
    command (``keys list``) is named by both words."""
    name = ctx.invoked_subcommand or ""
    group: Any = ctx.command  # typer's own click Group
    command: Any = group.get_command(ctx, name)
    words = list(ctx.meta.get(ARGS, []))
    if isinstance(command, TyperGroup):
        if not (words and command.get_command(ctx, words[0])):
            command.make_context(name, words, parent=ctx)  # its --help, or usage: local
        else:
            name, command, words = (f"{name} {words[0]}", command.get_command(ctx, words[0]),
                                    words[1:])
    if name not in COMMANDS:
        raise InvalidArgument(f"vintage {name} is not available over --server yet (it runs on "
                              f"a local store; over the server: {', '.join(COMMANDS)})")
    assert command is not None
    _same_tenant(ctx.obj.tenant, key)
    with command.make_context(name, words, parent=ctx) as sub:
        COMMANDS[name](Remote(server, key), dict(sub.params))
    raise typer.Exit(0)


def _same_tenant(tenant: str | None, key: str | None) -> None:
    """The tenant is the key's: a ``--tenant`` (or ``VINTAGE_TENANT``) naming another is refused,
    not dropped (a memory meant for t2 was written to the key's t1, and t2's reads answered
    with t1's data)."""
    named = parse(key) if key else None
    if tenant is not None and named is not None and tenant != named.tenant:
        raise InvalidArgument(f"--tenant {tenant}: over --server the tenant is the key's "
                              f"({named.tenant}); give that key's tenant or none")
