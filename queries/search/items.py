"""One item of a context pack, and the line it is written as (markdown or a JSON line).

An item is a fact version an agent is handed: its value (a text value possibly trimmed to a
token cap), unit, period or observation time, status (a conflicted item names the other sides),
where it comes from (the first source's id, accession and URI; "+N more" when several support
it) and the id to drill down with ``vintage explain``. The line is one line whatever the value
holds: text is written as a JSON string, and the characters that could split, reorder or hide a
line (controls, bidirectional marks, line separators) are written as ``\\uXXXX`` escapes, so a
value can never fake an item, a heading or an instruction line of its own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, time
from enum import StrEnum
from typing import Any, Protocol

from vintage.graph.core.model import Fact, Source, Value
from vintage.graph.memory.conflicts import VARIANT
from vintage.graph.memory.gate import MEMORY_EPOCH
from vintage.queries.lineage.staleness import Stale
from vintage.queries.lineage.views import SourceView

# C0, DEL, C1, and the invisible characters that reorder or split text.
_HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u00ad\u061c\u200b-\u200f\u2028-\u202e"
                     "\u2060-\u2069\ufeff]")
TRIMMED = "[trimmed]"


class Format(StrEnum):
    MARKDOWN = "markdown"
    JSON = "json"


class Counter(Protocol):
    """What a pack counts with (``vintage.graph.retrieval.counting.token_counter``)."""

    @property
    def name(self) -> str: ...
    def count(self, text: str) -> int: ...
    def truncate(self, text: str, max_tokens: int) -> str: ...


@dataclass(frozen=True)
class Item:
    id: str
    subject: str
    predicate: str
    value: Value
    unit: str | None
    status: str
    valid: tuple[datetime, datetime | None]
    known_from: datetime
    sources: tuple[SourceView, ...]
    conflicts_with: tuple[str, ...] = ()
    rank: int = 0  # in the search's considered list (pinned constraints: 0)
    score: float = 0.0
    signals: Mapping[str, float] = field(default_factory=dict)
    stale: Stale | None = None  # a premise it rests on stopped holding (said on its line)
    # ``sources`` are its inputs' (a derived figure or a summary cites none of its own).
    sources_via_inputs: bool = False

    @classmethod
    def of_fact(cls, fact: Fact, sources: tuple[Source, ...],
                conflicts_with: tuple[str, ...] = ()) -> Item:
        return cls(id=fact.id, subject=fact.subject, predicate=fact.predicate,
                   value=fact.value, unit=fact.unit, status=fact.status.value,
                   valid=(fact.valid_from, fact.valid_to), known_from=fact.available_at,
                   sources=tuple(SourceView.of(s) for s in sources),
                   conflicts_with=conflicts_with)


def one_line(text: str) -> str:
    """``text`` with every character that could break or disguise a line escaped."""
    return _HIDDEN.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class Trimmer:
    """Each text value's token count, and its prefix cut to a cap, each computed once."""

    # A token spans at most this many characters but for runs of spaces: a cut is searched in
    # a prefix this long first, which is much cheaper than tokenising a long value whole.
    CHARS_PER_TOKEN = 24

    def __init__(self, counter: Counter) -> None:
        self.counter = counter
        self._sizes: dict[str, int] = {}
        self._cuts: dict[tuple[str, int], str] = {}

    def size(self, item: Item) -> int:
        """Tokens the value's text holds (0: not text; only text is ever trimmed)."""
        if not isinstance(item.value, str):
            return 0
        if item.id not in self._sizes:
            self._sizes[item.id] = self.counter.count(item.value)
        return self._sizes[item.id]

    def shown(self, item: Item, cap: int | None) -> tuple[Value, bool]:
        """The value cut to ``cap`` tokens (None: whole), and whether it was cut."""
        value = item.value
        if cap is None or not isinstance(value, str) or self.size(item) <= cap:
            return value, False
        if (item.id, cap) not in self._cuts:
            head = value[:cap * self.CHARS_PER_TOKEN]
            whole = head == value or self.counter.count(head) <= cap
            self._cuts[item.id, cap] = self.counter.truncate(value if whole else head, cap)
        return self._cuts[item.id, cap], True


