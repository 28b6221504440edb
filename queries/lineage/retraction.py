"""Retracting a source, or undoing its latest retraction: the request ``vintage retract`` makes.

The work is ``vintage.graph.writes.corrections``'s (one transaction each, the cascade included);
this is the one entry point a caller uses, so that it never picks a store operation itself.
"""

from __future__ import annotations

from vintage.graph.core.model import Scope
from vintage.graph.store.protocol import Store
from vintage.graph.writes.corrections import ExitReport, restore_source, retract_source


def retract(store: Store, scope: Scope, source_id: str, *, reason: str, actor: str,
            undo: bool = False) -> ExitReport:
    """The source's facts lose its support (those left with none stop being held, and the
    cascade follows); with ``undo``, its latest retraction is undone instead."""
    act = restore_source if undo else retract_source
    return act(store, scope, source_id, actor=actor, reason=reason)
