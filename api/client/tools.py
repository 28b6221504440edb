"""``vintage --server URL tools register | unregister | list`` (``vintage.client.commands``):
the tenant's tools as a client of the API (``/v1/tools``), with an admin key; printed as
``vintage.cli.tools`` prints it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vintage.cli.options import as_csv_unless_json
from vintage.cli.tools import registered, show_tools, unregistered
from vintage.client.http import Remote
from vintage.graph.memory.tools import ANY_VERSION, Tool


def register(remote: Remote, p: dict[str, Any]) -> None:
    done = remote.call("POST", "/v1/tools", body={
        "name": p["name"], "version": p["version"], "reporters": list(p["reporter"] or ()),
        "reason": p["reason"]})
    registered(p["name"], p["version"], done["event"])


def unregister(remote: Remote, p: dict[str, Any]) -> None:
    done = remote.call("POST", "/v1/tools/withdrawal", body={
        "name": p["name"], "version": p["version"], "reason": p["reason"]})
    unregistered(p["name"], p["version"], done["event"])


def listing(remote: Remote, p: dict[str, Any]) -> None:
    to_csv = as_csv_unless_json(p["fmt"], p["as_json"])
    found = [Tool(t["name"], t["version"] or ANY_VERSION, tuple(t["reporters"]), t["event"])
             for t in remote.call("GET", "/v1/tools")["items"]]
    show_tools(found, p["as_json"], to_csv)


TOOL_COMMANDS: dict[str, Callable[[Remote, dict[str, Any]], None]] = {
    "tools register": register, "tools unregister": unregister, "tools list": listing}
