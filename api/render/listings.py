"""The listings' tables as rows of plain values, for ``--format csv``: memories, audit, review,
keys and stats (the tables of facts, searches and impacts are in ``vintage.render.rows``).

As there: one row per line of the table, one column per field, instants in ISO 8601, an open
end or an absent value empty, several values in one cell separated by a space (ids) or `` | ``
(text). The columns are fixed by the listing, so an empty listing is still its header.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from vintage.graph.access.keys import KeyInfo
from vintage.graph.core.model import Event
from vintage.graph.memory.conflicts import ConflictSet
from vintage.graph.memory.held import Held
from vintage.queries.memory.recall import MemoryView

Table = tuple[tuple[str, ...], list[tuple[Any, ...]]]

MEMORY = ("id", "subject", "key", "value", "kind", "status", "revision", "scope", "sources",
          "valid_from", "valid_to", "known_from", "known_until", "expires_at", "owner",
          "retention_reason")
AUDIT = ("id", "at", "actor", "action", "reason", "details")
REVIEW = ("entry", "subject", "key", "scope", "id", "value", "known_from", "why")
KEYS = ("key_id", "role", "user", "project", "name", "created_at", "created_by", "revoked_at",
        "revoked_by", "active")


def _iso(t: datetime | None) -> str | None:
    return None if t is None else t.isoformat()


def memories(found: Sequence[MemoryView]) -> Table:
    return MEMORY, [
        (m.id, m.subject, m.key, m.value, m.kind, m.status, m.revision, " ".join(m.scope),
         " ".join(f"{s.kind}:{s.id}" for s in m.sources), _iso(m.valid_from), _iso(m.valid_to),
         _iso(m.known_from), _iso(m.known_until), _iso(m.expires_at), m.owner,
         m.retention_reason)
        for m in found]


def audit(events: Sequence[Event]) -> Table:
    """An event's details as one JSON object: counts and decisions, never content."""
    return AUDIT, [
        (e.id, _iso(e.at), e.actor, e.action, e.reason,
         json.dumps(e.details, ensure_ascii=False, sort_keys=True, default=str))
        for e in events]


def review(sets: Sequence[ConflictSet], held: Sequence[Held]) -> Table:
    """A row per side of each open conflict set (``entry`` ``conflict``: its value shown, each
    side answers), then a row per candidate held for review (``held``: named, its text never
    shown, ``why`` says what it read as)."""
    rows: list[tuple[Any, ...]] = [
        ("conflict", c.subject, c.key, " ".join(c.scope), f.id, f.value, _iso(f.available_at),
         None)
        for c in sets for f in c.sides]
    rows += [("held", h.subject, h.key, " ".join(h.scope), h.memory_id, None, None, h.why)
             for h in held]
    return REVIEW, rows


def keys(found: Sequence[KeyInfo]) -> Table:
    """Never a key or its hash: what ``keys list`` shows, and who created and revoked it."""
    return KEYS, [
        (k.key_id, k.role.value, k.user, k.project, k.name, _iso(k.created_at), k.created_by,
         _iso(k.revoked_at), k.revoked_by, k.active)
        for k in found]
