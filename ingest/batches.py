"""Writing a validated file: batches in the order the world learned the values, one summary.

Shared by the table and companyfacts ingests. A batch is one transaction; a file larger than a
batch is therefore not one transaction, but every batch is idempotent, so a run that stops
half-way is completed by running it again. A dry run writes the whole file as one transaction and
rolls it back, so that later rows see the earlier ones exactly as a real run would.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from graph.cascade import Fate, Outcome
from graph.model import FactIn, Scope, SourceIn, Subject
from graph.store import Store
from graph.writes import Batch, WriteReport, record

BATCH_SIZE = 10_000
Progress = Callable[[int, int], None]  # (facts written so far, facts in the file)


@dataclass
class Summary:
    """What a file did to the store (or would do, for a dry run)."""

    file: str
    subjects: list[str] = field(default_factory=list)
    sources: int = 0
    rows: int = 0
    created: int = 0
    repeated: int = 0
    superseded: list[tuple[str, str]] = field(default_factory=list)
    revisions: Counter[str] = field(default_factory=Counter)
    cascade: list[Outcome] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    dry_run: bool = False

    def as_data(self) -> dict[str, object]:
        return {
            "file": self.file, "dry_run": self.dry_run, "subjects": self.subjects,
            "sources": self.sources, "rows": self.rows, "facts_created": self.created,
            "support_repeats": self.repeated, "superseded": len(self.superseded),
            "revisions": dict(sorted(self.revisions.items())),
            "cascade": [cascaded(o) for o in self.cascade],
            "events": self.events,
        }


def cascaded(o: Outcome) -> dict[str, object]:
    """A derived fact a correction reached: its old value and, if recomputed, its new one."""
    new = o.replacement
    return {
        "fact": o.fact.id, "subject": o.fact.subject, "predicate": o.fact.predicate,
        "fate": o.fate.value, "depth": o.depth, "old_value": o.fact.value,
        "new_value": new.value if new is not None and o.fate is Fate.RECOMPUTED else None,
        "new_fact": new.id if new is not None else None,
    }


def write_file(
    store: Store, scope: Scope, name: str, *, subjects: Sequence[Subject],
    sources: Mapping[str, SourceIn], facts: Sequence[FactIn], actor: str,
    recompute: bool = False, dry_run: bool = False, progress: Progress | None = None,
) -> Summary:
    """Write ``facts`` (already ordered by availability) in batches; return the summary."""
    summary = Summary(file=name, dry_run=dry_run, rows=len(facts))
    size = len(facts) if dry_run else BATCH_SIZE
    for start in range(0, len(facts), max(size, 1)):
        chunk = facts[start:start + size]
        used = sorted({str(f.source) for f in chunk})
        report = record(
            store, scope,
            Batch(subjects=list(subjects) if start == 0 else [],
                  sources=[sources[s] for s in used], facts=chunk),
            actor=actor, reason=f"ingest {name}", recompute=recompute, dry_run=dry_run,
        )
        _add(summary, report)
        if progress is not None:
            progress(start + len(chunk), len(facts))
    summary.subjects = [s.id for s in subjects]
    summary.sources = len(sources)
    return summary


def _add(summary: Summary, report: WriteReport) -> None:
    summary.created += len(report.created)
    summary.repeated += len(report.repeated)
    summary.superseded += report.superseded
    summary.revisions.update(report.revisions)
    summary.cascade += report.cascade
    if report.event_id is not None and not report.dry_run:
        summary.events.append(report.event_id)
