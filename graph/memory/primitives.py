"""What agent memory asks of a transaction beyond the core primitives of
``vintage.graph.store.protocol``.

Erasure (``forget``) must reach every version a scope ever held and remove its content; a
conflict set links the sides that disagree. Only memory does either, so these primitives
live in a protocol of their own: a new memory need widens ``MemoryTx``, not ``StoreTx``, and
a backend without them fails here, by name, rather than deep inside a write.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from vintage.graph.core.kinds import FactKind
from vintage.graph.core.model import Fact, Scope
from vintage.graph.store.protocol import Conflict, Erasure, StoreError, StoreTx


@runtime_checkable
class MemoryTx(StoreTx, Protocol):
    def facts_in(
        self, scope: Scope, kinds: Sequence[FactKind] | None = None,
        keys: Sequence[str] | None = None,
    ) -> list[Fact]:
        """Every version ever recorded whose scope holds all of ``scope``'s terms, whatever
        its times or status (superseded, invalidated, erased), optionally only these kinds or
        assertion keys; ordered by key and revision. What erasure has to reach."""
        ...
    def link_conflicts(self, rows: Sequence[Conflict]) -> None: ...
    def erase_facts(self, rows: Sequence[Erasure]) -> None:
        """Remove the content of these facts wherever the backend keeps it (the embedded log
        is rewritten); they stay as content-free shells so that lineage walks still work."""
        ...


def memory_tx(tx: StoreTx) -> MemoryTx:
    """The memory primitives of a backend's transaction (both backends have them)."""
    if not isinstance(tx, MemoryTx):
        raise StoreError(f"{type(tx).__name__} has no agent-memory primitives")
    return tx
