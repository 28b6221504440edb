"""How a batch's parameters travel to Neo4j: as few ``DATETIME`` values as the rows allow.

The Python driver spends 0.1-0.3 ms of Python encoding each ``DATETIME`` parameter, more than
the server spends writing the row it belongs to: a batch of 10,000 facts holds 40,000 of them
(most of a companyfacts ingest's time), and a cascade closes 110,000 facts at one or two
instants. So the builders send a fact's own instants as ISO text that Cypher's ``datetime()``
parses back to the same instant, and group rows that share instants under one copy of them.
Instants that come back in bulk (a cascade's ends) travel as integer microseconds since the
epoch, both ways: ``micros`` and ``instant``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

FACT_INSTANTS = ("valid_from", "valid_to", "available_at", "superseded_at",
                 "superseded_recorded_at", "recorded_at", "invalidated_at", "expires_at",
                 "erased_at")
FACT_INSTANT_LISTS = ("gaps_from", "gaps_to", "past_superseded_at", "past_superseded_from",
                      "past_superseded_to")

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def micros(at: datetime) -> int:
    return (at - _EPOCH) // timedelta(microseconds=1)


def instant(value: int | None) -> datetime | None:
    return None if value is None else _EPOCH + timedelta(microseconds=value)


def with_text(row: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """``row`` with the instants under ``keys`` as ISO text, for ``datetime()`` to read back."""
    text = dict(row)
    for k in keys:
        if text.get(k) is not None:
            text[k] = text[k].isoformat()
    return text


def instants_as_text(row: dict[str, Any]) -> dict[str, Any]:
    """A fact row with its instants as ISO text (``parsed_instants`` reads them back)."""
    text = with_text(row, FACT_INSTANTS)
    for k in FACT_INSTANT_LISTS:
        if text.get(k) is not None:
            text[k] = [t.isoformat() for t in text[k]]
    return text


def parsed_instants(row: str) -> str:
    """The Cypher map entries that turn ``instants_as_text``'s fields of ``row`` back into
    instants (``datetime(null)`` is null: an open end stays absent)."""
    return ", ".join([*(f"{k}: datetime({row}.{k})" for k in FACT_INSTANTS),
                      *(f"{k}: [t IN {row}.{k} | datetime(t)]" for k in FACT_INSTANT_LISTS)])


def grouped(rows: list[dict[str, Any]], shared: tuple[str, ...],
            member: Callable[[dict[str, Any]], Any]) -> list[dict[str, Any]]:
    """One map per distinct value of the rows' ``shared`` fields, the rest as its ``members``,
    in the order each group first appears."""
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in rows:
        key = tuple(row[k] for k in shared)
        if key not in groups:
            groups[key] = {**{k: row[k] for k in shared}, "members": []}
        groups[key]["members"].append(member(row))
    return list(groups.values())
