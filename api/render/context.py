"""How ``vintage trace`` and ``vintage used`` print: an injection's trace, item verdicts, and a
use recorded. Ids and reasons go through ``vintage.render.terminal.safe``; ``--json`` through
``print_json``; ``--format csv`` is the considered items' table (``vintage.render.listings``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rich.console import Console

from vintage.queries.search.trace import Injection, Judged
from vintage.render import listings
from vintage.render.rows import print_table_csv
from vintage.render.terminal import print_json, safe, table


def _ids(ids: Sequence[str]) -> str:
    return ", ".join(safe(i) for i in ids) or "none"


def trace(console: Console, injection: Injection, judged: Sequence[Judged],
          as_json: bool, to_csv: bool = False) -> None:
    t: dict[str, Any] = injection.trace
    if to_csv:
        print_table_csv(*listings.considered(injection))
        return
    if as_json:
        print_json(console, json.dumps({
            "injection": injection.id, "thread": injection.thread,
            "at": injection.at.isoformat(), "actor": injection.actor,
            "used": list(injection.used), "trace": t,
            "items": [{"id": j.item, "verdict": j.verdict.value, "reason": j.reason}
                      for j in judged]}))
        return
    read = t["read"]
    console.print(f"[bold]injection {safe(injection.id)}[/bold] for thread "
                  f"{safe(injection.thread)}, {injection.at.isoformat()} by "
                  f"{safe(injection.actor)}")
    console.print(f"read: scope {safe(','.join(read['scope']) or 'all scopes')}, knowledge "
                  f"cutoff {safe(read['known_at'])}, system instant {safe(read['system_at'])}"
                  f"; mode {safe(t['mode'])}")
    excluded = "; ".join(f"{safe(r)} {n}" for r, n in sorted(t["excluded"].items())) or "none"
    console.print(f"candidates: {t['matched']} matched the query, {t['legal']} legal; "
                  f"excluded by hard filters: {excluded}")
    relevance = t.get("relevance") or {}  # packs built before abstention have none
    if relevance:
        verdict = "relevant" if relevance["relevant"] else "nothing relevant"
        console.print(f"relevance: {verdict}: {safe(str(relevance['reason']))}")
    console.print(f"tokens: {t['tokens']} of {t['budget']} ({safe(t['format'])}), counted "
                  f"with {safe(t['tokenizer'])}")
    grid = table("considered (best first)", "rank", "id", "score", "signals", "outcome")
    final, used = set(t["final"]), set(injection.used)
    for c in t["considered"]:
        outcome = listings.outcome(c["id"], final, used)
        signals = " ".join(f"{k} {v:.3g}" for k, v in sorted(c["signals"].items()))
        grid.add_row(str(c["rank"]), safe(c["id"]), f"{c['score']:.4g}", safe(signals),
                     outcome)
    console.print(grid)
    console.print(f"pinned constraints: {_ids(t['pinned'])}")
    for p in t["positions"]:
        mark = " (used)" if p["id"] in used else ""
        console.print(f"- {safe(p['id'])}: line {p['line']}, token {p['token']}{mark}")
    console.print(f"cut by the budget: {_ids(t['cut'])}")
    trimmed = ", ".join(f"{safe(x['id'])} ({x['tokens']} tokens)" for x in t["trimmed"])
    if trimmed:
        console.print(f"values trimmed to {t['cap']} tokens: {trimmed}")
    sources = t["sources"]
    console.print(f"source pointers: {len(sources['with'])} of {len(t['final'])} items"
                  + (f"; none for {_ids(sources['without'])}" if sources["without"] else ""))
    for j in judged:
        console.print(f"{safe(j.item)}: [bold]{j.verdict.value}[/bold]"
                      + (f" ({safe(j.reason)})" if j.reason else ""))


def used(console: Console, injection_id: str, items: Sequence[str], event_id: str,
         as_json: bool) -> None:
    if as_json:
        print_json(console, json.dumps({"injection": injection_id, "items": list(items),
                                        "event": event_id}))
        return
    console.print(f"marked used from context {safe(injection_id)}: {_ids(items)} "
                  f"(event {safe(event_id)})")
