"""``import_graphiti``: read a Graphiti graph from the Neo4j store Vintage writes to, plan it
(``vintage.ingest.graphiti.plan``) and write it in batches, each an idempotent ``record``.

Bad input is refused before anything is read or written: an embedded store (Graphiti lives in
Neo4j), a database without a Graphiti graph, a group it does not hold. A run stopped half-way is
completed by running it again; running it again changes nothing (no event either).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pydantic import ValidationError

from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.kinds import Status
from vintage.graph.core.model import SourceIn, Subject
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.store.protocol import Store
from vintage.graph.writes.semantics import Batch, record
from vintage.ingest.graphiti import cypher
from vintage.ingest.graphiti.plan import Plan, Unit, plan_graph, scope_of
from vintage.ingest.graphiti.read import groups_in, read_graph
from vintage.ingest.graphiti.trust import align, planned_keys

BATCH_FACTS = 2_000  # facts per transaction: small enough for the server's default heap
Progress = Callable[[int, int], None]  # (records done, records in all)


@dataclass
class ImportSummary:
    tenant: str
    groups: list[str]
    trusted: list[str]
    dry_run: bool
    entities: int = 0
    episodes: int = 0
    edges: int = 0
    candidates: int = 0  # records planned as candidates (facts of an edge or an episode)
    active: int = 0
    held: int = 0  # held as candidates by the instruction gate, trust or not
    promoted: int = 0  # candidates imported before, made active now by --trust-group
    facts_created: int = 0
    support_repeats: int = 0
    unchanged: int = 0  # facts already held with that very support (a re-run)
    superseded: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    unmapped: Counter[str] = field(default_factory=Counter)
    events: list[str] = field(default_factory=list)

    def as_data(self) -> dict[str, object]:
        return {
            "tenant": self.tenant, "groups": self.groups, "trusted": self.trusted,
            "dry_run": self.dry_run, "entities": self.entities, "episodes": self.episodes,
            "edges": self.edges, "candidates": self.candidates, "active": self.active,
            "held": self.held, "promoted": self.promoted, "facts_created": self.facts_created,
            "support_repeats": self.support_repeats, "unchanged": self.unchanged,
            "superseded": self.superseded,
            "skipped": [{"record": o, "why": w} for o, w in self.skipped],
            "unmapped": dict(sorted(self.unmapped.items())), "events": self.events,
        }


def import_graphiti(
    store: Store, tenant: str, groups: Sequence[str] = (), *, actor: str,
    trusted: Sequence[str] = (), dry_run: bool = False, progress: Progress | None = None,
) -> ImportSummary:
    """Import the named groups (all the database holds when none is named) into ``tenant``,
    each into its scope ``project=<group_id>``; ``trusted`` groups' facts enter active."""
    if not isinstance(store, Neo4jStore):
        raise InvalidArgument("a Graphiti graph lives in Neo4j: give --store bolt://… (or "
                              "neo4j://…) naming the server that holds it, not an embedded store")
    present = groups_in(store.run(cypher.groups_present()))
    if not present:
        raise InvalidArgument("no Graphiti graph in this database: no node is labelled Entity "
                              "or Episodic")
    chosen = list(dict.fromkeys(groups)) or present
    known = ", ".join(present[:10]) + (" …" if len(present) > 10 else "")
    if any(g not in present for g in chosen):
        raise InvalidArgument(f"--group-id names a group this database does not hold; it "
                              f"holds: {known}")
    if any(g not in chosen for g in trusted):
        raise InvalidArgument("--trust-group names a group that is not being imported")
    for group in chosen:  # Graphiti 0.31 allows only these; an older graph may hold others
        try:
            scope_of(tenant, group)
        except ValidationError:
            raise InvalidArgument("a Graphiti group id that cannot be a scope (letters, digits "
                                  "and _.:@/- only, at most 128): import the others by "
                                  "--group-id") from None
    graph = read_graph(store.run, chosen)
    plan = plan_graph(graph, tenant, frozenset(trusted))
    keys = planned_keys(plan)
    held = store.reading(tenant, lambda tx: tx.versions(keys))
    promoted = align(plan, held, frozenset(trusted), store.now())
    summary = ImportSummary(tenant, chosen, sorted(set(trusted)), dry_run,
                            entities=len(graph.entities), episodes=len(graph.episodes),
                            edges=len(graph.edges), skipped=plan.skipped,
                            unmapped=plan.unmapped, promoted=promoted)
    _count(summary, plan)
    done, total = 0, len(plan.units)
    for group in chosen:
        for chunk in _chunks([u for u in plan.units if u.group == group]):
            _write(store, tenant, group, chunk, summary, actor)
            done += len(chunk)
            if progress is not None:
                progress(done, total)
    return summary


def _count(summary: ImportSummary, plan: Plan) -> None:
    for unit in plan.units:  # by the status its last version ends with
        active = bool(unit.facts) and unit.facts[-1].status is Status.ACTIVE
        summary.active += active
        summary.candidates += not active
        summary.held += unit.held


def _chunks(units: list[Unit]) -> list[list[Unit]]:
    """Whole units (an assertion's versions never split across transactions), about
    ``BATCH_FACTS`` facts each."""
    chunks: list[list[Unit]] = [[]]
    size = 0
    for unit in units:
        if size and size + len(unit.facts) > BATCH_FACTS:
            chunks.append([])
            size = 0
        chunks[-1].append(unit)
        size += len(unit.facts)
    return [c for c in chunks if c]


def _write(store: Store, tenant: str, group: str, chunk: list[Unit], summary: ImportSummary,
           actor: str) -> None:
    subjects: dict[str, Subject] = {}
    sources: dict[str, SourceIn] = {}
    for unit in chunk:
        subjects.update((s.id, s) for s in unit.subjects)
        sources.update((s.id, s) for s in unit.sources)
    report = record(
        store, scope_of(tenant, group),
        Batch(subjects=list(subjects.values()), sources=list(sources.values()),
              facts=[f for u in chunk for f in u.facts]),
        actor=actor, reason=f"import graphiti group {group}", dry_run=summary.dry_run,
        details={"graphiti_group": group, "trusted": group in summary.trusted},
    )
    summary.facts_created += len(report.created)
    summary.superseded += len(report.superseded)
    if report.event_id is None:  # nothing to record: every draft repeats what is held
        summary.unchanged += len(report.repeated)
        return
    summary.support_repeats += len(report.repeated)
    if report.changed:
        summary.events.append(report.event_id)
