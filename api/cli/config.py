"""``vintage config embedder [NAME] [--tenant T] [--withdraw]``: the store's embedder.

The model that embeds a store's search entries is the store's, recorded in it, so every process
on the store uses the same (``vintage.graph.retrieval.choice``). Without NAME the command shows
the choice that holds; with NAME it records one, for the store or (``--tenant``) for one
tenant; ``--withdraw`` gives a tenant the store's choice again. Each choice is an audited
``embedder`` event naming ``--actor``. This command's ``--tenant`` is its own option, given
after ``embedder``: a choice made with only the global ``--tenant`` (or ``VINTAGE_TENANT``) set
is refused, never taken for the whole store; shown, the global one narrows what is shown.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from vintage.cli.options import AsJson, Options
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.retrieval.choice import (
    NOTHING_SHOWN,
    REEMBEDDED,
    Choice,
    recorded,
    set_embedder,
)
from vintage.render.terminal import console, safe

config_app = typer.Typer(no_args_is_help=True, help="The store's settings: its embedder.")
_out = console()


@config_app.command("embedder")
def embedder_cmd(
    ctx: typer.Context,
    name: Annotated[str | None, typer.Argument(
        help="minilm (English), minilm+bge (English, more recall; the bge extra), e5 "
             "(multilingual: Chinese and English; the multilingual extra) or "
             "openai:<base_url>#<model>. Omitted: show the choice that holds.")]
        = None,
    tenant: Annotated[str | None, typer.Option(
        "--tenant", help="Only this tenant (its choice wins over the store's).")] = None,
    withdraw: Annotated[bool, typer.Option(
        "--withdraw", help="The tenant's own choice ends: the store's holds for it again.")]
        = False,
    reason: Annotated[str, typer.Option(help="Why (kept in the event).")]
        = "chosen with vintage config embedder",
    as_json: AsJson = False,
) -> None:
    """Show or choose the model that embeds this store's (or a tenant's) search entries."""
    options: Options = ctx.obj
    check_withdrawal(name, tenant, withdraw)
    tenant = whose(tenant, options.tenant, changing=name is not None or withdraw)
    with options.opened(create=name is not None) as store:
        if name is None and not withdraw:
            held = recorded(store, tenant)
            changed = False
        else:
            held = set_embedder(store, name, tenant=tenant, actor=options.actor,
                                reason=reason)
            changed = True
    show_choice(held, tenant, changed, as_json)


def whose(tenant: str | None, global_tenant: str | None, *, changing: bool) -> str | None:
    """The tenant a choice is shown or made for. Shown: the global ``--tenant`` (or
    ``VINTAGE_TENANT``) narrows it to what holds for that tenant. Made: only this command's own
    ``--tenant`` names one, so a global tenant without it is refused rather than taken for the
    whole store (``vintage --tenant t2 config embedder e5`` changed every tenant's model)."""
    if not global_tenant:
        return tenant
    if not changing:
        return tenant or global_tenant
    if tenant is None:
        raise InvalidArgument(
            f"a choice for tenant {global_tenant} is made with this command's own option "
            f"(`config embedder NAME --tenant {global_tenant}`); for the whole store, leave "
            "the global --tenant and VINTAGE_TENANT unset")
    if tenant != global_tenant:
        raise InvalidArgument(f"two tenants named: {global_tenant} (global) and {tenant} "
                              "(config embedder --tenant); name one")
    return tenant


def check_withdrawal(name: str | None, tenant: str | None, withdraw: bool) -> None:
    if withdraw and (name is not None or tenant is None):
        raise InvalidArgument("--withdraw takes --tenant and no NAME")


def show_choice(held: Choice | None, tenant: str | None, changed: bool, as_json: bool) -> None:
    """What ``config embedder`` prints, locally and over ``--server``."""
    if as_json:
        print(json.dumps(NOTHING_SHOWN if held is None else held.shown()))
        return
    if held is None:
        _out.print("no embedder recorded yet: the first search records VINTAGE_EMBEDDER's "
                    "(default minilm)")
        return
    where = held.where if tenant is None or held.tenant else f"tenant {tenant} (the store's)"
    _out.print(f"{'now ' if changed else ''}{safe(held.embedder)} for {safe(where)}, chosen "
               f"{held.at:%Y-%m-%d %H:%M} UTC by {safe(held.actor)}"
               + (f"; {REEMBEDDED}" if changed else ""))
