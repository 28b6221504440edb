"""Reads a write plans on, taken under the locks of the subjects they name.

Every write locks its subjects first (``StoreTx.lock_subjects``), so a write that must read
before it knows its subjects (erasure of a user, rollback of a scope) reads, locks what it read
about and reads again; the plan rests on the second read, which no writer of those subjects can
change before this transaction ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from vintage.graph.store.protocol import StoreTx

R = TypeVar("R")


def under_locks(tx: StoreTx, read: Callable[[], R], subjects: Callable[[R], Iterable[str]]) -> R:
    """``read``, then take the write locks of the subjects it names and read again: on Neo4j a
    read after the lock sees what any writer of those subjects committed while we waited, and
    none can commit until we end. Again while a fresh read names a subject not yet locked."""
    locked: set[str] = set()
    while True:
        found = read()
        named = set(subjects(found))
        if named <= locked:
            return found
        locked |= named
        # Re-locking the ones held is a no-op; a cycle with a writer that locked in another
        # order is a deadlock Neo4j detects, and the driver retries the transaction.
        tx.lock_subjects(sorted(locked))
