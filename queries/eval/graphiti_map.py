"""What a scenario's replay becomes in Graphiti, and how a question is put to Graphiti: pure
functions, no Graphiti import, no database (the peer, ``vintage.queries.eval.graphiti``, runs
them).

Graphiti is given what it would hold had each write been an episode that its LLM turned into
one edge, with its contradiction resolution at its best (the recipe of issue 41):

* a write (``remember``, ``correct``, ``echo``, an ingested row) is an episode and one
  ``RELATES_TO`` edge from the subject's entity to the value's, named by the key; Graphiti has
  no gates, so refused writes are held too (as the naive peer holds them);
* a later write on the same (group, subject, key) and, for a financial row, the same period
  closes the earlier edge: ``expired_at`` is its ingestion instant, and ``invalid_at`` its event
  start where that comes later (Graphiti's own ``resolve_edge_contradictions`` rule);
* ``invalidate`` sets ``invalid_at`` and ``expired_at`` to its instant; a TTL sets
  ``invalid_at`` (Graphiti has no expiry of its own); ``forget`` (erasure) deletes the edges and
  episodes, as ``remove_episode`` does; ``retract`` removes the source's episodes the same way
  (Graphiti's only way to withdraw a source);
* ``rollback``, ``summarise``, ``register``, ``context`` and ``used`` have no Graphiti
  counterpart and change nothing (the checks that need them say "not expressible").

Graphiti's search filters one time of knowing: ``created_at``, the ingestion instant. A write's
observed time (a backdated memory, a filing's ``available_at``) is kept as the edge's
``reference_time``, which ``SearchFilters`` cannot filter on: a question whose cutoff would need
it is not expressible (``not_expressible``).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import day_start
from vintage.queries.eval import scenario as sc
from vintage.queries.eval.steps import file_rows
from vintage.queries.eval.written import Replay, Written, scope_of

# Named uuids: the same replay always maps to the same graph (a re-run overwrites, never
# duplicates), and no two tenants share one.
_NS = uuid.UUID("5f0c5c52-8c1e-4f55-9a55-6b3c3a0e4a41")
WRITES = ("remember", "correct", "echo", "ingest-row")


@dataclass(frozen=True)
class Edge:
    uuid: str
    group: str
    subject: str
    key: str
    value: Any
    fact: str  # the text Graphiti indexes (BM25) and embeds
    version: str  # the engine's version id, so that the same checks read both
    episode: str
    created_at: datetime  # ingestion (Graphiti's only knowledge time)
    valid_at: datetime
    invalid_at: datetime | None = None
    expired_at: datetime | None = None
    period: tuple[datetime, datetime] | None = None  # a financial row's valid window
    observed: datetime | None = None  # knowledge time: reference_time, never filtered on


@dataclass(frozen=True)
class Episode:
    uuid: str
    group: str
    name: str
    content: str
    valid_at: datetime
    created_at: datetime


@dataclass
class Graph:
    groups: dict[str, Scope] = field(default_factory=dict)
    episodes: dict[str, Episode] = field(default_factory=dict)
    edges: dict[str, Edge] = field(default_factory=dict)

    def nodes(self) -> dict[str, tuple[str, str]]:
        """Entity uuid -> (group, name): each edge's subject and value."""
        out: dict[str, tuple[str, str]] = {}
        for e in self.edges.values():
            for name in (e.subject, value_text(e.value)):
                out[node_uuid(e.group, name)] = (e.group, name)
        return out


def group_id(scope: Scope) -> str:
    """Graphiti's ``group_id`` of a scope: letters, digits, ``-`` and ``_`` only, so a hash of
    the tenant and the scope's terms (a scope's terms may hold ``:``, ``=`` or Chinese)."""
    blob = json.dumps([scope.tenant, scope.terms()], ensure_ascii=False)
    return "vintage-eval-" + hashlib.sha256(blob.encode()).hexdigest()[:24]


def node_uuid(group: str, name: str) -> str:
    return str(uuid.uuid5(_NS, f"node\x1f{group}\x1f{name}"))


def value_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _named(scenario: sc.Scenario, replay: Replay) -> list[tuple[Any, Written]]:
    """Each step with its record (an unnamed step is ``step-N``, as the replay names it)."""
    out = []
    for n, step in enumerate(scenario.steps):
        w = replay.by_name.get(step.name or f"step-{n + 1}")
        if w is not None:
            out.append((step, w))
    return out


