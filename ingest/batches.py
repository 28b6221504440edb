"""Writing a validated file: all of it or nothing, in the order the world learned the values.

Shared by the table and companyfacts ingests (docs/semantics.md, "A file is written whole or not
at all"). Before the first write, the whole file is planned against the store in one read
transaction, exactly as the writes will plan it: a row the store would refuse (an out-of-order
correction, a source id recorded before with other attributes) is refused then, naming its
row, and nothing is written. Then the file is written in batches of ``BATCH_SIZE`` rows. On a
store that can make them one transaction (``WholeWrites``: both backends, since issue 39 on
Neo4j too) they commit together, so a crash at any point leaves the file absent or whole. On
Neo4j that transaction holds the whole file in the server's memory (about 340 MiB, two thirds
of the default heap's transaction pool, for the largest bundled file); a file too large for it
is refused whole (``TransactionTooLarge``, docs/storage.md). On a store without ``whole`` each
batch is a transaction of its own, and idempotent: a run stopped half-way is completed by
running it again.

With ``recompute``, a correction recomputes the derived facts it reaches, and a formula that
cannot be computed on the corrected input refuses the write; only writing can tell, so such a
file is written as one transaction. A dry run is one transaction too, rolled back, so that
later rows see the earlier ones exactly as a real run would.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from vintage.graph.core.model import FactIn, Scope, SourceIn, Subject
from vintage.graph.store.capabilities import WholeWrites
from vintage.graph.store.protocol import Refused, Store, StoreTx
from vintage.graph.writes.cascade import Fate, Outcome
from vintage.graph.writes.semantics import Batch, WriteReport, record, record_in
from vintage.ingest.reading import IngestError

BATCH_SIZE = 10_000
Progress = Callable[[int, int], None]  # (facts written so far, facts in the file)


@dataclass(frozen=True)
class Origin:
    """Where a fact came from, as a refusal names it: its row, the field that dates its
    source (``available_at``) and the field that names it (``source_id``)."""

    row: int
    when: str
    source: str


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
    store: Store, scope: Scope, path: Path, *, subjects: Sequence[Subject],
    sources: Mapping[str, SourceIn], facts: Sequence[FactIn], origins: Sequence[Origin],
    actor: str, recompute: bool = False, dry_run: bool = False,
    progress: Progress | None = None,
) -> Summary:
    """Write ``facts`` (already ordered by availability; ``origins[i]`` is where ``facts[i]``
    came from) whole or not at all; return the summary."""
    summary = Summary(file=path.name, dry_run=dry_run, rows=len(facts))
    whole = dry_run or recompute
    if not whole:
        used = sorted({str(f.source) for f in facts})  # as the batches will name them
        _check(store, scope, path, Batch(list(subjects), [sources[s] for s in used], facts),
               origins, actor)
    size = len(facts) if whole else BATCH_SIZE
    if isinstance(store, WholeWrites) and not dry_run:  # the batches commit as one: whole
        return store.whole(scope.tenant, lambda: _batches(
            store, scope, path, summary, size, subjects=subjects, sources=sources, facts=facts,
            origins=origins, actor=actor, recompute=recompute, dry_run=dry_run,
            progress=progress, spanned=True))
    return _batches(store, scope, path, summary, size, subjects=subjects, sources=sources,
                    facts=facts, origins=origins, actor=actor, recompute=recompute,
                    dry_run=dry_run, progress=progress, spanned=False)


def _batches(
    store: Store, scope: Scope, path: Path, summary: Summary, size: int, *,
    subjects: Sequence[Subject], sources: Mapping[str, SourceIn], facts: Sequence[FactIn],
    origins: Sequence[Origin], actor: str, recompute: bool, dry_run: bool,
    progress: Progress | None, spanned: bool,
) -> Summary:
    """The file's batches, one ``record`` each; ``spanned``: inside one transaction, so a
    refusal leaves nothing written."""
    for start in range(0, len(facts), max(size, 1)):
        chunk = facts[start:start + size]
        used = sorted({str(f.source) for f in chunk})
        try:
            report = record(
                store, scope,
                Batch(subjects=list(subjects) if start == 0 else [],
                      sources=[sources[s] for s in used], facts=chunk),
                actor=actor, reason=f"ingest {path.name}", recompute=recompute,
                dry_run=dry_run,
            )
        except Refused as exc:  # the one transaction, or a commit by another since the check
            raise _refusal(path, exc, facts, origins, written=0 if spanned else start) from None
        _add(summary, report)
        if progress is not None:
            progress(start + len(chunk), len(facts))
    summary.subjects = [s.id for s in subjects]
    summary.sources = len(sources)
    return summary


class _Checked(Exception):
    """The plan reached its first write: nothing in the file is refused."""


class _PlanOnly:
    """A transaction that reads, and ends at the first write. :func:`record_in` decides every
    row, and refuses, before it writes (vintage.graph.writes.semantics), so running it on this
    transaction plans
    the whole file against the store and writes nothing."""

    _READS = frozenset({"tenant", "versions", "top_revisions", "existing", "get_sources",
                        "get_facts", "supports_of", "read"})

    def __init__(self, tx: StoreTx) -> None:
        self._tx = tx

    def __getattr__(self, name: str) -> Any:
        if name in self._READS:
            return getattr(self._tx, name)
        raise _Checked


def _check(store: Store, scope: Scope, path: Path, batch: Batch, origins: Sequence[Origin],
           actor: str) -> None:
    def plan(tx: StoreTx) -> None:
        with contextlib.suppress(_Checked):
            record_in(cast(StoreTx, _PlanOnly(tx)), store.now(), scope, batch, actor=actor)

    try:
        store.reading(scope.tenant, plan)
    except Refused as exc:
        raise _refusal(path, exc, batch.facts, origins, written=0) from None


def _refusal(path: Path, exc: Refused, facts: Sequence[FactIn], origins: Sequence[Origin],
             written: int) -> IngestError:
    """The store's refusal, at the row it refused (the first row of a refused source)."""
    named = [i for i, f in enumerate(facts)
             if f is exc.draft or (exc.draft is None and f.source == exc.source)]
    at = min(named, key=lambda i: origins[i].row, default=None)
    if at is None:
        return IngestError(path, [(0, "-", str(exc))], written=written)
    field_name = origins[at].when if exc.draft is not None else origins[at].source
    return IngestError(path, [(origins[at].row, field_name, str(exc))], written=written)


def _add(summary: Summary, report: WriteReport) -> None:
    summary.created += len(report.created)
    summary.repeated += len(report.repeated)
    summary.superseded += report.superseded
    summary.revisions.update(report.revisions)
    summary.cascade += report.cascade
    if report.event_id is not None and not report.dry_run:
        summary.events.append(report.event_id)
