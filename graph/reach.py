"""What a cascade needs to know about the facts downstream of a change, and nothing more.

A cascade decides interval ends from the shape of the derivation graph and the instants its
facts end at. It never needs a derived fact's full property map, and a backend that ships 110,000
of them to decide 110,000 ends spends its time decoding them (bench/RESULTS.md, "Cascade").
So the store answers :class:`Downstream`: per reached fact, the few fields a report names, its
live justifications as ids, and the ends of every fact involved. ``graph.cascade`` decides on
that, written once for both backends.

``graph.embedded.downstream`` builds it from the general primitives (walk, justifications,
facts): the embedded backend's answer and the reference that Neo4j's one-query-per-level
answer (``graph.neo4j.downstream``) is checked against.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from graph.model import Fact, Value

MAX_DEPTH = 256  # derivation steps a cascade follows from a change


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
