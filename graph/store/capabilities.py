"""What only some stores can do, beyond the ``Store`` protocol: a caller asks with
``isinstance`` and takes another way (or refuses, in one line) when the store cannot."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, TypeVar, runtime_checkable

from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import Status
from vintage.graph.core.model import Scope

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


@dataclass(frozen=True)
class Held:
    """What a tenant's facts known now come to (``vintage stats``): how many, their distinct
    predicates, how many of each kind, the distinct sources whose support of them holds now,
    and the earliest and latest ``available_at`` among them."""

    facts: int = 0
    concepts: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)  # sorted by kind
    sources: int = 0
    first_known: datetime | None = None
    last_known: datetime | None = None


@runtime_checkable
class CountsHeld(Protocol):
    """A backend that counts ``Held`` in its database, reading no fact in the clear into the
    process (``vintage stats`` at a million versions read every fact, 5.6 GB): both backends
    (``vintage.graph.sqlite.held``, ``vintage.graph.neo4j.cypher_held``). Its answer is the one
    composed from ``Store.read`` and ``Store.supports``
    (``vintage.queries.lineage.stats.held_by_reads``), which any other store uses."""

    def held(self, tenant: str) -> Held: ...


def known_now(tenant: str) -> AsOf:
    """The read ``Held`` counts: every fact the tenant knows now, in every scope and status
    (shared facts and every user's memories, candidates included), to be resolved at now."""
    return AsOf(Scope(tenant=tenant), known_at=None, statuses=frozenset(Status))


Group = tuple[str, str, int, datetime, datetime]  # predicate, kind, count, first, last known


def tallied(groups: Iterable[Group], sources: int) -> Held:
    """``Held`` from what was counted of the facts (``groups``, a row per predicate and kind, as
    a database groups them) and of their distinct ``sources``."""
    concepts: set[str] = set()
    kinds: Counter[str] = Counter()
    known: list[datetime] = []
    for predicate, kind, n, first, last in groups:
        concepts.add(predicate)
        kinds[kind] += n
        known += [first, last]
    return Held(facts=sum(kinds.values()), concepts=len(concepts),
                by_kind=dict(sorted(kinds.items())), sources=sources,
                first_known=min(known, default=None), last_known=max(known, default=None))
