"""A Graphiti graph written by the real ``graphiti-core`` package into a Neo4j, without any
LLM (helper module, no fixtures; issue 41's recipe).

Nodes and edges are built as Graphiti's own ``EntityNode``, ``EpisodicNode`` and ``EntityEdge``
and saved by Graphiti itself, with real embeddings from Vintage's local model; the LLM client
and the reranker raise if Graphiti ever calls them. Telemetry is off before graphiti_core is
imported (it would otherwise send an event home).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"  # before graphiti_core is imported

from graphiti_core import Graphiti
from graphiti_core.cross_encoder.client import CrossEncoderClient
from graphiti_core.edges import EntityEdge
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.llm_client import LLMClient
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode
from pydantic import BaseModel

from vintage.graph.retrieval.embedder import Embedder, minilm


class NoLLM(LLMClient):
    """Graphiti's LLM client that must never be called: the graph is saved directly."""

    def __init__(self) -> None:
        super().__init__(None)

    async def _generate_response(self, messages: Any, response_model: type[BaseModel] | None = None,
                                 max_tokens: int = 0, model_size: Any = None, *,
                                 model: str | None = None) -> dict[str, Any]:
        raise AssertionError("Graphiti called its LLM: the test graph is saved without one")


class NoReranker(CrossEncoderClient):
    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        raise AssertionError("Graphiti called its reranker: nothing here searches")


class VintageEmbedder(EmbedderClient):
    """Graphiti's embedder interface over Vintage's own local model (384 dimensions)."""

    def __init__(self, model: Embedder) -> None:
        self._model = model

    async def create(self, input_data: Any) -> list[float]:
        text = input_data if isinstance(input_data, str) else str(next(iter(input_data)))
        return [float(x) for x in self._model.embed([text])[0]]

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        return [[float(x) for x in row] for row in self._model.embed(input_data_list)]


@dataclass
class GraphitiGraph:
    """What a test saves: entities, episodes and edges (Graphiti's own models)."""

    entities: list[EntityNode] = field(default_factory=list)
    episodes: list[EpisodicNode] = field(default_factory=list)
    edges: list[EntityEdge] = field(default_factory=list)

    def entity(self, group: str, name: str, label: str, at: datetime) -> EntityNode:
        node = EntityNode(name=name, group_id=group, labels=["Entity", label], created_at=at,
                          summary=f"{name}.")
        self.entities.append(node)
        return node

    def episode(self, group: str, name: str, content: str, at: datetime) -> EpisodicNode:
        node = EpisodicNode(name=name, group_id=group, source=EpisodeType.message,
                            source_description="chat", content=content, valid_at=at,
                            created_at=at)
        self.episodes.append(node)
        return node

    def edge(self, source: EntityNode, name: str, target: EntityNode, fact: str, *,
             valid_at: datetime, created_at: datetime, episodes: Sequence[EpisodicNode],
             invalid_at: datetime | None = None, expired_at: datetime | None = None,
             attributes: dict[str, Any] | None = None) -> EntityEdge:
        edge = EntityEdge(source_node_uuid=source.uuid, target_node_uuid=target.uuid,
                          group_id=source.group_id, name=name, fact=fact,
                          episodes=[e.uuid for e in episodes], valid_at=valid_at,
                          invalid_at=invalid_at, created_at=created_at, expired_at=expired_at,
                          attributes=attributes or {})
        self.edges.append(edge)
        return edge


def save(uri: str, auth: tuple[str, str] | None, graph: GraphitiGraph) -> None:
    """Embed and save ``graph`` with graphiti-core into the Neo4j at ``uri``.

    Graphiti is built outside the event loop: inside one, its Neo4j driver schedules building
    Graphiti's indexes on the database as a task, which a quick save closes before it ran (a
    coroutine never awaited). Nothing here searches Graphiti, so it needs none of them."""
    model = VintageEmbedder(minilm())
    user, password = auth or ("neo4j", "")
    graphiti = Graphiti(uri, user, password, llm_client=NoLLM(), embedder=model,
                        cross_encoder=NoReranker())
    asyncio.run(_save(graphiti, model, graph))


async def _save(graphiti: Graphiti, model: VintageEmbedder, graph: GraphitiGraph) -> None:
    try:
        for node in graph.entities:
            await node.generate_name_embedding(model)
            await node.save(graphiti.driver)
        for episode in graph.episodes:
            await episode.save(graphiti.driver)
        for edge in graph.edges:
            await edge.generate_embedding(model)
            await edge.save(graphiti.driver)
    finally:
        await graphiti.close()  # type: ignore[no-untyped-call]  # graphiti-core's, untyped


def snapshot(driver: Any, uuids: Iterable[str]) -> list[tuple[str, list[str], dict[str, Any]]]:
    """Every Graphiti node and relationship holding one of ``uuids``, with all its labels (or
    type) and properties, as Neo4j holds them: what an import must leave byte for byte."""
    query = ("MATCH (n) WHERE n.uuid IN $uuids RETURN n.uuid AS uuid, labels(n) AS labels, "
             "properties(n) AS props UNION ALL "
             "MATCH ()-[r]->() WHERE r.uuid IN $uuids RETURN r.uuid AS uuid, [type(r)] AS labels, "
             "properties(r) AS props")
    with driver.session() as session:
        rows = session.run(query, uuids=sorted(uuids)).data()
    return sorted(((r["uuid"], sorted(r["labels"]), r["props"]) for r in rows),
                  key=lambda r: (r[0], r[1]))


def delete(driver: Any, group: str) -> None:
    """Remove a test's Graphiti group (its nodes and their relationships)."""
    with driver.session() as session:
        session.run("MATCH (n) WHERE (n:Entity OR n:Episodic) AND n.group_id = $g "
                    "DETACH DELETE n", g=group).consume()
