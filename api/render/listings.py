"""The listings' tables as rows of plain values, for ``--format csv``: memories, audit, review,
keys, tools, trusted sources, a trace's considered items, an ingest's cascade and an
explanation's versions (the tables of facts, searches and impacts are in
``vintage.render.rows``; stats in ``vintage.render.stats``).

As there: one row per line of the table, one column per field, instants in ISO 8601, an open
end or an absent value empty, several values in one cell separated by a space (ids) or `` | ``
(text). The columns are fixed by the listing, so an empty listing is still its header.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from vintage.graph.access.keys import KeyInfo
from vintage.graph.core.model import Event
from vintage.graph.memory.conflicts import ConflictSet
from vintage.graph.memory.held import Held
from vintage.queries.memory.recall import MemoryView

if TYPE_CHECKING:  # named in annotations only: ``memories`` need not import an ingest
    from vintage.graph.memory.tools import Tool
    from vintage.ingest.batches import Summary
    from vintage.queries.lineage.explain import Explanation, Step
    from vintage.queries.search.trace import Injection

Table = tuple[tuple[str, ...], list[tuple[Any, ...]]]

MEMORY = ("id", "subject", "key", "value", "kind", "status", "revision", "scope", "sources",
          "valid_from", "valid_to", "known_from", "known_until", "expires_at", "owner",
          "retention_reason")
AUDIT = ("id", "at", "actor", "action", "reason", "details")
REVIEW = ("entry", "subject", "key", "scope", "id", "value", "known_from", "why")
KEYS = ("key_id", "role", "user", "project", "name", "created_at", "created_by", "revoked_at",
        "revoked_by", "active")
TOOLS = ("name", "version", "reporters", "event")
TRUSTED = ("kind", "source")
CONSIDERED = ("rank", "id", "score", "signals", "outcome")
CASCADE = ("file", "fact", "subject", "predicate", "fate", "depth", "old_value", "new_value",
           "new_fact")
VERSIONS = ("depth", "parent", "role", "id", "subject", "predicate", "value", "unit",
            "revision", "kind", "status", "valid_from", "valid_to", "known_from", "known_until",
            "recorded_from", "recorded_until", "sources", "derived_by", "recipe", "corrects",
            "corrected_by")


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


def tools(found: Sequence[Tool]) -> Table:
    """A tool registered for every version has an empty ``version``; for any writer, empty
    ``reporters``."""
    from vintage.graph.memory.tools import ANY_VERSION  # beside the tools, when they are listed

    return TOOLS, [(t.name, None if t.version == ANY_VERSION else t.version,
                    " ".join(t.reporters), t.event) for t in found]


def trusted(kind: str, found: Sequence[str]) -> Table:
    return TRUSTED, [(kind, s) for s in found]


def outcome(item: str, final: set[str], used: set[str]) -> str:
    """What became of a considered item: used (marked so), injected, or cut."""
    return ("used" if item in used else "injected") if item in final else "cut"


def considered(injection: Injection) -> Table:
    """The trace's considered items, best first; an item's signals as one JSON object."""
    final, used = set(injection.final), set(injection.used)
    return CONSIDERED, [
        (c["rank"], c["id"], c["score"], json.dumps(c["signals"], sort_keys=True),
         outcome(c["id"], final, used))
        for c in injection.trace["considered"]]


def cascade(summaries: Sequence[Summary]) -> Table:
    """A row per derived fact each file's corrections reached, as ``--json`` names it."""
    from vintage.ingest.batches import cascaded  # loaded by the ingest that calls this

    return CASCADE, [(s.file, *(cascaded(o)[c] for c in CASCADE[1:]))
                     for s in summaries for o in s.cascade]


def versions(exp: Explanation) -> Table:
    """A row per fact version of the upstream tree, the explained fact first (depth 0), each
    input after the fact it derives (``parent``, and its ``role`` there); ``derived_by``: the
    derivations that compute a row's own value (ids and recipes); ids space-separated."""
    rows: list[tuple[Any, ...]] = []

    def visit(step: Step, depth: int, parent: str | None, role: str | None) -> None:
        f = step.fact
        rows.append((depth, parent, role, f.id, f.subject, f.predicate, f.value, f.unit,
                     f.revision, f.kind, f.status, _iso(f.valid[0]), _iso(f.valid[1]),
                     _iso(f.knowledge[0]), _iso(f.knowledge[1]), _iso(f.system[0]),
                     _iso(f.system[1]), " ".join(s.id for s in step.sources),
                     " ".join(j.derivation.id for j in step.derived_by),
                     " ".join(j.derivation.recipe for j in step.derived_by),
                     " ".join(step.supersedes), " ".join(step.superseded_by)))
        for j in step.derived_by:
            for i in j.inputs:
                visit(i.step, depth + 1, f.id, i.role)

    visit(exp.root, 0, None, None)
    return VERSIONS, rows
