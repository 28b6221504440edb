"""Pagination: ``limit`` and an opaque ``cursor``.

A bitemporal store can hold a list still: the first page pins the instants its read ran at
(knowledge and system time), and every later page reads at those same instants, so the pages
of one listing are slices of one snapshot, whatever is written meanwhile. The cursor carries
those instants, the offset and a digest of the query; a cursor given with another query (or
edited) is refused, never read as something else.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from vintage.graph.core.errors import InvalidArgument

T = TypeVar("T")
BAD_CURSOR = "cursor: not a cursor of this listing (start again without one)"


@dataclass(frozen=True)
class Position:
    offset: int
    pinned: dict[str, datetime]  # the instants the first page read at


def _digest(query: Mapping[str, Any]) -> str:
    text = json.dumps(query, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def encode(query: Mapping[str, Any], position: Position) -> str:
    body = {"q": _digest(query), "o": position.offset,
            "p": {k: v.isoformat() for k, v in position.pinned.items()}}
    return base64.urlsafe_b64encode(json.dumps(body).encode()).decode().rstrip("=")


def decode(cursor: str | None, query: Mapping[str, Any], now: Mapping[str, datetime]) -> Position:
    """Where a page starts: the first one at ``now``, a later one where its cursor says."""
    if cursor is None:
        return Position(0, dict(now))
    try:
        body = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        offset, pinned = int(body["o"]), {k: datetime.fromisoformat(v)
                                          for k, v in dict(body["p"]).items()}
        if body["q"] != _digest(query) or offset < 0 or pinned.keys() != now.keys():
            raise ValueError(BAD_CURSOR)
    except (ValueError, KeyError, TypeError, binascii.Error, json.JSONDecodeError):
        raise InvalidArgument(BAD_CURSOR) from None
    return Position(offset, pinned)


def page(items: Sequence[T], query: Mapping[str, Any], at: Position,
         limit: int) -> tuple[list[T], str | None]:
    """The page of ``items`` (the whole listing at ``at``'s instants) and the next cursor."""
    end = at.offset + limit
    more = encode(query, Position(end, at.pinned)) if len(items) > end else None
    return list(items[at.offset:end]), more
