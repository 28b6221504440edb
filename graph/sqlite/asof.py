"""The as-of predicate compiled to a SQL ``WHERE`` body: the SQLite twin of
``vintage.graph.core.asof.to_cypher``, clause for clause.

Instants are stored as whole microseconds since the epoch (``micros``): integers compare as the
instants do, and the (tenant, subject, predicate) and (tenant, key) indexes narrow a read before
any of these tests runs. Lists (scope terms, subjects, ids) travel as one JSON parameter each and
are read with ``json_each``, so a read's SQL text depends on its shape only, never on its values.
System-time gaps and past closures are JSON arrays, NULL for almost every fact.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from vintage.graph.core.asof import AsOf
from vintage.graph.core.exclusion import (
    AUTHORITY,
    ERASED,
    EXPIRED,
    ID,
    KIND,
    NOT_PUBLIC,
    PREDICATE,
    REASONS,
    SCOPE,
    STATUS,
    SUBJECT,
    SUPERSEDED,
    SYSTEM,
    VALID,
)

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICRO = timedelta(microseconds=1)


def micros(t: datetime | None) -> int | None:
    """An instant as whole microseconds since the epoch (exact: instants are UTC with
    microseconds at most); None stays NULL."""
    return None if t is None else (t - _EPOCH) // _MICRO


def instant(n: int | None) -> datetime | None:
    return None if n is None else when(n)


def when(n: int) -> datetime:
    return _EPOCH + n * _MICRO


def holds_at(alias: str, at: str) -> str:
    """A fact or edge ``alias`` holds at system instant ``at`` (a parameter): recorded by then,
    not yet invalidated, not in one of its gaps (``[[from, to], ...]``)."""
    a = alias
    return (f"{a}.recorded_at <= {at} AND ({a}.invalidated_at IS NULL OR {at} < "
            f"{a}.invalidated_at) AND ({a}.gaps IS NULL OR NOT EXISTS (SELECT 1 FROM "
            f"json_each({a}.gaps) g WHERE json_extract(g.value, '$[0]') <= {at}"
            f" AND {at} < json_extract(g.value, '$[1]')))")


def to_sql(spec: AsOf, alias: str = "f") -> tuple[str, dict[str, Any]]:
    """A ``WHERE`` body over the facts table as ``alias``; every value is a ``:param``."""
    tagged, params = _tagged(spec, alias)
    return "\n  AND ".join(clause for _, clause in tagged), params


# What a search cannot tell from the columns alone: a fact with a TTL, whose valid end is in its
# body (``holds_until`` is the earlier of the two), is judged by ``why_excluded`` itself.
UNDECIDED = "?"


def reason_sql(spec: AsOf, alias: str = "f") -> tuple[str, dict[str, Any]]:
    """A ``CASE`` over the facts table as ``alias``: the first reason of
    ``vintage.graph.core.exclusion.REASONS`` it fails (NULL: visible), as ``why_excluded``
    says, or ``UNDECIDED`` for a fact with a TTL that passed the checks before the valid time;
    the clauses and parameters of ``to_sql``, so the two sit in one query."""
    tagged, params = _tagged(spec, alias)
    whens = []
    for reason in REASONS:
        if reason == VALID:
            whens.append(f"WHEN {alias}.expires_at IS NOT NULL THEN '{UNDECIDED}'")
        clauses = [c for r, c in tagged if r == reason]
        if clauses:
            whens.append(f"WHEN ({' AND '.join(clauses)}) IS NOT 1 THEN '{reason}'")
    return "CASE\n  " + "\n  ".join(whens) + "\n  ELSE NULL END", params


def _tagged(spec: AsOf, alias: str) -> tuple[list[tuple[str, str]], dict[str, Any]]:
    """``to_sql``'s clauses in order, each with the reason a fact failing it is excluded
    for (the valid-time bounds on ``holds_until`` are ``VALID`` for a fact without a TTL)."""
    if not alias.isidentifier():
        raise ValueError("alias must be a SQL identifier")
    known_at, system_at = spec._instants()
    f = alias
    clauses = [
        ("", f"{f}.tenant = :asof_tenant"),
        (SCOPE, f"{f}.scope = '[]'" if spec.shared_only else
         f"NOT EXISTS (SELECT 1 FROM json_each(:asof_scope) t WHERE t.value NOT IN "
         f"(SELECT value FROM json_each({f}.scope)))"),
        (NOT_PUBLIC, f"{f}.available_at <= :asof_known"),
        (SUPERSEDED, f"({f}.superseded_at IS NULL OR :asof_known < {f}.superseded_at"
                     f" OR :asof_system < {f}.superseded_recorded_at)"),
        # A past closure ([at, from, to]) counts at the system instants it held.
        (SUPERSEDED, f"({f}.past IS NULL OR NOT EXISTS (SELECT 1 FROM json_each({f}.past) p "
                     f"WHERE json_extract(p.value, '$[1]') <= :asof_system"
                     f" AND :asof_system < json_extract(p.value, '$[2]')"
                     f" AND json_extract(p.value, '$[0]') <= :asof_known))"),
        (SYSTEM, holds_at(f, ":asof_system")),
        (STATUS, f"{f}.status IN (SELECT value FROM json_each(:asof_statuses))"),
        (ERASED, f"{f}.erased = 0"),
    ]
    params: dict[str, Any] = {
        "asof_tenant": spec.scope.tenant,
        "asof_scope": json.dumps(list(spec.scope.terms())),
        "asof_known": micros(known_at),
        "asof_system": micros(system_at),
        "asof_statuses": json.dumps(sorted(s.value for s in spec.statuses)),
    }
    if spec.unexpired_at is not None:
        clauses.append((EXPIRED, f"({f}.expires_at IS NULL OR :asof_unexpired < "
                                 f"{f}.expires_at)"))
        params["asof_unexpired"] = micros(spec.unexpired_at)
    if spec.min_authority is not None:  # kept plain in the body, sealed or not
        clauses.append((AUTHORITY, f"json_extract({f}.body, '$.authority') >= "
                                   ":asof_min_authority"))
        params["asof_min_authority"] = int(spec.min_authority)
    valid = spec.valid
    if valid.is_instant:
        clauses.append((VALID, f"{f}.valid_from <= :asof_valid_at"))
        clauses.append((VALID, f"({f}.holds_until IS NULL OR :asof_valid_at < "
                               f"{f}.holds_until)"))
        params["asof_valid_at"] = micros(valid.start)
    else:
        if valid.end is not None:
            clauses.append((VALID, f"{f}.valid_from < :asof_valid_end"))
            params["asof_valid_end"] = micros(valid.end)
        if valid.start is not None:
            clauses.append((VALID, f"({f}.holds_until IS NULL OR :asof_valid_start < "
                                   f"{f}.holds_until)"))
            params["asof_valid_start"] = micros(valid.start)
    for reason, name, values in (
        (SUBJECT, "subject", spec.subjects),
        (PREDICATE, "predicate", spec.predicates),
        (KIND, "kind", None if spec.kinds is None else tuple(k.value for k in spec.kinds)),
        (ID, "id", spec.ids),
    ):
        if values is not None:
            clauses.append((reason, f"{f}.{name} IN (SELECT value FROM json_each(:asof_{name}s))"))
            params[f"asof_{name}s"] = json.dumps(list(values))
    return clauses, params
