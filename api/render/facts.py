"""Rich and JSON renderings of query results. Formatting only: no store access, no logic.

Every value is data: it reaches rich through ``vintage.render.terminal.safe`` (markup escaped,
control
characters shown), and tables come from ``vintage.render.terminal.table`` (columns fold,
never cut)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table

from vintage.demo import DemoResult
from vintage.graph.writes.corrections import ExitReport
from vintage.ingest.batches import Summary
from vintage.queries.lineage.asof import Answer
from vintage.queries.lineage.impact import Impact
from vintage.queries.metrics.answers import MetricAnswer
from vintage.render.explain import explanation
from vintage.render.figures import number, when
from vintage.render.rows import print_csv
from vintage.render.terminal import print_json, safe, table

# impact's "already revised" column: a filed revision and a recomputed derivation apart.
_REVISION = {"filed": "filed revision", "recomputed": "recomputed derivation",
             "closed": "closed derivation"}

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
        "stale": None if answer.stale is None else answer.stale.document(),
    }


def answers_table(title: str, answers: Sequence[Answer]) -> Table:
    grid = table(safe(title), "subject", "predicate", "valid", "value", "known", "until",
                 "sources")
    for a in answers:
        f = a.fact
        grid.add_row(
            safe(f.subject), safe(f.predicate), f"{when(f.valid_from)}..{when(f.valid_to)}",
            number(f.value, f.unit) + (f" (STALE: {safe(a.stale.phrase())})" if a.stale else ""),
            when(f.available_at), when(f.superseded_at),
            safe(", ".join(f"{s.form or s.kind.value} {s.id}" for s in a.sources)),
        )
    return grid


def demo(console: Console, result: DemoResult) -> None:
    created = sum(s.created for s in result.loaded)
    console.print(f"[bold]Vintage demo[/bold]: bundled SEC companyfacts replayed in filing order "
                  f"({created} new fact versions this run; re-running adds none).\n")
    for name in dict.fromkeys(a.metric for _, a in result.margins):
        lines = Table.grid(padding=(0, 2))
        for cutoff, metric in result.margins:
            if metric.metric != name:
                continue
            (s,) = metric.answers
            public = ", ".join(sorted({when(i.available_at) for i in s.inputs}))
            lines.add_row(f"as of {cutoff}", f"[bold]{number(s.value, s.unit)}[/bold]",
                          f"{safe(s.method)}; inputs public {public}")
        console.print(Panel(lines, title=f"Alphabet {name.replace('_', ' ')}, FY2018Q1 "
                            "(vintage asof)", title_align="left"))
    cascade = [o for s in result.loaded for o in s.cascade]
    for o in cascade:
        new = o.replacement.value if o.replacement is not None else None
        console.print(f"the recast reached {safe(o.fact.predicate)}: {o.fate.value}, "
                      f"{number(o.fact.value, o.fact.unit)} -> {number(new, o.fact.unit)}")
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
                          f"from {safe(first.form)} {safe(first.id)}, public "
                          f"{when(f.available_at)}"
                          if first else "")
        versions = Table(box=None, pad_edge=False)
        for header in ("rev", "value", "known from", "until", "reported by"):
            versions.add_column(header, overflow="fold")  # an accession folds, never cut
        for v in asked.history:
            versions.add_row(str(v.fact.revision), number(v.fact.value, v.fact.unit),
                             when(v.fact.available_at), when(v.fact.superseded_at),
                             safe(", ".join(s.id for s in v.sources)))
        console.print(Panel(Group(lines, "", versions), title=safe(q.title), title_align="left"))
    console.print("\n[bold]Why is the operating margin what it is?[/bold] (vintage explain)")
    explanation(console, result.explained)
    console.print("\n[bold]What did the 2019 filing reach?[/bold] (vintage impact --source)")
    impact(console, result.impact)


def impact_table(result: Impact) -> Table:
    depths = ", ".join(f"{n} at depth {d}" for d, n in result.by_depth.items())
    kinds = ", ".join(f"{n} {kind}" for kind, n in result.by_kind.items())
    grid = table(safe(f"impact of {result.start} {result.start_id}: "
                      f"{len(result.changed)} changed, {len(result.also_supported)} kept by "
                      f"other sources, {len(result.affected)} downstream"
                      + (f" ({depths}; {kinds})" if result.affected else "")),
                 "depth", "fact", "value", "known", "survives", "path")
    for r in result.affected:
        f = r.fact
        grid.add_row(str(r.depth), safe(f"{f.subject} {f.predicate}"), number(f.value, f.unit),
                     f"{when(f.knowledge[0])}..{when(f.knowledge[1])}",
                     "yes" if r.survives else "no", safe(" -> ".join(r.path)))
    return grid


def ingest_summary(console: Console, s: Summary) -> None:
    verb = "would change (dry run, nothing written)" if s.dry_run else "ingested"
    classes = ", ".join(f"{n} {c}" for c, n in sorted(s.revisions.items())) or "none"
    console.print(
        f"[bold]{safe(s.file)}[/bold] {verb}: subject {safe(', '.join(s.subjects))}; "
        f"{s.sources} sources; {s.rows} rows -> {s.created} new fact versions, {s.repeated} "
        f"repeats as support, {len(s.superseded)} superseded (revisions: {safe(classes)})")
    if s.cascade:
        grid = table("derived facts reached", "predicate", "subject", "fate", "old value",
                     "new value")
        for o in s.cascade:
            new = o.replacement.value if o.replacement is not None else None
            grid.add_row(safe(o.fact.predicate), safe(o.fact.subject), o.fate.value,
                         number(o.fact.value, o.fact.unit),
                         "" if new is None else number(new, o.fact.unit))
        console.print(grid)


def metric_answer(console: Console, a: MetricAnswer) -> None:
    grid = table(safe(f"{a.metric} as of {when(a.cutoff)} ({a.period})"), "subject", "value",
                 "period", "days", "method", "inputs", "derivation")
    for s in a.answers:
        if s.refused is not None:
            grid.add_row(safe(s.subject), "[red]refused[/red]", "", "", safe(s.refused), "", "")
            continue
        grid.add_row(safe(s.subject), number(s.value, s.unit), safe(s.period or ""),
                     safe(s.span or ""), safe(s.method or ""), str(len(s.inputs)),
                     safe(s.derivation_id or "(as filed)"))
    console.print(grid)
    for s in a.answers:
        if s.inputs:  # which concept answered: a built-in metric has several aliases
            concepts = ", ".join(dict.fromkeys(i.predicate for i in s.inputs))
            console.print(f"{safe(s.subject)}: from {safe(concepts)}")
        for warning in s.warnings:
            console.print(f"[yellow]{safe(s.subject)}:[/yellow] {safe(warning)}")
        if s.stale is not None:  # a premise restated by the cutoff: said, never silent
            console.print(f"[red]{safe(s.subject)} STALE:[/red] {safe(s.stale.phrase())}")
        for later in s.hindsight or []:  # asked for with --hindsight: after the cutoff
            console.print(f"[magenta]{safe(s.subject)} (hindsight):[/magenta] {safe(later)}")


def metric_answers(console: Console, answers: Sequence[MetricAnswer], as_json: bool,
                   to_csv: bool = False) -> None:
    """``vintage asof``'s answer: one cutoff as ``metric_answer``; several as one table with a
    column per cutoff (``--json``: a list of the answers, one per cutoff; CSV: a row per
    company and cutoff)."""
    if to_csv:
        print_csv(answers)
    elif as_json:
        documents = [json.loads(a.model_dump_json()) for a in answers]
        print_json(console, json.dumps(documents[0] if len(documents) == 1 else documents))
    elif len(answers) == 1:
        metric_answer(console, answers[0])
    else:
        across_cutoffs(console, answers)


def across_cutoffs(console: Console, answers: Sequence[MetricAnswer]) -> None:
    first = answers[0]
    grid = table(safe(f"{first.metric} ({first.period})"), "subject",
                 *(f"as of {when(a.cutoff)}" for a in answers))
    by_subject = [{s.subject: s for s in a.answers} for a in answers]
    for subject in (s.subject for s in first.answers):
        cells = []
        for held in by_subject:
            s = held[subject]
            cells.append("[red]refused[/red]" if s.refused is not None
                         else f"{number(s.value, s.unit)}\n{safe(s.period or '')}")
        grid.add_row(safe(subject), *cells)
    console.print(grid)
    for a in answers:
        for s in a.answers:
            said = [*(s.warnings), *([f"STALE: {s.stale.phrase()}"] if s.stale else []),
                    *(s.hindsight or []), *([s.refused] if s.refused else [])]
            for line in said:
                console.print(f"[yellow]as of {when(a.cutoff)}, {safe(s.subject)}:[/yellow] "
                              f"{safe(line)}")


def impact_out(console: Console, result: Impact, as_json: bool, to_csv: bool) -> None:
    """``vintage impact``'s answer in the format asked for."""
    if to_csv:
        print_csv(result)
    elif as_json:
        print_json(console, result.model_dump_json())
    else:
        impact(console, result)


