"""What a store holds for one tenant (``vintage stats``): its subjects, concepts, facts, sources
and events, and the size of an embedded store on disk.

The counts are of what the tenant knows *now* (a superseded version, an invalidated or erased
fact is not counted) across every scope and status (shared facts and every user's memories,
candidates included). A backend that counts them in its database (``CountsHeld``: both
backends) does; any other store composes them from ``Store.read`` and ``Store.supports``, the
reference the database's counts are tested against. A tenant is named, never listed by a
tenant's read: one tenant's command never learns another's names. The store's owner (the
command line on a local store, ``--all-tenants``) may list them, on a backend that can
(``ListsTenants``).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from vintage.graph.core.errors import InvalidArgument
from vintage.graph.store.capabilities import (
    CountsHeld,
    Held,
    ListsTenants,
    known_now,
    tallied,
)
from vintage.graph.store.protocol import Store


@dataclass(frozen=True)
class Holdings:
    tenant: str
    subjects: int
    concepts: int  # distinct predicates of the facts held
    facts: int  # known now: a superseded version is history, not counted
    by_kind: dict[str, int]
    sources: int  # distinct sources supporting the facts held
    events: int
    first_known: datetime | None  # the earliest and latest available_at among the facts
    last_known: datetime | None
    size_bytes: int | None  # an embedded store's files; None for a server's database


def holdings(store: Store, tenant: str, directory: Path | None) -> Holdings:
    """What ``tenant`` holds in ``store``; ``directory`` is an embedded store's folder, whose
    files are counted in ``size_bytes`` (all tenants share them)."""
    held = store.held(tenant) if isinstance(store, CountsHeld) else held_by_reads(store, tenant)
    return Holdings(
        tenant=tenant, subjects=len(store.subjects(tenant)), concepts=held.concepts,
        facts=held.facts, by_kind=held.by_kind, sources=held.sources,
        events=len(store.events(tenant)), first_known=held.first_known,
        last_known=held.last_known,
        size_bytes=size_of(directory) if directory is not None else None)


def held_by_reads(store: Store, tenant: str) -> Held:
    """``Held`` from the reads every backend has: one read of what is known now (superseded
    versions would take a history read per assertion, a round trip each on a server), and
    the supports of what it found."""
    facts = store.read(known_now(tenant).resolved(store.now()))
    supports = store.supports(tenant, [f.id for f in facts]) if facts else []
    return tallied([(f.predicate, f.kind.value, 1, f.available_at, f.available_at)
                    for f in facts], len({s.source_id for s in supports}))


def every_tenant(store: Store, directory: Path | None) -> list[Holdings]:
    """What each tenant of ``store`` holds, by tenant name (its owner's view: the command line
    on a local store); the size is the store's, counted once. The store's own settings
    (``SETTINGS_TENANT``: the embedder it uses) are no tenant's: ``tenants()`` leaves them
    out."""
    if not isinstance(store, ListsTenants):
        raise InvalidArgument("this store cannot list its tenants: name one with --tenant")
    size = size_of(directory) if directory is not None else None
    return [dataclasses.replace(holdings(store, tenant, None), size_bytes=size)
            for tenant in store.tenants()]


def size_of(directory: Path) -> int:
    """The bytes of every file under ``directory`` (0 when it does not exist yet)."""
    return sum(os.path.getsize(Path(folder) / name)
               for folder, _, names in os.walk(directory) for name in names)