def _instant(at: datetime) -> str:
    at = at.astimezone(UTC)
    if at.timetz() == time(tzinfo=UTC):
        return at.date().isoformat()
    return at.isoformat().replace("+00:00", "Z")


def _time(item: Item) -> tuple[str, str, str | None]:
    """("observed", when, None) for a memory that holds from when it was said, open-ended (a
    statement about the present; or one stored before memories had an event time, valid from
    the epoch), else ("valid", from, to): "moved to Shanghai in March 2025"."""
    start, end = item.valid
    if start in (MEMORY_EPOCH, item.known_from) and end is None:
        return "observed", _instant(item.known_from), None
    return "valid", _instant(start), None if end is None else _instant(end)


def _unit(item: Item) -> str | None:
    # A conflict variant's unit is the engine's bookkeeping, not a unit of the value.
    return None if item.unit is None or item.unit.startswith(VARIANT) else item.unit


def _pointer(s: SourceView) -> dict[str, Any]:
    return {k: v for k, v in (("id", s.id), ("kind", s.kind), ("accession", s.accession),
                              ("uri", s.uri)) if v is not None and (k != "accession"
                                                                    or v != s.id)}


def markdown_line(item: Item, n: int, numbers: Mapping[str, int],
                  shown: tuple[Value, bool]) -> str:
    """``- [n] subject predicate = value unit | status | time | source | explain id``, with
    the value as ``Trimmer.shown`` gives it."""
    value, cut = shown
    unit = _unit(item)
    text = json.dumps(value, ensure_ascii=False) + (f" {TRIMMED}" if cut else "")
    status = item.status
    if item.conflicts_with:
        sides = ", ".join(f"[{numbers[i]}]" if i in numbers else i
                          for i in item.conflicts_with)
        status += f" with {sides}"
    word, start, end = _time(item)
    when = f"{word} {start}" if word == "observed" else f"{word} {start}..{end or ''}"
    source = "source none"
    if item.sources:
        first = _pointer(item.sources[0])
        # A derived figure or a summary names what its inputs cite, and says so.
        word = "source via inputs " if item.sources_via_inputs else "source "
        source = word + " ".join(str(first[k]) for k in ("id", "accession", "uri")
                                 if k in first) + f" ({first['kind']})"
        if len(item.sources) > 1:
            source += f" +{len(item.sources) - 1} more"
    # Said on the item's own line, so no cut of the pack separates a value from its warning.
    stale = f" | STALE: {item.stale.phrase()}" if item.stale is not None else ""
    line = (f"- [{n}] {item.subject} {item.predicate} = {text}{' ' + unit if unit else ''}"
            f" | {status} | {when} | {source}{stale} | explain {item.id}")
    return one_line(line)


def json_line(item: Item, n: int, shown: tuple[Value, bool]) -> str:
    """The item as one JSON object on one line."""
    value, cut = shown
    word, start, end = _time(item)
    doc: dict[str, Any] = {"n": n, "id": item.id, "subject": item.subject,
                           "key": item.predicate, "value": value}
    if cut:
        doc["trimmed"] = True
    unit = _unit(item)
    if unit is not None:
        doc["unit"] = unit
    doc["status"] = item.status
    if item.conflicts_with:
        doc["conflicts_with"] = list(item.conflicts_with)
    doc[word] = start if word == "observed" else [start, end]
    doc["source"] = _pointer(item.sources[0]) if item.sources else None
    if len(item.sources) > 1:
        doc["more_sources"] = len(item.sources) - 1
    if item.sources_via_inputs:
        doc["source_of"] = "inputs"
    if item.stale is not None:
        doc["stale"] = item.stale.document()
    return one_line(json.dumps(doc, ensure_ascii=False, separators=(",", ":")))
