"""A Graphiti graph as read from Neo4j: its entities, episodes and edges as plain records.

Graphiti writes timezone-aware instants; a naive one (a ``LocalDateTime``, written by a caller
that passed a naive datetime) is read as UTC, which is what Graphiti's own ``utc_now`` means.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from neo4j.time import DateTime

from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.model import Value
from vintage.graph.neo4j.cypher import Query
from vintage.ingest.graphiti import cypher

Rows = list[dict[str, Any]]


@dataclass(frozen=True)
class Entity:
    uuid: str
    name: str
    group_id: str
    labels: tuple[str, ...]


@dataclass(frozen=True)
class Episode:
    uuid: str
    name: str
    group_id: str
    source: str  # message, json or text
    source_description: str
    content: str
    valid_at: datetime | None  # Graphiti's reference time: when the content was said or written
    created_at: datetime  # when Graphiti ingested it


@dataclass(frozen=True)
class Edge:
    uuid: str
    group_id: str
    name: str
    fact: str
    valid_at: datetime | None
    invalid_at: datetime | None
    created_at: datetime
    expired_at: datetime | None
    episodes: tuple[str, ...]
    source_uuid: str
    target_uuid: str
    attributes: tuple[tuple[str, Value], ...] = ()


@dataclass
class Graph:
    groups: list[str]
    entities: dict[str, Entity] = field(default_factory=dict)
    episodes: dict[str, Episode] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)


def instant(value: Any) -> datetime | None:
    """A Neo4j temporal value (or a Python one) as an aware UTC datetime; naive means UTC."""
    if value is None:
        return None
    if isinstance(value, DateTime) or hasattr(value, "to_native"):
        value = value.to_native()
    if not isinstance(value, datetime):
        raise InvalidArgument(f"a Graphiti time stamp of type {type(value).__name__}, not a "
                              "datetime: not a Graphiti 0.31 graph")
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def scalar(value: Any) -> Value:
    """An attribute as a fact value: scalars as they are, anything else as JSON text."""
    if isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, DateTime) or hasattr(value, "to_native"):
        stamp = instant(value)
        assert stamp is not None
        return stamp.isoformat()
    return json.dumps(value, default=str, ensure_ascii=False, sort_keys=True)


def read_graph(run: Callable[[Query], Rows], groups: Sequence[str]) -> Graph:
    """The groups' graph, read by ``run`` (a ``Query -> rows`` runner: ``Neo4jStore.run``)."""
    graph = Graph(groups=list(groups))
    for row in _rows(run, cypher.entities(groups)):
        graph.entities[row["uuid"]] = Entity(row["uuid"], str(row["name"] or row["uuid"]),
                                             row["group_id"], tuple(row["labels"] or ()))
    for row in _rows(run, cypher.episodes(groups)):
        graph.episodes[row["uuid"]] = Episode(
            row["uuid"], str(row["name"] or ""), row["group_id"], _source(row["source"]),
            str(row["source_description"] or ""), str(row["content"] or ""),
            instant(row["valid_at"]), _required(instant(row["created_at"]), "episode", row["uuid"]))
    for row in _rows(run, cypher.edges(groups)):
        graph.edges.append(Edge(
            row["uuid"], row["group_id"], str(row["name"] or ""), str(row["fact"] or ""),
            instant(row["valid_at"]), instant(row["invalid_at"]),
            _required(instant(row["created_at"]), "edge", row["uuid"]),
            instant(row["expired_at"]), tuple(row["episodes"] or ()), row["source_uuid"],
            row["target_uuid"], tuple(sorted((str(k), scalar(v)) for k, v in
                                             (row["attributes"] or []) if v is not None))))
    return graph


def _rows(run: Callable[[Query], Rows], query: Query) -> Rows:
    rows: Rows = run(query)
    return rows


def _source(value: Any) -> str:
    """An episode's source type: Graphiti stores the enum's value (``message``)."""
    text = str(value or "text")
    return text.removeprefix("EpisodeType.")


def _required(stamp: datetime | None, what: str, uuid: str) -> datetime:
    if stamp is None:
        raise InvalidArgument(f"a Graphiti {what} without created_at ({uuid[:40]}): not a "
                              "Graphiti 0.31 graph")
    return stamp


def groups_in(rows: Rows) -> list[str]:
    return [str(r["group_id"]) for r in rows if r["group_id"] is not None]

