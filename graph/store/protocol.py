"""The storage boundary: the primitives each backend implements, and nothing more.

Semantics (idempotency, supersede, compare-and-set, the as-of predicate) live above this line,
written once (``vintage.graph.writes.semantics``, ``vintage.graph.core.asof``). A backend only has
to store records atomically, answer the compiled as-of predicate inside its own query, and walk
lineage edges.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol, TypeVar

from vintage.graph.core.asof import AsOf
from vintage.graph.core.errors import UserError
from vintage.graph.core.labels import LINEAGE_TYPES
from vintage.graph.core.model import DerivationIn, Event, Fact, FactIn, Scope, Source, Subject
from vintage.graph.writes.reach import Downstream

T = TypeVar("T")
Cited = tuple[Fact, tuple[Source, ...]]  # a fact with the sources it cites at a read
Clock = Callable[[], datetime]


class StoreError(UserError, RuntimeError):
    """The store refused an operation; nothing of it was written."""


class StoreUnreachable(StoreError):
    """The store's server did not answer: nothing was read or written (retry; check the URI)."""


class ConflictError(StoreError):
    """A compare-and-set saw another revision than the caller expected."""


class CrossTenant(StoreError):
    """A transaction of one tenant asked to read another's facts. Scope fails closed."""


def check_tenant(tx_tenant: str, scope: Scope) -> None:
    if scope.tenant != tx_tenant:
        raise CrossTenant(f"a transaction of tenant {tx_tenant!r} cannot read tenant "
                          f"{scope.tenant!r}")


class UnknownReference(StoreError):
    """A write names a subject, source or fact that does not exist in its tenant."""


class Refused(StoreError):
    """A write refused for one ``draft`` of its batch (an out-of-order correction) or one
    ``source`` id (recorded before with other attributes): a file ingest names its row."""

    def __init__(self, message: str, draft: FactIn | None = None, source: str | None = None):
        super().__init__(message)
        self.draft, self.source = draft, source


@dataclass(frozen=True, slots=True)
class Support:
    fact_id: str
    source_id: str
    available_at: datetime
    recorded_at: datetime


@dataclass(frozen=True, slots=True)
class Closure:
    """Close a fact's knowledge interval at ``superseded_at``, learned at ``recorded_at``."""

    fact_id: str
    superseded_at: datetime
    recorded_at: datetime


@dataclass(frozen=True, slots=True)
class KnowledgeEnd:
    """From system instant ``recorded_at`` on, a fact's knowledge interval ends at
    ``superseded_at`` (None: open again). The closure it had until then is kept as a past
    closure that held up to ``recorded_at``, so reads at earlier system instants still see it."""

    fact_id: str
    superseded_at: datetime | None
    recorded_at: datetime


@dataclass(frozen=True, slots=True)
class Supersession:
    new_id: str
    old_id: str
    source_id: str
    at: datetime
    recorded_at: datetime


@dataclass(frozen=True, slots=True)
class Invalidation:
    """The engine stops holding a fact at ``at`` (system time); history keeps it."""

    fact_id: str
    at: datetime


@dataclass(frozen=True, slots=True)
class Conflict:
    """Two current facts that disagree with no rule to choose: ``CONFLICTS_WITH``."""

    fact_id: str
    other_id: str
    recorded_at: datetime


@dataclass(frozen=True, slots=True)
class Erasure:
    """Remove a fact's content (value, retention reason) at ``at``; a shell stays for lineage."""

    fact_id: str
    at: datetime


@dataclass(frozen=True, slots=True)
class Retraction:
    """A fact loses the support of one source at ``at`` (system time)."""

    fact_id: str
    source_id: str
    at: datetime


@dataclass(frozen=True, slots=True)
class Reopening:
    """The engine holds a fact again from ``at``; the stretch it did not becomes a gap."""

    fact_id: str
    at: datetime


@dataclass(frozen=True, slots=True)
class Restoration:
    """A retracted support edge holds again from ``at``."""

    fact_id: str
    source_id: str
    at: datetime


@dataclass(frozen=True, slots=True)
class DerivationWrite:
    derivation: DerivationIn
    used: tuple[tuple[str, str], ...]  # (fact id, role)
    generated: tuple[str, ...]
    recorded_at: datetime


