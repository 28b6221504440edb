"""Global command-line options (``--store``, ``--tenant``), shared by every command group."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from graph.asof import TenantRequired
from graph.backends import open_store
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
