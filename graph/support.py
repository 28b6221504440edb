"""What a source holds up: the facts it supports, split by whether another live source also
supports them. Shared by the read-only impact of a source and by erasure by source."""

from __future__ import annotations

from datetime import datetime

from graph.labels import FACT, SUPPORTED_BY
from graph.store import Direction, StoreTx, UnknownReference


def supported_by(tx: StoreTx, source_id: str, at: datetime) -> tuple[list[str], list[str]]:
    """(facts resting on ``source_id`` alone, facts another source also supports), sorted."""
    if not tx.get_sources([source_id]):
        raise UnknownReference(f"unknown source: {source_id}")
    supported = sorted(tx.walk([source_id], Direction.DOWNSTREAM, at, 1,
                               (SUPPORTED_BY,)).ids(FACT))
    cited = tx.walk(supported, Direction.UPSTREAM, at, 1, (SUPPORTED_BY,)).edges
    elsewhere = {e.start for e in cited if e.end != source_id}
    return ([f for f in supported if f not in elsewhere],
            [f for f in supported if f in elsewhere])
