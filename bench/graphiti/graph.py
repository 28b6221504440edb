"""The retrieval benchmark's ground truth as a Graphiti graph, and its questions as Graphiti's
searches: pure functions (no database), run by ``bench.graphiti.main``.

Every predicted version (``bench.retrieval.corpus.Version``, ``bench.retrieval.sec``) is one
``RELATES_TO`` edge, written as Graphiti would hold it had it ingested each write the moment it
became known, with its contradiction resolution at its best (the recipe of issue 41):

* ``created_at`` is the version's knowledge time (its observed or filed instant): Graphiti's
  only time of knowing, so ingestion is taken to be immediate, which favours Graphiti;
  ``expired_at`` is when the next version became known (a restatement or correction);
* ``valid_at``/``invalid_at`` are the version's event window; an expiry (TTL) ends it too;
* ``group_id`` is one per (tenant, scope); a candidate (a model's guess) goes to a group of its
  own beside its scope's, so that a search leaves it out unless the question admits candidates:
  Graphiti has no status, and this is the closest it comes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from bench.retrieval.corpus import Corpus, Version
from bench.retrieval.queries import Query
from bench.retrieval.sec import Filed
from vintage.graph.core.kinds import Status


@dataclass(frozen=True)
class Edge:
    id: str  # the version id (Graphiti's edge uuid is derived from it)
    group: str
    source: str  # the subject
    name: str  # the key or concept
    fact: str
    created_at: datetime
    expired_at: datetime | None
    valid_at: datetime
    invalid_at: datetime | None


@dataclass(frozen=True)
class Group:
    tenant: str
    scope: frozenset[str]
    candidates: bool


def group_id(tenant: str, scope: Iterable[str], candidates: bool = False) -> str:
    """A name Graphiti accepts (letters, digits, ``-``, ``_``) for one tenant's scope."""
    blob = json.dumps([tenant, sorted(scope), candidates])
    return "bench-graphiti-" + hashlib.sha256(blob.encode()).hexdigest()[:24]


def edge(v: Version, subject: str, name: str) -> tuple[Edge, Group]:
    candidate = v.status is Status.CANDIDATE
    ends = [t for t in (v.valid_to, v.expires) if t is not None]
    group = Group(v.tenant, v.scope, candidate)
    return Edge(id=v.id, group=group_id(v.tenant, v.scope, candidate), source=subject,
                name=name, fact=v.text, created_at=v.available, expired_at=v.superseded,
                valid_at=v.valid_from, invalid_at=min(ends) if ends else None), group


def edges(corpus: Corpus, filings: Iterable[Filed]) -> tuple[list[Edge], dict[str, Group]]:
    out: list[Edge] = []
    groups: dict[str, Group] = {}
    made = [(v, m.subject, m.key) for m in corpus.memories for v in m.versions()]
    made += [(v, f.ticker, f.predicate) for f in filings for v in f.versions]
    for v, subject, name in made:
        e, g = edge(v, subject, name)
        out.append(e)
        groups[e.group] = g
    return out, groups


def readable(q: Query, groups: Mapping[str, Group]) -> list[str]:
    """The groups a question may search: its tenant's, whose scope carries every key of the
    question's (every scope for a tenant-wide read); candidates only when it admits them."""
    terms = {f"{k}={x}" for k, x in q.scope.items()}
    return sorted(name for name, g in groups.items()
                  if g.tenant == q.tenant and (q.all_scopes or terms <= g.scope)
                  and (q.candidates or not g.candidates))


def filters(q: Query, now: datetime) -> dict[str, list[list[tuple[str, datetime | None]]]]:
    """The date groups (OR of ANDs) of ``SearchFilters``, as the as-of predicate reads: known
    by the cutoff (else now) and not yet replaced then; valid at the valid instant, which
    defaults to the cutoff except for a tenant-wide read (every valid time). One instant per
    OR group of a field: Graphiti names its parameters by their place in a group."""
    known = q.cutoff or now
    valid = q.valid_at or (None if q.all_scopes else known)
    out: dict[str, list[list[tuple[str, datetime | None]]]] = {
        "created_at": [[("<=", known)]],
        "expired_at": [[("IS NULL", None)], [(">", known)]],
    }
    if valid is not None:
        out["valid_at"] = [[("<=", valid)]]
        out["invalid_at"] = [[("IS NULL", None)], [(">", valid)]]
    return out