def impact(console: Console, result: Impact) -> None:
    console.print(impact_table(result))
    if not result.revised:
        return
    grid = table(safe(f"already revised by {result.start_id}"), "fact", "valid", "old value",
                 "new value", "revision", "change")
    for r in result.revised:
        f = r.old
        # A filed figure's class, "unclassified" when nobody told it (a KPI table's): never
        # "recomputed", which a derived fact alone is.
        change = r.change or ("unclassified" if r.revision == "filed" else "")
        grid.add_row(safe(f"{f.subject} {f.predicate}"),
                     f"{when(f.valid[0])}..{when(f.valid[1])}", number(f.value, f.unit),
                     number(r.new.value, r.new.unit) if r.new else "closed, not recomputed",
                     _REVISION[r.revision], safe(change))
    console.print(grid)


def retraction(console: Console, report: ExitReport, undo: bool, as_json: bool) -> None:
    """What a retraction (or its undoing) did: the facts it changed and the cascade's fates."""
    cascade = [{"fact": o.fact.id, "predicate": o.fact.predicate, "fate": o.fate.value,
                "depth": o.depth} for o in report.cascade]
    # The versions the departed (or returning) ones had corrected: current again, or closed
    # again where they were (vintage.graph.writes.reinstate).
    knowledge = [{"fact": o.fact.id, "predicate": o.fact.predicate, "fate": o.fate.value,
                  "known_until": o.ends_at.isoformat() if o.ends_at else None}
                 for o in report.knowledge]
    if as_json:
        print_json(console, json.dumps({"event": report.event_id, "facts": report.invalidated,
                                        "cascade": cascade, "knowledge": knowledge}))
        return
    verb = "held again" if undo else "left without support"
    console.print(f"{len(report.invalidated)} facts {verb}; cascade: "
                  + safe(", ".join(f"{c['predicate']} {c['fate']}" for c in cascade)
                         or "nothing downstream"))
    if knowledge:
        console.print("knowledge: " + safe(", ".join(
            f"{k['predicate']} {'current again' if k['known_until'] is None else 'closed at '}"
            f"{k['known_until'] or ''}" for k in knowledge)))
