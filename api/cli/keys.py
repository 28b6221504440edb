"""``vintage keys create | list | revoke``: the API keys of the tenant (``--tenant``).

The command line on a local store is its owner: it needs no key to manage keys. Creating one
prints it once (the store keeps a verifier it cannot be read back from); listing never shows a
key or its verifier. Each is an event naming ``--actor``. Handlers parse, call
``vintage.graph.access`` and format.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from vintage.cli.options import AsJson, Format, Options, OutputFormat, as_csv_unless_json
from vintage.graph.access import KeyInfo, Principal, Role, create_key, list_keys, revoke
from vintage.render import listings
from vintage.render.rows import print_table_csv
from vintage.render.terminal import console, print_json, safe, table

keys_app = typer.Typer(no_args_is_help=True,
                       help="API keys of the tenant: create (shown once), list, revoke.")
_out = console()
ONCE = "This key is shown only once: store it now; it cannot be shown again."


@keys_app.command("create")
def create_cmd(
    ctx: typer.Context,
    role: Annotated[Role, typer.Option("--role", help="reader, writer, agent or admin.")],
    user: Annotated[str | None, typer.Option(help="Bind the key to this user.")] = None,
    project: Annotated[str | None, typer.Option(help="Bind the key to this project.")] = None,
    name: Annotated[str | None, typer.Option(help="A name for the key (shown in the audit "
                                                  "as key:ID(NAME)).")] = None,
    as_json: AsJson = False,
) -> None:
    """Create a key and print it, once."""
    options: Options = ctx.obj
    with options.opened(create=True) as store:
        principal, key = create_key(store, options.scope().tenant, role, user=user,
                                    project=project, name=name, actor=options.actor)
    show_created(principal, key, as_json)


def show_created(principal: Principal, key: str, as_json: bool) -> None:
    """A new key as ``keys create`` prints it (also over ``--server``: ``vintage.client.keys``)."""
    if as_json:
        print_json(_out, json.dumps({
            "key": key, "key_id": principal.key_id, "tenant": principal.tenant,
            "role": principal.role.value, "user": principal.user,
            "project": principal.project, "name": principal.name, "actor": principal.actor,
            "note": ONCE}))
        return
    bound = ", ".join(f"{k} {safe(v)}" for k, v in principal.binding().items())
    _out.print(f"created {principal.role.value} key {safe(principal.key_id)}"
               + (f" bound to {bound}" if bound else "") + f" ({safe(principal.actor)})")
    _out.print(safe(key), highlight=False)
    _out.print(f"[yellow]{ONCE}[/yellow]")


@keys_app.command("list")
def list_cmd(ctx: typer.Context, as_json: AsJson = False,
             fmt: Format = OutputFormat.TABLE) -> None:
    """The tenant's keys, revoked ones included (never a key or its hash)."""
    options: Options = ctx.obj
    to_csv = as_csv_unless_json(fmt, as_json)
    with options.opened() as store:
        found = list_keys(store, options.scope().tenant)
    show_keys(options.scope().tenant, found, as_json, to_csv)


def show_keys(tenant: str, found: list[KeyInfo], as_json: bool, to_csv: bool = False) -> None:
    """A listing as ``keys list`` prints it (also over ``--server``: ``vintage.client.keys``)."""
    if to_csv:  # an empty listing is its header alone
        print_table_csv(*listings.keys(found))
        return
    if as_json:
        print_json(_out, json.dumps([_info(k) for k in found]))
        return
    if not found:
        _out.print("no keys")
        return
    grid = table(f"keys of tenant {safe(tenant)}", "key id", "role", "user",
                 "project", "name", "created", "revoked")
    for k in found:
        grid.add_row(safe(k.key_id), k.role.value, safe(k.user or "-"),
                     safe(k.project or "-"), safe(k.name or "-"), k.created_at.isoformat(),
                     k.revoked_at.isoformat() if k.revoked_at else "-")
    _out.print(grid)


@keys_app.command("revoke")
def revoke_cmd(
    ctx: typer.Context,
    key_id: Annotated[str, typer.Argument(help="The key's id (keys list).")],
    reason: Annotated[str, typer.Option(help="Why (kept in the event).")] = "revoked",
) -> None:
    """Revoke a key: refused from now on (by a running service within its cache's TTL)."""
    options: Options = ctx.obj
    with options.opened() as store:
        event = revoke(store, options.scope().tenant, key_id, options.actor, reason=reason)
    _out.print(f"revoked key {safe(key_id)} (event {safe(event)})")


def _info(k: KeyInfo) -> dict[str, object]:
    return {"key_id": k.key_id, "role": k.role.value, "user": k.user, "project": k.project,
            "name": k.name, "created_at": k.created_at.isoformat(), "created_by": k.created_by,
            "revoked_at": k.revoked_at.isoformat() if k.revoked_at else None,
            "revoked_by": k.revoked_by, "active": k.active}