@dataclass(frozen=True, slots=True)
class Confirmation:
    """When a fact was first reported (and by which source) and last confirmed, up to a
    cutoff: what a vintage check needs, without every support edge."""

    first_source: str
    first_at: datetime
    last_at: datetime


@dataclass(frozen=True, slots=True)
class Justification:
    """One live derivation that generated ``output_id``, with its live inputs (id, role)."""

    derivation: DerivationIn
    output_id: str
    inputs: tuple[tuple[str, str], ...]


class Direction(StrEnum):
    UPSTREAM = "upstream"  # towards evidence: inputs, sources, older versions
    DOWNSTREAM = "downstream"  # towards consequences: derived facts, newer versions


@dataclass(frozen=True, slots=True)
class Edge:
    start: str
    type: str
    end: str
    props: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Reached:
    id: str
    label: str
    depth: int


@dataclass(frozen=True)
class Walk:
    """What a lineage walk reached (with its shortest depth) and every live edge among it."""

    reached: tuple[Reached, ...]
    edges: tuple[Edge, ...]

    def ids(self, label: str | None = None) -> set[str]:
        return {r.id for r in self.reached if label is None or r.label == label}


class StoreTx(Protocol):
    """One atomic unit of work within one tenant. Reads see committed state only.

    The core primitives only: what agent memory alone needs (erasure, conflict links) is
    ``vintage.graph.memory.primitives.MemoryTx``."""

    tenant: str

    def lock_subjects(self, ids: Sequence[str]) -> None:
        """Hold the existing subjects' write locks until the transaction ends (sorted ids, so
        two writers never wait on each other in a cycle). Writers of one subject then plan one
        after the other, and a compare-and-set loser fails cleanly instead of colliding."""
    def versions(self, keys: Sequence[str]) -> dict[str, list[Fact]]:
        """Versions live in system time now, per assertion key, oldest revision first."""
    def read(self, spec: AsOf) -> list[Fact]:
        """The as-of read (and ``Store.read_confirmed``'s, below) inside this transaction: it
        sees the locks and writes made so far. ``spec`` must be resolved (``spec.resolved(now)``):
        a transaction has no clock of its own, and an unresolved spec raises ``ValueError``."""
    def read_confirmed(self, spec: AsOf) -> list[tuple[Fact, Confirmation | None]]: ...
    def replaced_premises(self, spec: AsOf) -> list[str]:
        """The live versions, sorted ids, that some derivation used and whose knowledge a later
        version ended by ``spec``'s cutoff, of the assertions whose version legal for the
        resolved ``spec`` is not their first: where a closure the read would have met can start
        (``vintage.queries.search.closed``). Chosen in the store: a search must not read its
        whole legal set back to learn that nothing in it was derived from."""
    def top_revisions(self, keys: Sequence[str]) -> dict[str, int]:
        """The highest revision ever recorded per assertion key, invalidated versions included
        (keys never written: absent). A new version takes the next one, so no id is reused."""
    def existing(self, label: str, ids: Sequence[str]) -> set[str]: ...
    def get_sources(self, ids: Sequence[str]) -> dict[str, Source]: ...
    def subjects(self, names: Sequence[str] | None = None) -> list[Subject]:
        """``Store.subjects`` of this transaction's tenant, inside the transaction."""
    def get_facts(self, ids: Sequence[str]) -> dict[str, Fact]: ...
    def supports_of(self, fact_ids: Sequence[str]) -> list[Support]: ...
    def put_subjects(self, subjects: Sequence[Subject]) -> None: ...
    def put_sources(self, sources: Sequence[Source]) -> None: ...
    def create_facts(self, facts: Sequence[Fact]) -> None: ...
    def add_support(self, rows: Sequence[Support]) -> None: ...
    def close_knowledge(self, rows: Sequence[Closure]) -> None: ...
    def link_supersedes(self, rows: Sequence[Supersession]) -> None: ...
    def put_derivations(self, *writes: DerivationWrite) -> None: ...
    def append_events(self, *events: Event) -> None: ...
    def walk(
        self, start_ids: Sequence[str], direction: Direction, at: datetime, max_depth: int,
        types: Sequence[str] = LINEAGE_TYPES,
    ) -> Walk: ...
    def justifications(self, fact_ids: Sequence[str], at: datetime) -> list[Justification]: ...
    # Per derived fact, its inputs' sources at any depth, in one query (sqlite.reads's doc).
    def input_sources(self, fact_ids: Sequence[str], known_at: datetime,
                      system_at: datetime) -> dict[str, tuple[Source, ...]]: ...
    # What a cascade decides on: the facts derived downstream, as ids and instants.
    def downstream(self, start_ids: Sequence[str], at: datetime) -> Downstream: ...
    def invalidate_facts(self, rows: Sequence[Invalidation]) -> None: ...
    def retract_support(self, source_id: str, at: datetime) -> list[str]:
        """Close every live support edge to the source; return the facts left with none."""
    # When the source's support was last retracted (None: it never was).
    def retracted_at(self, source_id: str) -> datetime | None: ...
    def ever_supported_by(self, source_id: str) -> list[str]:
        """Every fact with a support edge to the source, live or not (a retracted edge still
        records that the source said it), sorted: what erasure by source has to reach."""
    def restore_support(self, source_id: str, retracted: datetime, at: datetime) -> list[str]:
        """Reopen the support edges that retraction closed; return their facts."""
    def reopen_facts(self, rows: Sequence[Reopening]) -> None: ...
    def set_knowledge_ends(self, rows: Sequence[KnowledgeEnd]) -> None:
        """Move each fact's knowledge end (see ``KnowledgeEnd``); history keeps the old one."""
    def generated_by(self, derivation_ids: Sequence[str]) -> dict[str, Fact]: ...


