"""Graphiti (``graphiti-core``) as a peer of the evaluation ladder, on the same Neo4j.

Each scenario's replay is written into Graphiti (``vintage.queries.eval.graphiti_map`` says
what it becomes) with ``add_nodes_and_edges_bulk``, embedded by the same model as the engine
(:class:`VintageEmbedder`); no model writes anything: the LLM client raises if Graphiti ever
calls it, and the cross-encoder is never asked (the searches rerank by RRF). Asks use
Graphiti's ``search_()`` at its best: its date filters on all four fields at the question's
instants, the ``group_id`` of every scope the asker may read, and either BM25 alone
(``graphiti-bm25``) or BM25 and cosine fused (``graphiti-hybrid``), top 10 edges.

Graphiti's nodes share the database with the engine's (a Community server has one database),
which is safe because the engine never uses Graphiti's labels (``vintage.graph.core.labels``);
each scenario's groups are deleted before the next one loads and when the peer closes, by
``group_id`` and Graphiti's own labels only. ``graphiti-core`` is an optional extra: without
it, or on the embedded store, asking for these rungs is one line of error.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

# Before graphiti_core is imported anywhere in the process: it would otherwise send a
# telemetry event home on start (issue 41).
os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"

from vintage.graph.core.errors import InvalidArgument
from vintage.graph.retrieval.counting import token_counter
from vintage.graph.retrieval.embedder import Embedder, query_vector
from vintage.graph.store.protocol import Store
from vintage.queries.eval import graphiti_map as gm
from vintage.queries.eval import scenario as sc
from vintage.queries.eval.rungs import Handed, Shown
from vintage.queries.eval.written import Replay, Settable

PEERS = ("graphiti-bm25", "graphiti-hybrid")
K = 10
COSINE_FLOOR = 0.0
INSTALL = "pip install 'vintage[graphiti]'"


def require(uri: str, neo4j: bool) -> None:
    """The one-line refusals, before anything is written."""
    if not neo4j:
        raise InvalidArgument(f"the Graphiti rungs run on a Neo4j store (--store bolt://...); "
                              f"{uri[:80]!r} is embedded")
    try:
        import graphiti_core  # noqa: F401
    except ImportError as exc:
        raise InvalidArgument(f"the Graphiti rungs need graphiti-core: {INSTALL}") from exc


def _clients(embedder: Embedder) -> tuple[Any, Any, Any]:
    from graphiti_core.cross_encoder.client import CrossEncoderClient
    from graphiti_core.embedder.client import EmbedderClient
    from graphiti_core.llm_client.client import LLMClient

    class VintageEmbedder(EmbedderClient):
        """The engine's own model, so that both systems rank with the same vectors."""

        async def create(self, input_data: Any) -> list[float]:
            return [float(x) for x in embedder.embed([str(input_data)])[0]]

        async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
            return [[float(x) for x in v] for v in embedder.embed(list(input_data_list))]

    class NoModel(LLMClient):
        """Nothing here extracts with a model: a call would mean a path that needs one."""

        async def _generate_response(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
            raise RuntimeError("the evaluation's Graphiti must never call a language model")

    class KeepOrder(CrossEncoderClient):
        async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
            return [(p, 0.0) for p in passages]

    return VintageEmbedder(), NoModel(None), KeepOrder()


@dataclass
class GraphitiStore:
    """One Graphiti client on the evaluation's server, shared by both Graphiti rungs (the
    graph is written once per scenario)."""

    uri: str
    auth: tuple[str, str] | None
    embedder: Embedder
    database: str = "neo4j"
    graph: gm.Graph = field(default_factory=gm.Graph)
    loaded: str | None = None  # the tenant whose replay the graph holds
    load_seconds: list[float] = field(default_factory=list)
    _loop: asyncio.AbstractEventLoop | None = None
    _client: Any = None

    def run(self, work: Any) -> Any:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        return self._loop.run_until_complete(work)

    def client(self) -> Any:
        if self._client is None:
            from graphiti_core import Graphiti
            from graphiti_core.driver.neo4j_driver import Neo4jDriver

            user, password = self.auth or (None, None)

            async def made() -> Any:
                driver = Neo4jDriver(self.uri, user, password, database=self.database)
                await driver.build_indices_and_constraints()
                emb, llm, cross = _clients(self.embedder)
                return Graphiti(graph_driver=driver, llm_client=llm, embedder=emb,
                                cross_encoder=cross)

            self._client = self.run(made())
        return self._client

    def load(self, scenario: sc.Scenario, replay: Replay) -> None:
        if self.loaded == replay.tenant:
            return
        self.clear()
        started = time.perf_counter()
        self.graph = gm.graph_of(scenario, replay)
        self.run(write(self.client(), self.graph, self.embedder))
        self.load_seconds.append(time.perf_counter() - started)
        self.loaded = replay.tenant

    def clear(self) -> None:
        """Graphiti's nodes of the groups loaded last, by its own labels only."""
        groups = sorted(self.graph.groups)
        if groups and self._client is not None:
            self.run(self._client.driver.execute_query(
                "MATCH (n) WHERE (n:Entity OR n:Episodic) AND n.group_id IN $groups "
                "DETACH DELETE n", groups=groups))
        self.graph, self.loaded = gm.Graph(), None

    def close(self) -> None:
        try:
            self.clear()
            if self._client is not None:
                self.run(self._client.close())
        finally:
            if self._loop is not None:
                self._loop.close()
            self._client, self._loop = None, None


async def write(client: Any, graph: gm.Graph, embedder: Embedder) -> None:
    """The graph as Graphiti's own objects, saved in one transaction with real embeddings."""
    from graphiti_core.edges import EntityEdge, EpisodicEdge
    from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode
    from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

    if not graph.edges:
        return
    nodes = graph.nodes()
    names = list(nodes)
    edges = list(graph.edges.values())
    vectors = embedder.embed([nodes[u][1] for u in names] + [e.fact for e in edges])
    entity_nodes = [EntityNode(uuid=u, name=nodes[u][1], group_id=nodes[u][0], labels=[],
                               created_at=min(e.created_at for e in edges),
                               name_embedding=[float(x) for x in vectors[i]])
                    for i, u in enumerate(names)]
    episodes = [EpisodicNode(uuid=p.uuid, name=p.name, group_id=p.group, source=EpisodeType.text,
                             source_description="vintage eval replay", content=p.content,
                             valid_at=p.valid_at, created_at=p.created_at,
                             entity_edges=[e.uuid for e in edges if e.episode == p.uuid])
                for p in graph.episodes.values()]
    entity_edges = [EntityEdge(
        uuid=e.uuid, group_id=e.group, name=e.key, fact=e.fact,
        source_node_uuid=gm.node_uuid(e.group, e.subject),
        target_node_uuid=gm.node_uuid(e.group, gm.value_text(e.value)),
        created_at=e.created_at, valid_at=e.valid_at, invalid_at=e.invalid_at,
        expired_at=e.expired_at, episodes=[e.episode], reference_time=e.observed,
        fact_embedding=[float(x) for x in vectors[len(names) + i]])
        for i, e in enumerate(edges)]
    mentions = [EpisodicEdge(source_node_uuid=e.episode, target_node_uuid=node, group_id=e.group,
                             created_at=e.created_at)
                for e in edges for node in (gm.node_uuid(e.group, e.subject),)]
    await add_nodes_and_edges_bulk(client.driver, episodes, mentions, entity_nodes,
                                   entity_edges, client.embedder)


def search_filters(w: gm.Window) -> Any:
    return search_filters_from(gm.filter_groups(w))


def search_filters_from(groups: dict[str, list[list[tuple[str, Any]]]]) -> Any:
    """Graphiti's ``SearchFilters`` from date groups built as plain tuples (operator, instant)."""
    from graphiti_core.search.search_filters import (
        ComparisonOperator,
        DateFilter,
        SearchFilters,
    )

    op = {o.value: o for o in ComparisonOperator}
    return SearchFilters(**{name: [[DateFilter(date=at, comparison_operator=op[symbol])
                                    for symbol, at in ands] for ands in ors]
                            for name, ors in groups.items()})


def search_config(method: str, k: int) -> Any:
    from graphiti_core.search.search_config import (
        EdgeReranker,
        EdgeSearchConfig,
        EdgeSearchMethod,
        SearchConfig,
    )

    methods = [EdgeSearchMethod.bm25] + (
        [EdgeSearchMethod.cosine_similarity] if method == "hybrid" else [])
    # Graphiti's default cosine floor (0.6) is tuned for OpenAI's embeddings: with the engine's
    # model it drops most true matches, so Graphiti at its best ranks without one.
    return SearchConfig(edge_config=EdgeSearchConfig(search_methods=methods,
                                                     reranker=EdgeReranker.rrf,
                                                     sim_min_score=COSINE_FLOOR), limit=k)


@dataclass
class GraphitiPeer:
    """One Graphiti rung: ``method`` is ``bm25`` or ``hybrid``."""

    store: GraphitiStore
    method: str
    k: int = K
    name: str = ""

    def __post_init__(self) -> None:
        self.name = f"graphiti-{self.method}"

    def load(self, replay: Replay) -> None:
        assert replay.scenario is not None, "the replay keeps its scenario"
        self.store.load(replay.scenario, replay)

    def not_expressible(self, s: sc.Scenario, a: sc.Ask) -> dict[str, str]:
        return gm.not_expressible(s, a, self.store.graph)

    def ask(self, store: Store, clock: Settable, replay: Replay, a: sc.Ask) -> Handed:
        groups = gm.readable_groups(self.store.graph, replay.tenant, a.principal)
        started = time.perf_counter()
        if not groups:  # an empty list would mean every group to Graphiti
            return Handed((), (), "", 0, a.budget, nothing_relevant=False,
                          seconds=time.perf_counter() - started, header_tokens=0,
                          item_tokens={})
        vector = [float(x) for x in query_vector(self.store.embedder, a.query)]
        found = self.store.run(self.store.client().search_(
            a.query, config=search_config(self.method, self.k), group_ids=groups,
            search_filter=search_filters(gm.window(a, clock.now)), query_vector=vector))
        seconds = time.perf_counter() - started
        return handed(self.store.graph, [e.uuid for e in found.edges], a.budget, seconds)


def handed(graph: gm.Graph, uuids: Iterable[str], budget: int, seconds: float) -> Handed:
    """What the agent is handed: the edges in Graphiti's order, each line its fact, cut to the
    budget; the candidates are every edge returned."""
    counter = token_counter()
    edges = [graph.edges[u] for u in uuids if u in graph.edges]
    items: list[Shown] = []
    lines: list[str] = []
    tokens: dict[str, int] = {}
    used = 0
    for e in edges:
        line = f"- {e.fact}"
        cost = counter.count(line + "\n")
        if used + cost > budget:
            break
        items.append(Shown(id=e.version, subject=e.subject, key=e.key, value=e.value,
                           status="active", sources=1, valid=e.period))
        lines.append(line)
        tokens[e.version] = cost
        used += cost
    return Handed(tuple(items), tuple(e.version for e in edges), "\n".join(lines), used, budget,
                  nothing_relevant=False, seconds=seconds, header_tokens=0, item_tokens=tokens)


def peers(uri: str, auth: tuple[str, str] | None, embedder: Embedder,
          chosen: Iterable[str]) -> list[GraphitiPeer]:
    wanted = [name for name in PEERS if name in set(chosen)]
    if not wanted:
        return []
    shared = GraphitiStore(uri, auth, embedder)
    return [GraphitiPeer(shared, name.removeprefix("graphiti-")) for name in wanted]
