"""``vintage --server URL config embedder [NAME] [--withdraw]`` (``vintage.client.commands``):
the embedder of the key's tenant as a client of the API (``/v1/embedder``): any key shows it, an
admin key chooses or withdraws it; printed as ``vintage.cli.config`` prints it. Over the server
the command is about the key's tenant: ``--tenant``, when given, must name it (the store-wide
choice is made on the store itself, without ``--server``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vintage.cli.config import check_withdrawal, show_choice
from vintage.client.http import Remote
from vintage.client.keys import tenant_of
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.temporal import parse_instant
from vintage.graph.retrieval.choice import Choice, normalised


def embedder(remote: Remote, p: dict[str, Any]) -> None:
    tenant = tenant_of(remote)
    if p["tenant"] is not None and p["tenant"] != tenant:
        raise InvalidArgument(f"--tenant: over --server the key's own tenant ({tenant}) only; "
                              "the store-wide choice is made on the store itself")
    name, withdraw = p["name"], p["withdraw"]
    check_withdrawal(name, tenant, withdraw)
    if withdraw:
        answer = remote.call("POST", "/v1/embedder/withdrawal", body={"reason": p["reason"]})
    elif name is not None:
        # A name no embedder has is refused here, in the local words; whether e5 is installed
        # is the server's to say.
        answer = remote.call("POST", "/v1/embedder", body={"embedder": normalised(name),
                                                           "reason": p["reason"]})
    else:
        answer = remote.call("GET", "/v1/embedder")
    show_choice(choice_of(answer), tenant, name is not None or withdraw, p["as_json"])


def choice_of(answer: dict[str, Any]) -> Choice | None:
    """The API's answer read back; None when nothing is recorded yet."""
    if answer["embedder"] is None:
        return None
    held = None if answer["for"] == "store" else answer["for"]
    return Choice(answer["embedder"], held, parse_instant(answer["at"], "at"), answer["actor"],
                  answer["reason"], "")


SETTINGS_COMMANDS: dict[str, Callable[[Remote, dict[str, Any]], None]] = {
    "config embedder": embedder}