def graph_of(scenario: sc.Scenario, replay: Replay) -> Graph:
    """The Graphiti graph the replay's writes make, in the order they were made."""
    g = Graph()
    rows = {w.name: w for w in replay.written if w.op == "ingest-row"}
    sources: dict[str, set[str]] = {}  # a source id -> the writes it carried
    for step, w in _named(scenario, replay):
        source = getattr(getattr(step, "source", None), "id", None) or w.name
        if w.op in WRITES:
            sources.setdefault(source, set()).add(w.name)
        if isinstance(step, sc.Ingest):
            given = list(step.rows) if step.file is None else file_rows(step.file)
            for n, row in enumerate(given, 1):
                name = str(row.get("name") or f"{w.name}.row{n}")
                if name in rows:
                    _add(g, _row_edge(replay, rows[name], row))
        elif w.op in ("remember", "correct", "echo") and w.scope is not None and w.at:
            _add(g, _memory_edge(replay, step, w))
        elif isinstance(step, sc.Invalidate):
            target = replay.by_name[step.target]
            _close(g, lambda e, t=target: _same_assertion(e, t, replay), at=w.at)
        elif isinstance(step, sc.Forget) and step.target is not None:
            target = replay.by_name[step.target]
            _remove(g, lambda e, t=target: _same_assertion(e, t, replay))
        elif isinstance(step, sc.Forget | sc.Retract) and step.source is not None:
            episodes = {_uuid("episode", replay.tenant, n)
                        for n in sources.get(step.source, {step.source})}
            _remove(g, lambda e, gone=episodes: e.episode in gone)
    for w in replay.written:
        if w.scope is not None:
            g.groups[group_id(w.scope)] = w.scope
    return g


def _memory_edge(replay: Replay, step: Any, w: Written) -> Edge:
    assert w.scope is not None and w.at is not None
    stored = w.stored.get(w.ids[0]) if w.ids else None
    observed = w.observed or w.at
    valid_from = stored.valid_from if stored is not None else (
        sc._utc(step.valid_from) if getattr(step, "valid_from", None) else observed)
    valid_to = stored.valid_to if stored is not None else (
        sc._utc(step.valid_to) if getattr(step, "valid_to", None) else None)
    ttl = getattr(step, "ttl", None)
    if ttl is not None:  # no expiry in Graphiti: the closest is the fact stopping to hold
        ends = observed + timedelta(seconds=ttl)
        valid_to = ends if valid_to is None else min(valid_to, ends)
    group = group_id(w.scope)
    return Edge(uuid=_uuid("edge", replay.tenant, w.name), group=group, subject=w.subject,
                key=w.key, value=w.value, fact=w.text,
                version=w.ids[-1] if w.ids else (w.same_as[-1] if w.same_as else w.name),
                episode=_uuid("episode", replay.tenant, w.name), created_at=w.at,
                valid_at=valid_from, invalid_at=valid_to, observed=observed)


def _row_edge(replay: Replay, w: Written, row: dict[str, Any]) -> Edge:
    assert w.at is not None
    end = _day(row["period_end"])
    start = _day(row.get("period_start") or row["period_end"])
    period = (day_start(start), day_start(end) + timedelta(days=1))
    scope = Scope(tenant=replay.tenant)
    return Edge(uuid=_uuid("edge", replay.tenant, w.name), group=group_id(scope),
                subject=w.subject, key=w.key, value=w.value, fact=w.text, version=w.name,
                episode=_uuid("episode", replay.tenant, w.name), created_at=w.at,
                valid_at=period[0], invalid_at=period[1], period=period,
                observed=day_start(_day(row["available_at"])))


def _day(value: Any) -> Any:
    from datetime import date

    return value if isinstance(value, date) else date.fromisoformat(str(value)[:10])


def _uuid(kind: str, tenant: str, name: str) -> str:
    return str(uuid.uuid5(_NS, f"{kind}\x1f{tenant}\x1f{name}"))


def _add(g: Graph, edge: Edge) -> None:
    """The new edge closes the live one it contradicts (same group, subject, key, period)."""
    for old in list(g.edges.values()):
        if old.expired_at is None and (old.group, old.subject, old.key, old.period) == (
                edge.group, edge.subject, edge.key, edge.period):
            later = edge.valid_at > old.valid_at and edge.period is None
            g.edges[old.uuid] = replace(
                old, expired_at=edge.created_at,
                invalid_at=edge.valid_at if later and (
                    old.invalid_at is None or edge.valid_at < old.invalid_at) else old.invalid_at)
    g.edges[edge.uuid] = edge
    g.episodes[edge.episode] = Episode(edge.episode, edge.group, edge.version, edge.fact,
                                       valid_at=edge.observed or edge.created_at,
                                       created_at=edge.created_at)


