"""``vintage --server URL keys create | list | revoke`` (``vintage.client.commands``): key
management as a client of the API, with an admin key of the tenant; printed as ``vintage.cli.keys``
prints it. The
tenant is the one the key names (its string carries it: ``vintage.graph.access.keystring``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vintage.cli.keys import show_created, show_keys
from vintage.cli.options import as_csv_unless_json
from vintage.client.http import Remote, segment
from vintage.graph.access import KeyInfo, Principal, Role
from vintage.graph.access.keystring import parse
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.temporal import parse_instant
from vintage.render.terminal import console, safe

_out = console()


def tenant_of(remote: Remote) -> str:
    named = parse(remote.key)
    if named is None:
        raise InvalidArgument("--key is not a Vintage API key (vk_<tenant>_<id>_<secret>)")
    return named.tenant


def create(remote: Remote, p: dict[str, Any]) -> None:
    role = Role(p["role"])
    made = remote.call("POST", "/v1/keys", body={
        "role": role.value, "user": p["user"], "project": p["project"], "name": p["name"]})
    show_created(Principal(tenant=tenant_of(remote), role=role, key_id=made["key_id"],
                           name=p["name"], user=p["user"], project=p["project"]),
                 made["key"], p["as_json"])


def listing(remote: Remote, p: dict[str, Any]) -> None:
    def at(text: str | None) -> Any:
        return parse_instant(text, "instant") if text else None
    found = [KeyInfo(key_id=k["key_id"], role=Role(k["role"]), user=k["user"],
                     project=k["project"], name=k["name"], created_at=at(k["created_at"]),
                     created_by=k["created_by"], revoked_at=at(k["revoked_at"]),
                     revoked_by=k["revoked_by"])
             for k in remote.call("GET", "/v1/keys")["items"]]
    show_keys(tenant_of(remote), found, p["as_json"], as_csv_unless_json(p["fmt"], p["as_json"]))


def revoke(remote: Remote, p: dict[str, Any]) -> None:
    done = remote.call("POST", f"/v1/keys/{segment(p['key_id'])}/revocation",
                       body={"reason": p["reason"]})
    _out.print(f"revoked key {safe(p['key_id'])} (event {safe(done['event'])})")


KEY_COMMANDS: dict[str, Callable[[Remote, dict[str, Any]], None]] = {
    "keys create": create, "keys list": listing, "keys revoke": revoke}