class Store(Protocol):
    """A backend. ``now`` is its clock: system time is set here, never by callers."""

    def now(self) -> datetime: ...
    def ensure_schema(self) -> None: ...
    def write(self, tenant: str, work: Callable[[StoreTx], T]) -> T: ...
    def reading(self, tenant: str, work: Callable[[StoreTx], T]) -> T:
        """Run ``work`` in a read-only transaction (it must call no write primitive)."""
    def read(self, spec: AsOf, limit: int | None = None) -> list[Fact]: ...
    def read_cited(self, spec: AsOf, limit: int | None = None) -> list[Cited]:
        """``read`` with, per fact, the sources it cites at the spec's cutoff and system
        instant (supports public by then and holding then), earliest first, in one trip."""
    def read_confirmed(self, spec: AsOf) -> list[tuple[Fact, Confirmation | None]]:
        """``read`` with each fact's ``confirmations`` at the spec's cutoff and system instant
        (None: no support public by the cutoff), in one round trip."""
    def history(self, tenant: str, key: str) -> list[Fact]: ...
    def supports(
        self, tenant: str, fact_ids: Sequence[str], at: datetime | None = None,
    ) -> list[Support]:
        """The support edges holding at system instant ``at`` (default now): a retracted
        source supports nothing from its retraction on, and again after an undo."""
    def confirmations(
        self, tenant: str, fact_ids: Sequence[str], known_at: datetime,
        at: datetime | None = None,
    ) -> dict[str, Confirmation]:
        """Per fact, its supports public by ``known_at`` and holding at system instant ``at``
        (default now) summed up (facts with none: absent)."""
    def sources(self, tenant: str, ids: Sequence[str]) -> list[Source]: ...
    def subjects(self, tenant: str, names: Sequence[str] | None = None) -> list[Subject]:
        """The tenant's subjects whose id or one of whose identifiers (``cik:…``,
        ``ticker:…``) is among ``names`` (None: every subject of the tenant), by id."""
    def events(self, tenant: str, actions: Sequence[str] | None = None,
               ids: Sequence[str] | None = None) -> list[Event]:
        """The tenant's events ordered by ``(at, id)``; only these actions and ids if given."""
    def walk(
        self, tenant: str, start_ids: Sequence[str], direction: Direction,
        system_at: datetime, max_depth: int = 32, types: Sequence[str] = LINEAGE_TYPES,
    ) -> Walk: ...
    def close(self) -> None: ...
