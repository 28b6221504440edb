"""Laying a context pack out and cutting it to a token budget (docs/retrieval.md, "Context packs
and the injection trace").

The pack is a header, a stable prefix of pinned constraints and the evidence, one item a line.
Items are kept in units: a pinned constraint, a conflict set (its sides together, adjacent, so a
side is never shown without the others) or one evidence item. When the budget is short the
critical units go first (pinned constraints, then conflict sets, each best-ranked first), then
the rest by rank; every unit keeps its skeleton (id, status, time, source pointer) whole, and only
text values are trimmed, to one cap common to all of them. The largest prefix of units that fits
with values trimmed to ``FLOOR`` tokens is kept (so values are trimmed before any unit is dropped),
then the cap is raised as far as the budget allows. Every candidate layout is counted whole with
the real tokenizer, so the pack handed over never exceeds the budget.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from vintage.graph.core.errors import InvalidArgument
from vintage.queries.search.items import (
    Counter,
    Format,
    Item,
    Trimmer,
    json_line,
    markdown_line,
    one_line,
)

FLOOR = 16  # tokens a trimmed value keeps at least before whole units are dropped


@dataclass(frozen=True)
class Header:
    injection: str
    thread: str
    budget: int
    tokenizer: str
    cutoff: datetime
    required: str | None = None  # the read's minimum authority, in words ("authoritative or
    # above"): said in the header, and where no evidence holds it
    # Said in the evidence section when the search found nothing relevant (``pack.abstained``):
    # the pack says so rather than handing over the best of what is irrelevant.
    nothing_relevant: str | None = None
    # Said there instead when the search could not judge: a keyword or exact search that shared
    # no term with any legal item (``abstain.Verdict.matched``): no evidence, not "nothing known".
    unjudged: str | None = None


@dataclass(frozen=True)
class Rendered:
    text: str
    shown: tuple[str, ...]  # item ids, in the order they appear
    lines: dict[str, int]  # item id -> its line (1-based)
    trimmed: tuple[str, ...]  # items whose value was cut to the cap


@dataclass(frozen=True)
class Position:
    id: str
    line: int  # 1-based line of the rendered text
    token: int  # tokens of the text before that line


@dataclass(frozen=True)
class Fitted:
    rendered: Rendered
    tokens: int
    cap: int | None  # the common value cap (None: no value was trimmed)
    cut: tuple[str, ...]  # items left out by the budget, best-ranked first
    positions: tuple[Position, ...]
    value_tokens: dict[str, int]  # tokens each trimmed item's value had
    item_tokens: dict[str, int] = field(default_factory=dict)  # each shown item's line

    @property
    def header_tokens(self) -> int:
        """Everything that is not an item's line: the header, section titles, brackets."""
        return self.tokens - sum(self.item_tokens.values())


def units(items: Sequence[Item]) -> list[tuple[Item, ...]]:
    """The items grouped into their conflict sets (sides in rank order, the set placed where
    its best-ranked side is), each other item alone, in ``items``' order."""
    # Either side naming the other links them: a set is whole even if one side's list is short.
    linked: dict[str, set[str]] = {i.id: set() for i in items}
    for item in items:
        for other in item.conflicts_with:
            if other in linked and other != item.id:
                linked[item.id].add(other)
                linked[other].add(item.id)
    seen: set[str] = set()
    grouped: list[tuple[Item, ...]] = []
    for item in items:
        if item.id in seen:
            continue
        group, todo = {item.id}, [item.id]
        while todo:
            for other in linked[todo.pop()]:
                if other not in group:
                    group.add(other)
                    todo.append(other)
        seen |= group
        grouped.append(tuple(i for i in items if i.id in group))
    return grouped


@dataclass(frozen=True)
class Layout:
    header: Header
    fmt: Format
    pinned: tuple[Item, ...]  # the stable prefix, in its stable order
    evidence: tuple[Item, ...]  # best-ranked first

    def keep_order(self) -> list[tuple[Item, ...]]:
        """Units in the order the budget keeps them: pinned, conflict sets, the rest."""
        pinned, evidence = units(self.pinned), units(self.evidence)
        sets = [u for u in evidence if len(u) > 1 or u[0].conflicts_with]
        return pinned + sets + [u for u in evidence if u not in sets]

    def render(self, keep: frozenset[str], cap: int | None, trimmer: Trimmer) -> Rendered:
        pinned = [i for u in units(self.pinned) for i in u if i.id in keep]
        evidence = [i for u in units(self.evidence) for i in u if i.id in keep]
        numbers = {i.id: n for n, i in enumerate(pinned + evidence, start=1)}
        lines = self._head()
        where: dict[str, int] = {}
        trimmed: list[str] = []
        for title, section in (("constraints", pinned), ("evidence", evidence)):
            lines.append(f'"{title}":[' if self.fmt is Format.JSON else f"## {title.title()}")
            for k, item in enumerate(section):
                value, cut = trimmer.shown(item, cap)
                line = (markdown_line(item, numbers[item.id], numbers, (value, cut))
                        if self.fmt is Format.MARKDOWN else
                        json_line(item, numbers[item.id], (value, cut)))
                more = self.fmt is Format.JSON and k < len(section) - 1
                lines.append(line + "," if more else line)
                where[item.id] = len(lines)
                if cut:
                    trimmed.append(item.id)
            if self.fmt is Format.JSON:
                lines.append("]," if title == "constraints" else "]}")
            elif title == "evidence" and not section and (note := self.header.nothing_relevant
                                                          or self.header.unjudged):
                lines.append(one_line(note))
            elif not section:
                lines.append("(none)" if self.header.required is None or title != "evidence"
                             else f"(none: nothing holds {self.header.required})")
        shown = tuple(i.id for i in pinned + evidence)
        return Rendered("\n".join(lines), shown, where, tuple(trimmed))

    def _head(self) -> list[str]:
        h = self.header
        cutoff = h.cutoff.isoformat().replace("+00:00", "Z")
        if self.fmt is Format.MARKDOWN:
            required = "" if h.required is None else f"; requires authority {h.required}"
            return [one_line(f"# Context for thread {h.thread}"),
                    one_line(f"injection {h.injection}; knowledge cutoff {cutoff}; budget "
                             f"{h.budget} tokens, counted with {h.tokenizer}{required}")]
        head: dict[str, object] = {"injection": h.injection, "thread": h.thread,
                                   "cutoff": cutoff, "budget": h.budget,
                                   "tokenizer": h.tokenizer}
        if h.required is not None:
            head["requires"] = h.required
        if h.nothing_relevant:
            head["nothing_relevant"] = h.nothing_relevant
        if h.unjudged:
            head["unjudged"] = h.unjudged
        return ['{"context":' + one_line(json.dumps(head, ensure_ascii=False,
                                                    separators=(",", ":"))) + ","]


