"""Rich and JSON renderings of a search. Formatting only: no store access, no logic.

Values, keys, subjects and ids are data: each reaches rich through ``vintage.render.terminal.safe``,
and
``--json`` through ``vintage.render.terminal.print_json``."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from rich.console import Console

from vintage.queries.search.request import Found, SearchResult
from vintage.render.figures import number
from vintage.render.rows import print_csv
from vintage.render.terminal import print_json, safe, table


def result_json(found: Found) -> dict[str, Any]:
    """One result as ``vintage search --json`` prints it."""
    return {
        "id": found.id, "subject": found.subject, "predicate": found.predicate,
        "value": found.value, "unit": found.unit, "status": found.status, "score": found.score,
        "signals": found.signals,
        "sources": [s.model_dump(mode="json") for s in found.sources],
        "sources_via_inputs": found.sources_via_inputs,
        "valid": [_instant(t) for t in found.valid],
        "knowledge": [_instant(t) for t in found.knowledge],
        "stale": None if found.stale is None else found.stale.document(),
    }


def search(console: Console, result: SearchResult, as_json: bool, to_csv: bool = False) -> None:
    if to_csv:
        print_csv(result)
        return
    if as_json:
        print_json(console, json.dumps({
            "query": result.query, "mode": result.mode.value,
            "results": [result_json(f) for f in result.results],
            "excluded": result.excluded, "legal": result.legal, "matched": result.matched,
            "closed": [c.document() for c in result.closed],
            "refusal": result.refusal,
            "nothing_relevant": result.nothing_relevant,
            "relevance": None if result.verdict is None else result.verdict.document()}))
        return
    if result.nothing_relevant:  # an honest empty answer: said as such, and exit 0
        assert result.verdict is not None
        excluded = "; ".join(f"{n} {reason}" for reason, n in result.excluded.items())
        console.print(f"nothing relevant found for {safe(result.query)} "
                      f"({result.mode.value}): {safe(result.verdict.reason)}; "
                      f"{result.legal} legal items ranked"
                      + (f"; excluded: {safe(excluded)}" if excluded else ""))
    elif result.verdict is not None and not result.verdict.matched:  # not judged: said so
        console.print(f"no term in common with {safe(result.query)} "
                      f"({result.mode.value}): {safe(result.verdict.reason)}; "
                      f"{result.legal} legal items")
    else:
        _table(console, result)
    for c in result.closed:  # what the cascade closed that the read would have matched
        console.print(f"closed {safe(c.item)}: {safe(c.phrase())}")
    if result.refusal is not None:
        console.print(f"refused: {safe(result.refusal)}")


def _table(console: Console, result: SearchResult) -> None:
    grid = table(f"search {safe(result.query)} ({result.mode.value})", "#", "score", "subject",
                 "predicate", "value", "status", "valid", "sources", "id")
    for f in result.results:
        status = f.status + (f" with {', '.join(f.conflicts_with)}" if f.conflicts_with else "")
        status += " STALE" if f.stale is not None else ""
        value = number(f.value, f.unit)
        grid.add_row(str(f.rank), f"{f.score:.4f}", safe(f.subject), safe(f.predicate), value,
                     safe(status), _period(f.valid),
                     safe(", ".join(s.accession or s.id for s in f.sources)), safe(f.id))
    console.print(grid)
    excluded = "; ".join(f"{n} {reason}" for reason, n in result.excluded.items())
    unjudged = result.verdict is not None and not result.verdict.judged
    console.print(f"[dim]{len(result.results)} shown of {result.legal} legal; "
                  f"{result.matched} matched the words"
                  + (f", excluded: {safe(excluded)}" if excluded else "")
                  + (f"; relevance {safe(result.verdict.reason)}" if unjudged and result.verdict
                     else "") + "[/dim]")
    # Said after the table, one line each: which premise, why, when and by what.
    for f in result.results:
        if f.stale is not None:
            console.print(f"stale {safe(f.id)}: {safe(f.stale.phrase())}")


def indexed(console: Console, count: int, model: str, dropped: int | None = None) -> None:
    rebuilt = "" if dropped is None else f"dropped {dropped} entries, "
    console.print(f"{rebuilt}indexed {count} facts ({safe(model)})")


def _instant(t: datetime | None) -> str | None:
    return None if t is None else t.isoformat()


def _period(valid: tuple[datetime, datetime | None]) -> str:
    start, end = valid
    if start.year <= 1970 and end is None:
        return ""
    return f"{start.date().isoformat()}..{end.date().isoformat() if end else ''}"
