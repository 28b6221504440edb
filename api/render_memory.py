"""Rich and JSON renderings of agent-memory results. Formatting only: no store access, no logic."""

from __future__ import annotations

import json
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from graph.memory.conflicts import ConflictSet
from graph.memory.remember import Remembered
from graph.model import Event
from queries.context import Context
from queries.recall import MemoryView


def decision(console: Console, done: Remembered, as_json: bool, **extra: int) -> None:
    """A gate's decision on one write, why, and the version it left current (if any)."""
    data = {"decision": done.decision.value, "reason": done.reason, "memory": done.memory_id,
            "revision": done.revision, "event": done.event_id, **extra}
    if as_json:
        console.print_json(json.dumps(data))
    else:
        console.print(f"[bold]{done.decision.value}[/bold]: {done.reason}"
                      + (f" ({done.memory_id}, revision {done.revision})" if done.memory_id
                         else "")
                      + "".join(f"; {k} {v}" for k, v in extra.items()))


def memories(console: Console, subject: str, found: Sequence[MemoryView], as_json: bool) -> None:
    if as_json:
        console.print_json(json.dumps([m.model_dump(mode="json") for m in found]))
        return
    table = Table(title=f"memories of {subject}", title_justify="left")
    for column in ("id", "key", "value", "kind", "status", "rev", "source", "known from",
                   "expires", "owner", "why kept"):
        table.add_column(column)
    for m in found:
        table.add_row(m.id, m.key, str(m.value), m.kind, m.status, str(m.revision),
                      ", ".join(f"{s.kind} {s.id}" for s in m.sources),
                      m.known_from.isoformat(), m.expires_at.isoformat() if m.expires_at else "",
                      m.owner or "", m.retention_reason or "")
    console.print(table)


def audit(console: Console, events: Sequence[Event], as_json: bool) -> None:
    if as_json:
        console.print_json(json.dumps([e.model_dump(mode="json") for e in events]))
        return
    table = Table(title="audit", title_justify="left")
    for column in ("at", "actor", "action", "why", "details"):
        table.add_column(column)
    for e in events:
        table.add_row(e.at.isoformat(), e.actor, e.action, e.reason or "",
                      ", ".join(f"{k}={v}" for k, v in e.details.items()))
    console.print(table)


def conflicts(console: Console, sets: Sequence[ConflictSet], as_json: bool) -> None:
    if as_json:
        console.print_json(json.dumps([
            {"subject": c.subject, "key": c.key, "scope": list(c.scope),
             "sides": [{"id": f.id, "value": f.value, "known_from": f.available_at.isoformat()}
                       for f in c.sides]} for c in sets]))
        return
    for c in sets:
        console.print(f"[bold]{c.subject} {c.key}[/bold]: "
                      + " | ".join(f"{f.value} ({f.id})" for f in c.sides))
    if not sets:
        console.print("no open conflicts")


def context(console: Console, built: Context, as_json: bool) -> None:
    if as_json:
        console.print_json(json.dumps({
            "injection": built.injection_id, "thread": built.thread, "left_out": built.left_out,
            "memories": [m.model_dump(mode="json") for m in built.memories]}))
        return
    for m in built.memories:
        flag = "" if m.status == "active" else f" [{m.status}]"
        console.print(f"- {m.key}: {m.value}{flag} ({m.id}, weight {m.weight:g})")
    console.print(f"[dim]injection {built.injection_id}; {built.left_out} left out[/dim]")