def _same_assertion(e: Edge, target: Written, replay: Replay) -> bool:
    return (target.scope is not None and e.group == group_id(target.scope)
            and (e.subject, e.key) == (target.subject, target.key))


def _close(g: Graph, which: Any, at: datetime | None) -> None:
    for e in list(g.edges.values()):
        if e.expired_at is None and which(e):
            g.edges[e.uuid] = replace(e, expired_at=at, invalid_at=at if e.invalid_at is None
                                      or (at is not None and at < e.invalid_at) else e.invalid_at)


def _remove(g: Graph, which: Any) -> None:
    """Deletes the edges and their episodes (Graphiti's ``remove_episode``, edge ``delete``)."""
    for e in list(g.edges.values()):
        if which(e):
            del g.edges[e.uuid]
            g.episodes.pop(e.episode, None)


@dataclass(frozen=True)
class Window:
    """The instants a question is put at, as Graphiti's four date fields can filter them:
    ``known`` bounds ``created_at``/``expired_at`` (ingestion), ``valid`` bounds
    ``valid_at``/``invalid_at`` (event time)."""

    known: datetime
    valid: datetime


def window(a: sc.Ask, now: datetime) -> Window:
    """A question's cutoff or system instant (else now) and its valid instant, which defaults
    to that instant, as the engine's as-of read does ("as known in mid-January" asks what held
    then, not what holds now)."""
    at = a.system_at or a.cutoff
    known = sc._utc(at) if at else now
    return Window(known=known, valid=sc._utc(a.valid_at) if a.valid_at else known)


def filter_groups(w: Window) -> dict[str, list[list[tuple[str, datetime | None]]]]:
    """``SearchFilters`` date groups (OR of ANDs) as plain tuples (operator, instant): known
    by ``known`` and not expired by then, valid at ``valid``. Graphiti names a date parameter
    by its position in its AND group, so each field's OR groups hold at most one instant:
    (``IS NULL``) OR (``> t``), never two instants that would overwrite each other."""
    return {
        "created_at": [[("<=", w.known)]],
        "expired_at": [[("IS NULL", None)], [(">", w.known)]],
        "valid_at": [[("<=", w.valid)]],
        "invalid_at": [[("IS NULL", None)], [(">", w.valid)]],
    }


def readable_groups(graph: Graph, tenant: str, principal: sc.Principal) -> list[str]:
    """The groups an asker may read: Vintage's rule (a fact is visible when its scope carries
    every key of the request's), given to Graphiti as the list of ``group_id`` it searches."""
    asked = scope_of(tenant, principal)
    return sorted(g for g, scope in graph.groups.items()
                  if scope.tenant == tenant and asked.keys.items() <= scope.keys.items())


def not_expressible(scenario: sc.Scenario, a: sc.Ask, graph: Graph) -> dict[str, str]:
    """The checks of an ask that Graphiti has no way to express, each with why: scored neither
    as a pass nor as a failure, and reported as such (docs/eval.md)."""
    out: dict[str, str] = {}
    if a.expect.refusal:
        out["says nothing relevant"] = "Graphiti's search returns ranked edges, no verdict"
    if a.expect.stale is not None:
        out["stale premise flagged"] = "Graphiti keeps no derivation lineage"
    if a.min_authority is not None or a.risk is not None:
        out["answer"] = "Graphiti has no authority a question can require"
    if a.metric is not None and (a.metric != a.key or a.metric_period == "LTM"):
        out["answer"] = "a derived figure: Graphiti computes none"
    timed = a.cutoff is not None or a.system_at is not None
    if timed and _backdated(graph.edges.values()):
        out["answer"] = ("knowledge time separate from ingestion: Graphiti has only "
                         "created_at")
    if a.cutoff is not None and a.system_at is not None and a.cutoff != a.system_at:
        out["answer"] = "a cutoff and a system instant apart: Graphiti has one time of knowing"
    if a.expect.absent_text and any(isinstance(s, sc.Summarise) for s in scenario.steps):
        out["no erased or injected text handed over"] = (
            "erasure reaching summaries: Graphiti's summaries are its LLM's, none here")
    return out


def _backdated(edges: Iterable[Edge]) -> bool:
    return any(e.observed is not None and e.observed != e.created_at for e in edges)
