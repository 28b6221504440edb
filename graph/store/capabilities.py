"""What only some stores can do, beyond the ``Store`` protocol: a caller asks with
``isinstance`` and takes another way (or refuses, in one line) when the store cannot."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar, runtime_checkable

T = TypeVar("T")

# The store's own settings (the embedder it uses: vintage.graph.retrieval.choice) are events of
# this name, which no tenant can take (a tenant name has no blank). It holds no tenant's data:
# a listing of tenants leaves it out.
SETTINGS_TENANT = "vintage store settings"


@runtime_checkable
class WholeWrites(Protocol):
    """A backend that can make several writes one transaction: ``whole(tenant, work)`` runs
    ``work``, and every ``write`` it makes commits with it, or none does (an ingest's batches:
    a file lands whole). Both backends have it: SQLite's savepoints in one transaction, and
    Neo4j's writes in one transaction, bounded by the server's transaction memory."""

    def whole(self, tenant: str, work: Callable[[], T]) -> T: ...


@runtime_checkable
class ListsTenants(Protocol):
    """A backend that can name the tenants it holds: ``tenants()``, sorted. Only for its owner
    (``vintage stats --all-tenants`` on a local store): no tenant's read ever lists another's.
    A tenant is named by its events (every change records one)."""

    def tenants(self) -> list[str]: ...

