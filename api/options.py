"""Global command-line options (``--store``, ``--tenant``), and the option types and argument
readers that every command group shares."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from graph.asof import TenantRequired
from graph.backends import open_store
from graph.errors import InvalidArgument
from graph.model import Scope
from graph.store import Store


@dataclass
class Options:
    store: str | None
    tenant: str | None

    @contextmanager
    def opened(self) -> Iterator[Store]:
        store = open_store(self.store)
        try:
            yield store
        finally:
            store.close()

    def scope(self, **keys: str) -> Scope:
        if not self.tenant:
            raise TenantRequired("this command reads or writes facts: give --tenant or "
                                 "set VINTAGE_TENANT (a request is never widened to all tenants)")
        return Scope(tenant=self.tenant, keys=keys)


AsJson = Annotated[bool, typer.Option("--json", help="The result as JSON.")]


def typed_value(text: str, typed: bool) -> Any:
    """VALUE as given, or with ``--typed`` read as a JSON literal (``7``, ``true``); malformed
    JSON is the caller's error, reported with the parser's message."""
    if not typed:
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidArgument(str(exc)) from None
