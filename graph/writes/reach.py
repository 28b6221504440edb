"""What a cascade needs to know about the facts downstream of a change, and nothing more.

A cascade decides interval ends from the shape of the derivation graph and the instants its
facts end at. It never needs a derived fact's full property map, and a backend that ships 110,000
of them to decide 110,000 ends spends its time decoding them (bench/notes/history.md, "Cascade").
So the store answers :class:`Downstream`: per reached fact, the few fields a report names, its
live justifications as ids, and the ends of every fact involved. ``vintage.graph.writes.cascade``
decides on that, written once for both backends.

``vintage.graph.embedded.downstream`` builds it from the general primitives (walk, justifications,
facts): the embedded backend's answer and the reference that Neo4j's one-query-per-level
answer (``vintage.graph.neo4j.downstream``) is checked against.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

from vintage.graph.core.model import Fact, Value

# Derivation steps a cascade follows from a change; facts further down are left as they are.
# 128: the walk primitive goes 256 nodes deep, and a derivation step passes two (the embedded
# reference walks; Neo4j and its procedure count levels).
MAX_DEPTH = 128


@dataclass(frozen=True, slots=True)
class FactRef:
    """What a cascade report names of a fact: never its whole property map."""

    id: str
    predicate: str
    # Defaults only for a report read back from the HTTP API, which names fact and predicate.
    subject: str = ""
    value: Value = ""
    unit: str | None = None

    @classmethod
    def of(cls, fact: Fact) -> FactRef:
        return cls(fact.id, fact.predicate, fact.subject, fact.value, fact.unit)


@dataclass(frozen=True, slots=True)
class Ends:
    """Where a fact's intervals end now: knowledge (``superseded_at``) and system
    (``invalidated_at``); None is open."""

    knowledge: datetime | None
    system: datetime | None

    @classmethod
    def of(cls, fact: Fact) -> Ends:
        return cls(fact.superseded_at, fact.invalidated_at)


@dataclass(frozen=True, slots=True)
class Reach:
    """A derived fact a walk reached, with its live justifications: per live derivation that
    generated it (by derivation id), the ids of that derivation's live inputs, sorted."""

    fact: FactRef
    justifications: tuple[tuple[str, tuple[str, ...]], ...]


@dataclass(frozen=True)
class Downstream:
    """Every fact derived downstream of some starts along live ``USED``/``GENERATED`` edges
    (the starts themselves excluded), and the ends of those facts and of all their inputs."""

    reached: dict[str, Reach]
    ends: dict[str, Ends]


@dataclass(frozen=True)
class Affected:
    """A reached fact still open on the cascade's axis, and the end its justifications give it."""

    fact: FactRef
    depth: int  # derivation steps from the nearest changed input (1: derived from it directly)
    path: tuple[str, ...]  # fact ids, changed input first, this fact last
    ends_at: datetime | None  # None: another justification still holds it


@runtime_checkable
class Decides(Protocol):
    """A store transaction that can decide a cascade and write its closes itself
    (``vintage.graph.writes.cascade.close``): Neo4j with the plugin's server-side procedure.
    ``axis`` is
    ``knowledge`` or ``system``; None means "not here" (a stock server), and the caller decides
    in Python and writes the closes through the store's primitives."""

    def close_cascade(self, changed: Mapping[str, datetime | None], axis: str,
                      at: datetime) -> list[Affected] | None: ...
