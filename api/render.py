"""Rich and JSON renderings of query results. Formatting only: no store access, no logic."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table

from queries.asof import Answer
from queries.demo import DemoResult


def when(t: datetime | None) -> str:
    if t is None:
        return "open"
    return t.date().isoformat() if t.time() == datetime.min.time() else t.isoformat()


def number(value: object, unit: str | None) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 1_000_000:
        return f"{value / 1_000_000:,.0f}M {unit or ''}".strip()
    return f"{value} {unit or ''}".strip()


def answer_json(answer: Answer) -> dict[str, Any]:
    f = answer.fact
    return {
        "id": f.id, "subject": f.subject, "predicate": f.predicate, "value": f.value,
        "unit": f.unit, "revision": f.revision, "kind": f.kind.value, "status": f.status.value,
        "valid": [f.valid_from.isoformat(), f.valid_to.isoformat() if f.valid_to else None],
        "knowledge": [f.available_at.isoformat(),
                      f.superseded_at.isoformat() if f.superseded_at else None],
        "system": [f.recorded_at.isoformat(),
                   f.invalidated_at.isoformat() if f.invalidated_at else None],
        "sources": [{"id": s.id, "kind": s.kind.value, "form": s.form, "uri": s.uri,
                     "available_at": s.available_at.isoformat()} for s in answer.sources],
    }


def answers_table(title: str, answers: Sequence[Answer]) -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("subject", "predicate", "valid", "value", "known", "until", "sources"):
        table.add_column(column)
    for a in answers:
        f = a.fact
        table.add_row(
            f.subject, f.predicate, f"{when(f.valid_from)} .. {when(f.valid_to)}",
            number(f.value, f.unit), when(f.available_at), when(f.superseded_at),
            ", ".join(f"{s.form or s.kind.value} {s.id}" for s in a.sources),
        )
    return table


def demo(console: Console, result: DemoResult) -> None:
    created = sum(len(r.created) for r in result.loaded)
    console.print(f"[bold]Vintage demo[/bold]: bundled SEC filings loaded "
                  f"({created} new fact versions this run; re-running adds none).\n")
    for asked in result.asked:
        q = asked.question
        lines = Table.grid(padding=(0, 2))
        for cutoff, answer in asked.answers:
            if answer is None:
                lines.add_row(f"as of {cutoff}", "[dim]nothing public yet[/dim]", "")
                continue
            f = answer.fact
            first = answer.sources[0] if answer.sources else None
            lines.add_row(f"as of {cutoff}", f"[bold]{number(f.value, f.unit)}[/bold]",
                          f"from {first.form} {first.id}, public {when(f.available_at)}"
                          if first else "")
        versions = Table("rev", "value", "known from", "until", "reported by",
                         box=None, pad_edge=False)
        for v in asked.history:
            versions.add_row(str(v.fact.revision), number(v.fact.value, v.fact.unit),
                             when(v.fact.available_at), when(v.fact.superseded_at),
                             ", ".join(s.id for s in v.sources))
        console.print(Panel(Group(lines, "", versions), title=q.title, title_align="left"))
