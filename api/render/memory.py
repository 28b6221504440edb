"""Rich and JSON renderings of agent-memory results. Formatting only: no store access, no logic.

Memory values, keys, subjects and ids are data: each reaches rich through
``vintage.render.terminal.safe`` (a value ``[/]`` or ``[red]x[/red]`` prints as written; control
characters are shown, not
obeyed), and ``--json`` through ``vintage.render.terminal.print_json``."""

from __future__ import annotations

import json
from collections.abc import Sequence

from rich.console import Console

from vintage.graph.core.model import Event
from vintage.graph.memory.conflicts import ConflictSet
from vintage.graph.memory.held import Held
from vintage.graph.memory.remember import Remembered
from vintage.queries.memory.recall import MemoryView
from vintage.render import listings
from vintage.render.rows import print_table_csv
from vintage.render.terminal import print_json, safe, table


def decision(console: Console, done: Remembered, as_json: bool, **extra: int) -> None:
    """A gate's decision on one write, why, and the version it left current (if any)."""
    data = {"decision": done.decision.value, "reason": done.reason, "memory": done.memory_id,
            "revision": done.revision, "event": done.event_id, **extra}
    if as_json:
        print_json(console, json.dumps(data))
    else:
        console.print(f"[bold]{done.decision.value}[/bold]: {safe(done.reason)}"
                      + (f" ({safe(done.memory_id)}, revision {done.revision})"
                         if done.memory_id else "")
                      + "".join(f"; {k} {v}" for k, v in extra.items()))


def memories(console: Console, subject: str, found: Sequence[MemoryView], as_json: bool,
             to_csv: bool = False) -> None:
    if to_csv:
        print_table_csv(*listings.memories(found))
        return
    if as_json:
        print_json(console, json.dumps([m.model_dump(mode="json") for m in found]))
        return
    grid = table(f"memories of {safe(subject)}", "id", "key", "value", "kind", "status", "rev",
                 "source", "holds", "known from", "expires", "owner", "why kept")
    for m in found:
        grid.add_row(safe(m.id), safe(m.key), safe(m.value, lines=True), safe(m.kind),
                     safe(m.status), str(m.revision),
                     safe(", ".join(f"{s.kind} {s.id}" for s in m.sources)), holds(m),
                     m.known_from.isoformat(), m.expires_at.isoformat() if m.expires_at else "",
                     safe(m.owner or ""), safe(m.retention_reason or "", lines=True))
    console.print(grid)


def holds(m: MemoryView) -> str:
    """The event time, ``from..to`` (open: ``from..``); blank for a memory stored before
    memories had one, never the epoch."""
    if m.valid_from is None:
        return ""
    return f"{m.valid_from.isoformat()}..{m.valid_to.isoformat() if m.valid_to else ''}"


def audit(console: Console, events: Sequence[Event], as_json: bool,
          to_csv: bool = False) -> None:
    if to_csv:
        print_table_csv(*listings.audit(events))
        return
    if as_json:
        print_json(console, json.dumps([e.model_dump(mode="json") for e in events]))
        return
    grid = table("audit", "at", "actor", "action", "why", "details")
    for e in events:
        grid.add_row(e.at.isoformat(), safe(e.actor), safe(e.action), safe(e.reason or ""),
                     safe(", ".join(f"{k}={v}" for k, v in e.details.items())))
    console.print(grid)


def conflicts(console: Console, sets: Sequence[ConflictSet], as_json: bool,
              held: Sequence[Held] = (), to_csv: bool = False) -> None:
    """A review: the open conflict sets (values shown: each side answers) and the candidates
    held because they read as instructions to the model (never their text)."""
    if to_csv:
        print_table_csv(*listings.review(sets, held))
        return
    if as_json:
        print_json(console, json.dumps({
            "sets": [{"subject": c.subject, "key": c.key, "scope": list(c.scope),
                      "sides": [{"id": f.id, "value": f.value,
                                 "known_from": f.available_at.isoformat()} for f in c.sides]}
                     for c in sets],
            "held": [{"id": h.memory_id, "subject": h.subject, "key": h.key,
                      "scope": list(h.scope), "why": h.why} for h in held]}))
        return
    for c in sets:
        console.print(f"[bold]{safe(c.subject)} {safe(c.key)}[/bold]: "
                      + " | ".join(f"{safe(f.value)} ({safe(f.id)})" for f in c.sides))
    if not sets:
        console.print("no open conflicts")
    for h in held:
        console.print(f"held for review: [bold]{safe(h.subject)} {safe(h.key)}[/bold] "
                      f"({safe(h.memory_id)}): {safe(h.why)}")


def forgotten(console: Console, gone: dict[str, str | int], as_json: bool) -> None:
    """What ``forget`` erased; by source, also what it kept because another source said it."""
    if as_json:
        print_json(console, json.dumps(gone))
        return
    shared = (f"; kept {gone['kept']} another source also said ({gone['released']} of them no "
              "longer held)") if gone["by"] == "source" else ""
    console.print(f"erased {gone['facts']} facts and {gone['derived']} derived from them "
                  f"(by {gone['by']}){shared}; tombstone {safe(gone['event'])}")
