"""Windows read off periods reported piece by piece: exact tilings and runs of quarters.

KPIs from earnings releases come as quarters, with no year-long span to hang a fiscal calendar
on. A window (``START..END``, or the latest twelve months) is then the sum of the consecutive
reported periods that tile it exactly. Consecutive is the half-open rule of the valid axis
(``vintage.graph.core.temporal``): each piece's ``valid_from`` is the previous one's ``valid_to``,
that is, it starts the day after the previous one ends, so a tiling has no gap and no overlap.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from vintage.queries.metrics.periods import ONE_DAY, Span, kind_of

__all__ = ["pieces_inside", "quarter_runs", "tiling_problems", "tilings"]

_SHOWN_PROBLEMS = 3


def pieces_inside(span: Span, reported: Iterable[Span]) -> list[Span]:
    """The reported durations inside ``span``. A one-day span is an instant (a balance at a
    day's end, by the SEC convention), never a piece of a flow, so it is left out."""
    return sorted({p for p in reported if span.contains(p) and p.days > 1})


def tilings(span: Span, reported: Iterable[Span], limit: int = 16) -> list[tuple[Span, ...]]:
    """Ways to cover ``span`` exactly with consecutive reported periods, fewest pieces first.

    Consecutive is the half-open rule of the valid axis: each piece starts the day after the
    one before it ends (its ``valid_from`` is the other's ``valid_to``), so a tiling has no gap
    and no overlap. At most ``limit`` tilings are listed; the first has the fewest pieces."""
    by_start: dict[date, list[Span]] = {}
    for p in pieces_inside(span, reported):
        by_start.setdefault(p.start, []).append(p)
    after = span.end + ONE_DAY
    # Fewest pieces from each start day to the end, filled backwards (later days first).
    steps: dict[date, int] = {after: 0}
    for day in sorted(by_start, reverse=True):
        reach = [steps[p.end + ONE_DAY] for p in by_start[day] if p.end + ONE_DAY in steps]
        if reach:
            steps[day] = 1 + min(reach)
    found: list[tuple[Span, ...]] = []
    stack: list[tuple[Span, ...]] = [()] if span.start in steps else []
    while stack and len(found) < limit:
        path = stack.pop()
        day = path[-1].end + ONE_DAY if path else span.start
        if day == after:
            found.append(path)
            continue
        options = sorted((p for p in by_start.get(day, []) if p.end + ONE_DAY in steps),
                         key=lambda p: (steps[p.end + ONE_DAY], -p.days))
        # Pushed in reverse, so the best option is explored first: the first tiling found
        # follows the fewest-pieces choice at every step.
        stack.extend((*path, p) for p in reversed(options))
    return sorted(found, key=len)


def tiling_problems(span: Span, reported: Iterable[Span]) -> list[str]:
    """Why the reported periods do not tile ``span``: each gap (days no reported period inside
    the span covers) and each overlap (two periods sharing days without one containing the
    other), the first few by date."""
    pieces = pieces_inside(span, reported)
    problems: list[tuple[date, str]] = []
    covered_to = span.start - ONE_DAY
    for p in pieces:
        if p.start > covered_to + ONE_DAY:
            problems.append((covered_to + ONE_DAY,
                             f"gap {Span(covered_to + ONE_DAY, p.start - ONE_DAY)}"))
        covered_to = max(covered_to, p.end)
    if covered_to < span.end:
        problems.append((covered_to + ONE_DAY, f"gap {Span(covered_to + ONE_DAY, span.end)}"))
    for i, a in enumerate(pieces):
        for b in pieces[i + 1:]:
            if a.start < b.start <= a.end < b.end:
                problems.append((b.start, f"overlap {Span(b.start, a.end)} ({a} and {b})"))
    problems.sort()
    shown = [text for _, text in problems[:_SHOWN_PROBLEMS]]
    if len(problems) > _SHOWN_PROBLEMS:
        shown.append(f"and {len(problems) - _SHOWN_PROBLEMS} more")
    return shown


def quarter_runs(spans: Iterable[Span], length: int = 4, limit: int = 8) -> list[Span]:
    """The windows covered by ``length`` consecutive quarter-long spans, latest end first
    (latest start first among windows ending on one day): trailing twelve months from quarters
    alone, with no fiscal calendar."""
    quarters = {s for s in spans if kind_of(s) == "quarter"}
    ending: dict[date, list[Span]] = {}
    for q in quarters:
        ending.setdefault(q.end, []).append(q)
    windows: set[Span] = set()
    for last in sorted(quarters, key=lambda q: (q.end, q.start), reverse=True):
        if len(windows) >= limit:
            break
        firsts = [last]
        for _ in range(length - 1):
            firsts = list({p for q in firsts for p in ending.get(q.start - ONE_DAY, [])})
        windows.update(Span(first.start, last.end) for first in firsts)
    return sorted(windows, key=lambda w: (w.end, w.start), reverse=True)[:limit]
