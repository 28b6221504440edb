"""What a source holds up: the facts it supports, split by whether another source also
supports them. Shared by the read-only impact of a source and by erasure by source."""

from __future__ import annotations

from datetime import datetime

from vintage.graph.core.labels import FACT, SUPPORTED_BY
from vintage.graph.store.protocol import (
    Confirmation,
    Direction,
    StoreTx,
    Support,
    UnknownReference,
)


def supported_by(tx: StoreTx, source_id: str, at: datetime) -> tuple[list[str], list[str]]:
    """(facts resting on ``source_id`` alone, facts another source also supports), sorted,
    by the support edges live at ``at``."""
    _known(tx, source_id)
    supported = sorted(tx.walk([source_id], Direction.DOWNSTREAM, at, 1,
                               (SUPPORTED_BY,)).ids(FACT))
    cited = tx.walk(supported, Direction.UPSTREAM, at, 1, (SUPPORTED_BY,)).edges
    elsewhere = {e.start for e in cited if e.end != source_id}
    return ([f for f in supported if f not in elsewhere],
            [f for f in supported if f in elsewhere])


def said_by(tx: StoreTx, source_id: str) -> tuple[list[str], list[str]]:
    """(facts only ``source_id`` ever said, facts another source also said), sorted, by every
    support edge whatever its system time: a retracted edge still records that its source
    said the fact, so erasure by source reaches what a retraction already closed, and a fact
    another source said (even one since retracted) is that source's to erase."""
    _known(tx, source_id)
    said = tx.ever_supported_by(source_id)
    elsewhere = {s.fact_id for s in tx.supports_of(said) if s.source_id != source_id}
    return [f for f in said if f not in elsewhere], [f for f in said if f in elsewhere]


def _known(tx: StoreTx, source_id: str) -> None:
    if not tx.get_sources([source_id]):
        raise UnknownReference(f"unknown source: {source_id}")


def confirmed(edges: list[Support], known_at: datetime) -> dict[str, Confirmation]:
    """Per fact, its support ``edges`` (ordered by fact, availability, source) public by
    ``known_at``, summed up."""
    found: dict[str, Confirmation] = {}
    for s in edges:
        if s.available_at > known_at:
            continue
        seen = found.get(s.fact_id)
        found[s.fact_id] = Confirmation(
            seen.first_source if seen else s.source_id,
            seen.first_at if seen else s.available_at, s.available_at)
    return found