def empty_fits(layout: Layout, budget: int, counter: Counter) -> None:
    """Refuse a budget that cannot hold the pack's header and empty sections."""
    if budget < 1:
        raise InvalidArgument(f"a budget is a positive number of tokens, not {budget}")
    bare = counter.count(layout.render(frozenset(), None, Trimmer(counter)).text)
    if bare > budget:
        raise InvalidArgument(f"a budget of {budget} tokens cannot hold even the context's "
                              f"header ({bare} tokens, counted with {counter.name})")


def fit(layout: Layout, budget: int, counter: Counter) -> Fitted:
    """The pack cut to ``budget`` tokens (see the module's docstring)."""
    order = layout.keep_order()
    trimmer = Trimmer(counter)
    everything = [i for u in order for i in u]
    floor = min(FLOOR, max((trimmer.size(i) for i in everything), default=0))

    def kept(n: int) -> frozenset[str]:
        return frozenset(i.id for u in order[:n] for i in u)

    def counted(n: int, cap: int) -> tuple[Rendered, int]:
        shown = layout.render(kept(n), cap, trimmer)
        return shown, counter.count(shown.text)

    n = _largest(0, len(order), lambda k: counted(k, floor)[1] <= budget)
    rendered, tokens = counted(n, floor)
    if tokens > budget:  # n = 0 always fits once empty_fits passed
        raise InvalidArgument(f"a budget of {budget} tokens cannot hold the context's header")
    sizes = [trimmer.size(i) for i in everything if i.id in rendered.lines]
    cap, rendered, tokens = _raise_cap(lambda c: counted(n, c), budget, sizes, floor,
                                       (rendered, tokens))
    positions, offset, item_tokens = [], 0, {}
    lines = rendered.text.split("\n")
    at = {line: i for i, line in rendered.lines.items()}
    for number, line in enumerate(lines, start=1):
        size = counter.count(line)  # no token spans a line break
        if number in at:
            positions.append(Position(at[number], number, offset))
            item_tokens[at[number]] = size
        offset += size
    cut = tuple(i.id for i in sorted(everything, key=lambda i: (i.rank, i.id))
                if i.id not in rendered.lines)
    return Fitted(rendered, tokens, cap if rendered.trimmed else None, cut, tuple(positions),
                  {i.id: trimmer.size(i) for i in everything if i.id in rendered.trimmed},
                  item_tokens)


def _largest(low: int, high: int, ok: Callable[[int], bool]) -> int:
    """The largest k in [low, high] with ``ok(k)``, ``ok(low)`` taken as true (``ok`` is
    monotone: fewer units never count more tokens)."""
    while low < high:
        middle = (low + high + 1) // 2
        if ok(middle):
            low = middle
        else:
            high = middle - 1
    return low


ROUNDS = 8


def _raise_cap(counted: Callable[[int], tuple[Rendered, int]], budget: int, sizes: list[int],
               floor: int, start: tuple[Rendered, int]) -> tuple[int, Rendered, int]:
    """The highest common cap the budget allows, from ``floor`` (which fits: ``start``). Each
    round aims at the cap the values' own token counts say the room left allows, counts the
    whole pack there, and keeps it only if it fits; an overshoot shrinks the room aimed at."""
    cap, (shown, tokens) = floor, start
    room = budget - tokens
    for _ in range(ROUNDS):
        target = _aim(sizes, cap, room)
        if target <= cap:
            break
        trial, used = counted(target)
        if used <= budget:
            cap, shown, tokens = target, trial, used
            room = budget - used
        else:
            room -= used - budget
    return cap, shown, tokens


def _aim(sizes: list[int], cap: int, room: int) -> int:
    """The largest cap whose values take at most ``room`` tokens more than at ``cap``."""
    now = sum(min(s, cap) for s in sizes)
    return _largest(cap, max(sizes, default=cap),
                    lambda c: sum(min(s, c) for s in sizes) - now <= room)
