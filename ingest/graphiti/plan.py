"""A Graphiti graph mapped to Vintage's records, through the gates: pure (no store, no clock).

Per group (its own scope: ``project=<group_id>``):

- an entity is a subject ``graphiti:<uuid>`` (its name, and its first label beside ``Entity``
  as its kind);
- an episode is a source ``graphiti:episode:<uuid>`` (a document, available from Graphiti's
  ``created_at``), and its content a fact ``graphiti:episode`` about the subject
  ``graphiti:episode:<uuid>``, valid from its reference time: the evidence kept, searchable;
- an edge is one assertion (key: its uuid) about its source entity: predicate its name, value
  its fact, valid over ``[valid_at, invalid_at)``, supported by its episodes. Each attribute is
  one more assertion, ``<name>.<attribute>``, with the same times. When Graphiti invalidated
  the edge later (``expired_at`` after it was recorded), the assertion has two versions: the
  edge as first known, open-ended, then the edge closed at ``invalid_at``, known from
  ``expired_at`` (a source ``graphiti:expired:<uuid>``, Graphiti's model deciding).

Authority: what Vintage holds from Graphiti was extracted by a model, so every source's
authority is ``model_guess``, and its facts are candidates unless the importer trusts the
group; trust never lifts content the gates hold (instruction-like text stays a candidate), and
sensitive content is not imported at all. docs/graphiti.md.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from vintage.graph.core import limits
from vintage.graph.core.kinds import Authority, FactKind, SourceKind, Status
from vintage.graph.core.model import UNIX_EPOCH, FactIn, Scope, SourceIn, Subject, Value, digest
from vintage.graph.memory.injection import scan_write
from vintage.graph.memory.sensitive import sensitive_write
from vintage.ingest.graphiti.read import Edge, Entity, Episode, Graph

EPISODE_PREDICATE = "graphiti:episode"
SCOPE_KEY = "project"  # a group's facts live in scope project=<group_id>


@dataclass(frozen=True)
class Unit:
    """What one edge or episode writes, its drafts in the order the world learned them."""

    group: str
    origin: str  # "edge <uuid>" or "episode <uuid>": uuids only, never content
    subjects: tuple[Subject, ...]
    sources: tuple[SourceIn, ...]
    facts: tuple[FactIn, ...]
    held: bool = False  # the instruction gate holds it as a candidate whatever the trust


@dataclass
class Plan:
    units: list[Unit] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (origin, why)
    # What Graphiti holds that Vintage cannot say, counted (docs/graphiti.md).
    unmapped: Counter[str] = field(default_factory=Counter)


def scope_of(tenant: str, group: str) -> Scope:
    return Scope(tenant=tenant, keys={SCOPE_KEY: group})


def plan_graph(graph: Graph, tenant: str, trusted: frozenset[str] = frozenset()) -> Plan:
    plan = Plan()
    subjects = {u: _entity_subject(e) for u, e in graph.entities.items()}
    sources = {u: _episode_source(e) for u, e in graph.episodes.items()}
    for episode in graph.episodes.values():
        _episode(plan, episode, sources[episode.uuid], tenant, episode.group_id in trusted)
    for edge in graph.edges:
        _edge(plan, edge, graph, subjects, sources, tenant, edge.group_id in trusted)
    return plan


@functools.lru_cache(maxsize=65_536)  # labels, and an episode's name as title and subject name
def _short(text: str) -> str | None:
    """A short text (a name, a title) when it is within bounds and says nothing sensitive."""
    text = text.strip()
    if not text or len(text) > limits.MAX_NAME_CHARS or sensitive_write({"name": text}):
        return None
    return text


def _entity_subject(entity: Entity) -> Subject:
    kind = entity.labels[0].lower() if entity.labels else "entity"
    return Subject(id=f"graphiti:{entity.uuid}", kind=_short(kind) or "entity",
                   name=_short(entity.name), identifiers=(entity.uuid,))


def _episode_source(episode: Episode) -> SourceIn:
    return SourceIn(id=f"graphiti:episode:{episode.uuid}", kind=SourceKind.DOCUMENT,
                    available_at=episode.created_at, authority=Authority.MODEL_GUESS,
                    form=_short(episode.source), title=_short(episode.name))


def _status(trusted: bool, held: str | None) -> Status:
    return Status.ACTIVE if trusted and held is None else Status.CANDIDATE


def _too_large(value: str) -> bool:
    return len(value.encode()) > limits.MAX_TEXT_BYTES


def _episode(plan: Plan, episode: Episode, source: SourceIn, tenant: str,
             trusted: bool) -> None:
    origin = f"episode {episode.uuid}"
    content = episode.content
    if not content.strip():
        plan.unmapped["episode without content"] += 1
        return
    if _too_large(content):
        plan.skipped.append((origin, f"content larger than {limits.MAX_TEXT_BYTES} bytes: "
                                     "kept in Graphiti only"))
        return
    found = sensitive_write({"value": content})
    if found:
        plan.skipped.append((origin, f"content refused by the sensitive gate ({found})"))
        return
    held = scan_write(key=EPISODE_PREDICATE, value=content, subject=episode.name, owner=None,
                      retention_reason=None)
    subject = Subject(id=f"graphiti:episode:{episode.uuid}", kind="episode",
                      name=_short(episode.name), identifiers=(episode.uuid,))
    fact = FactIn(subject=subject.id, predicate=EPISODE_PREDICATE, value=content,
                  valid_from=episode.valid_at or episode.created_at, kind=FactKind.OBSERVATION,
                  status=_status(trusted, held), source=source.id,
                  key=_key(tenant, episode.group_id, "episode", episode.uuid))
    plan.units.append(Unit(episode.group_id, origin, (subject,), (source,), (fact,),
                           held is not None))


def _edge(plan: Plan, edge: Edge, graph: Graph, subjects: dict[str, Subject],
          sources: dict[str, SourceIn], tenant: str, trusted: bool) -> None:
    origin = f"edge {edge.uuid}"
    subject = subjects.get(edge.source_uuid)
    if subject is None:  # an edge into another group's entity: not this group's to import
        plan.skipped.append((origin, "its source entity is in another group"))
        return
    why = _refusal(edge, subject)
    if why is not None:
        plan.skipped.append((origin, why))
        return
    held = scan_write(key=edge.name, value=edge.fact, subject=subject.name or subject.id,
                      owner=None, retention_reason=None)
    status = _status(trusted, held)
    evidence = sorted((sources[u] for u in edge.episodes if u in sources),
                      key=lambda s: (s.available_at, s.id))
    if len(evidence) < len(edge.episodes):
        plan.unmapped["episode of an edge not in its group"] += len(edge.episodes) - len(evidence)
    if not evidence:  # the edge's own record of when Graphiti learned it
        evidence = [SourceIn(id=f"graphiti:edge:{edge.uuid}", kind=SourceKind.MODEL_INFERENCE,
                             available_at=edge.created_at, title="a Graphiti edge")]
    first = evidence[0].available_at
    end = edge.invalid_at
    closes = edge.expired_at is not None and end is not None and edge.expired_at > first
    if edge.expired_at is not None and end is None:
        plan.unmapped["expired edge without invalid_at"] += 1
    used = list(evidence)
    expired = None
    if closes:
        assert edge.expired_at is not None
        expired = SourceIn(id=f"graphiti:expired:{edge.uuid}", kind=SourceKind.MODEL_INFERENCE,
                           available_at=edge.expired_at, title="Graphiti invalidated the edge")
        used.append(expired)
    facts: list[FactIn] = []
    for predicate, value, key in _assertions(edge, tenant):
        def draft(source: SourceIn, valid_to: datetime | None,
                  predicate: str = predicate, value: Value = value, key: str = key) -> FactIn:
            return FactIn(subject=subject.id, predicate=predicate, value=value,
                          valid_from=edge.valid_at or UNIX_EPOCH, valid_to=valid_to,
                          kind=FactKind.INFERENCE, status=status, source=source.id, key=key)
        before = [s for s in evidence if expired is None or s.available_at < expired.available_at]
        after = [s for s in evidence if s not in before]
        facts += [draft(s, None if closes else end) for s in before]
        if expired is not None:
            facts += [draft(s, end) for s in (expired, *after)]
    plan.units.append(Unit(edge.group_id, origin, (subject,), tuple(used), tuple(facts),
                           held is not None))


def _refusal(edge: Edge, subject: Subject) -> str | None:
    """Why an edge cannot be imported (naming fields, never their text), or None."""
    if not edge.name.strip() or not edge.fact.strip():
        return "no name or no fact"
    if len(edge.name) > limits.MAX_NAME_CHARS or _too_large(edge.fact):
        return "its name or fact is over Vintage's bounds"
    if any((isinstance(v, str) and _too_large(v))
           or len(f"{edge.name}.{k}") > limits.MAX_NAME_CHARS for k, v in edge.attributes):
        return "an attribute is over Vintage's bounds"
    if edge.invalid_at is not None and edge.invalid_at <= (edge.valid_at or UNIX_EPOCH):
        return "invalid_at is not after valid_at"
    found = sensitive_write({"key": edge.name, "value": edge.fact,
                             **{f"attribute {k}": v for k, v in edge.attributes}})
    if found:
        return f"refused by the sensitive gate ({found})"
    return None


def _assertions(edge: Edge, tenant: str) -> list[tuple[str, Value, str]]:
    """(predicate, value, assertion key) of the edge and of each of its attributes."""
    found: list[tuple[str, Value, str]] = [
        (edge.name, edge.fact, _key(tenant, edge.group_id, "edge", edge.uuid))]
    found += [(f"{edge.name}.{name}", value, _key(tenant, edge.group_id, "edge", edge.uuid, name))
              for name, value in edge.attributes]
    # A predicate over Vintage's bound is refused, never cut (_refusal checks it first).
    return found


def _key(tenant: str, group: str, *parts: str) -> str:
    """An assertion key per Graphiti record (its uuid), within the group's scope."""
    return "k" + digest(scope_of(tenant, group).terms(), "graphiti", *parts)
