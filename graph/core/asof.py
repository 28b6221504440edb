"""The as-of predicate: defined once, compiled to Cypher for Neo4j and to Python for embedded.

For tenant τ, scope σ, knowledge cutoff C, valid window V and system instant T, a fact is
visible iff (docs/contract.md, "The as-of predicate")::

    tenant = τ ∧ scope ⊇ σ ∧ available_at ≤ C < superseded_at ∧ valid ∩ V ≠ ∅
    ∧ recorded_at ≤ T < invalidated_at ∧ status ∈ admitted ∧ authority ≥ A

``A`` is the read's minimum authority (``min_authority``: a risk's, ``vintage.graph.core.kinds.
RISK_AUTHORITY``); none by default. It is the one place a read says what authority it requires,
so that whatever judges a read's premises later (staleness) asks it here.

One refinement makes system time exact: a fact's knowledge interval is closed by a later write,
so ``superseded_at`` only counts at system instants on or after ``superseded_recorded_at``. Before
the engine learned of the correction, it would have answered with the open interval. A closure
that stopped holding (its correcting version was withdrawn) is kept as a past closure with the
system-time stretch it held, and counts at the instants of that stretch only.

Defaults, resolved against the store's clock when the read runs: C = now, T = now, V = all time,
admitted statuses = {active}.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from vintage.graph.core.errors import UserError
from vintage.graph.core.kinds import Authority, FactKind, Status
from vintage.graph.core.model import Fact, Scope
from vintage.graph.core.temporal import Interval, all_time, require_utc


class TenantRequired(UserError, ValueError):
    """A read or write that names no tenant. It is never widened to every tenant."""


@dataclass(frozen=True)
class AsOf:
    scope: Scope
    known_at: datetime | None = None
    valid: Interval = field(default_factory=all_time)
    system_at: datetime | None = None
    statuses: frozenset[Status] = frozenset({Status.ACTIVE})
    subjects: tuple[str, ...] | None = None
    predicates: tuple[str, ...] | None = None
    kinds: tuple[FactKind, ...] | None = None
    # Only these fact versions (a search re-reads its ranked ids through the whole predicate,
    # so nothing a ranking returned is shown unless it is still legal).
    ids: tuple[str, ...] | None = None
    # Only the tenant's shared facts (no scope term at all: filings, tables), never a user's,
    # project's or thread's memory: what a search that names no scope reads.
    shared_only: bool = False
    # A TTL's end counted at this instant whatever the valid window (a search over every valid
    # time still leaves out a memory expired by its cutoff). None: only the window counts.
    unexpired_at: datetime | None = None
    # The least authority an item needs to be legal (a risk's, or --min-authority); None: any.
    min_authority: Authority | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.scope, Scope):
            raise TenantRequired("an as-of read needs a Scope with a tenant")
        if self.known_at is not None:
            object.__setattr__(self, "known_at", require_utc(self.known_at, "known_at"))
        if self.system_at is not None:
            object.__setattr__(self, "system_at", require_utc(self.system_at, "system_at"))
        if self.unexpired_at is not None:
            object.__setattr__(self, "unexpired_at",
                               require_utc(self.unexpired_at, "unexpired_at"))
        if self.shared_only and self.scope.keys:
            raise ValueError("a read of shared facts names no scope term")
        if not self.statuses:
            raise ValueError("an as-of read must admit at least one status")

    def resolved(self, now: datetime) -> AsOf:
        """Fill the "now" defaults from the store's clock, once per read."""
        return replace(
            self,
            known_at=self.known_at if self.known_at is not None else now,
            system_at=self.system_at if self.system_at is not None else now,
        )

    def _instants(self) -> tuple[datetime, datetime]:
        if self.known_at is None or self.system_at is None:
            raise ValueError("resolve the as-of spec against a clock before compiling it")
        return self.known_at, self.system_at


def to_cypher(spec: AsOf, alias: str = "f") -> tuple[str, dict[str, Any]]:
    """Compile to a Cypher ``WHERE`` body over node ``alias``; every value is a ``$param``."""
    if not alias.isidentifier():
        raise ValueError("alias must be a Cypher identifier")
    known_at, system_at = spec._instants()
    f = alias
    clauses = [
        f"{f}.tenant = $asof_tenant",
        scope_clause(spec, f),
        f"{f}.available_at <= $asof_known",
        f"({f}.superseded_at IS NULL OR $asof_known < {f}.superseded_at"
        f" OR $asof_system < {f}.superseded_recorded_at)",
        past_closure_clause(f, "$asof_known", "$asof_system"),
        holds_at(f, "$asof_system", sep="\n  AND "),
        f"{f}.status IN $asof_statuses",
        f"{f}.erased_at IS NULL",
    ]
    params: dict[str, Any] = {
        "asof_tenant": spec.scope.tenant,
        "asof_scope": spec.scope.terms(),
        "asof_known": known_at,
        "asof_system": system_at,
        "asof_statuses": sorted(s.value for s in spec.statuses),
    }
    if spec.unexpired_at is not None:
        clauses.append(f"({f}.expires_at IS NULL OR $asof_unexpired < {f}.expires_at)")
        params["asof_unexpired"] = spec.unexpired_at
    if spec.min_authority is not None:
        clauses.append(f"{f}.authority >= $asof_min_authority")
        params["asof_min_authority"] = int(spec.min_authority)
    valid = spec.valid
    if valid.is_instant:
        clauses.append(f"{f}.valid_from <= $asof_valid_at")
        clauses.append(f"({f}.valid_to IS NULL OR $asof_valid_at < {f}.valid_to)")
        clauses.append(f"({f}.expires_at IS NULL OR $asof_valid_at < {f}.expires_at)")
        params["asof_valid_at"] = valid.start
    else:
        if valid.end is not None:
            clauses.append(f"{f}.valid_from < $asof_valid_end")
            params["asof_valid_end"] = valid.end
        if valid.start is not None:
            clauses.append(f"({f}.valid_to IS NULL OR $asof_valid_start < {f}.valid_to)")
            clauses.append(f"({f}.expires_at IS NULL OR $asof_valid_start < {f}.expires_at)")
            params["asof_valid_start"] = valid.start
    for name, values in (
        ("subject", spec.subjects),
        ("predicate", spec.predicates),
        ("kind", None if spec.kinds is None else tuple(k.value for k in spec.kinds)),
        ("id", spec.ids),
    ):
        if values is not None:
            clauses.append(f"{f}.{name} IN $asof_{name}s")
            params[f"asof_{name}s"] = list(values)
    return "\n  AND ".join(clauses), params


def to_predicate(spec: AsOf) -> Callable[[Fact], bool]:
    """Compile to a Python predicate with exactly the semantics of :func:`to_cypher`."""
    known_at, system_at = spec._instants()
    tenant = spec.scope.tenant
    # A subset test is one C call where a generator over the terms is several: a search
    # runs this predicate on each fact of the tenant that has an entry.
    holds_scope = scope_test(spec)
    unexpired = spec.unexpired_at
    statuses = spec.statuses
    subjects = _as_set(spec.subjects)
    predicates = _as_set(spec.predicates)
    kinds = _as_set(spec.kinds)
    ids = _as_set(spec.ids)
    overlaps = _overlap_test(spec.valid)
    least = -1 if spec.min_authority is None else int(spec.min_authority)

    def visible(fact: Fact) -> bool:
        superseded_counts = (
            fact.superseded_at is not None
            and fact.superseded_recorded_at is not None
            and fact.superseded_recorded_at <= system_at
        )
        # Past closures and gaps are empty for almost every fact: the emptiness test first.
        return (
            fact.tenant == tenant
            and holds_scope(fact.scope)
            and fact.available_at <= known_at
            and not (superseded_counts and fact.superseded_at is not None
                     and fact.superseded_at <= known_at)
            and not (fact.past_superseded_at and past_closed(fact, known_at, system_at))
            and fact.recorded_at <= system_at
            and (fact.invalidated_at is None or system_at < fact.invalidated_at)
            and not (fact.gaps_from and in_gap(fact.gaps_from, fact.gaps_to, system_at))
            and fact.status in statuses
            and fact.erased_at is None
            and overlaps(fact.valid_from, _holds_until(fact))
            and (unexpired is None or fact.expires_at is None or unexpired < fact.expires_at)
            and (subjects is None or fact.subject in subjects)
            and (predicates is None or fact.predicate in predicates)
            and (kinds is None or fact.kind in kinds)
            and (ids is None or fact.id in ids)
            and fact.authority >= least
        )

    return visible


def scope_test(spec: AsOf) -> Callable[[Sequence[str]], bool]:
    """Whether a fact's scope terms lie in the read's scope: it carries every term the read
    names (and none at all, for a read of shared facts). The one Python spelling; the Cypher
    twin is :func:`scope_clause`."""
    terms = frozenset(spec.scope.terms())
    if spec.shared_only:
        return lambda scope: not scope
    return terms.issubset


def scope_clause(spec: AsOf, alias: str) -> str:
    """Cypher twin of :func:`scope_test` over node ``alias`` (parameter ``$asof_scope``)."""
    if spec.shared_only:
        return f"({alias}.scope IS NULL OR size({alias}.scope) = 0)"  # Neo4j may drop []
    return f"all(term IN $asof_scope WHERE term IN {alias}.scope)"


def past_closed(fact: Fact, known_at: datetime, system_at: datetime) -> bool:
    """Whether a closure that held at system instant ``system_at``, and no longer does, had
    ended the fact's knowledge by ``known_at`` (a restatement since withdrawn: as of then,
    the engine answered with the closed interval)."""
    return any(since <= system_at < until and at <= known_at for at, since, until in zip(
        fact.past_superseded_at, fact.past_superseded_from, fact.past_superseded_to,
        strict=True))


def past_closure_clause(alias: str, known: str, system: str) -> str:
    """Cypher twin of :func:`past_closed`, negated: no past closure of ``alias`` held at
    ``system`` with an end at or before ``known``."""
    a = alias
    return (f"({a}.past_superseded_at IS NULL OR none(i IN range(0, size({a}.past_superseded_at)"
            f" - 1) WHERE {a}.past_superseded_from[i] <= {system}"
            f" AND {system} < {a}.past_superseded_to[i] AND {a}.past_superseded_at[i] <= {known}))")


def _overlap_test(valid: Interval) -> Callable[[datetime, datetime | None], bool]:
    """``valid.overlaps``, with the window's shape decided once per read instead of per fact:
    all time overlaps everything, and an instant is two comparisons."""
    at = valid.start
    if at is None and valid.end is None:
        return lambda start, end: True
    if at is not None and valid.is_instant:
        return lambda start, end: start <= at and (end is None or at < end)
    return valid.overlaps


def _holds_until(fact: Fact) -> datetime | None:
    """The end of a fact on the valid axis: its valid_to, cut short by a TTL's expiry."""
    if fact.expires_at is None:
        return fact.valid_to
    return fact.expires_at if fact.valid_to is None else min(fact.valid_to, fact.expires_at)


def holds_at(alias: str, instant: str, sep: str = " AND ") -> str:
    """Cypher: the node or relationship ``alias`` holds at the system instant ``instant`` (a
    ``$param``): recorded by then, not yet invalidated, and not in one of its gaps. The one
    spelling of that test, for facts here and for support and lineage edges in
    ``vintage.graph.neo4j``; the Python twins are ``to_predicate`` and the embedded ``live``.
    ``sep``
    joins its three clauses, so that each query keeps its own layout."""
    a = alias
    return sep.join((
        f"{a}.recorded_at <= {instant}",
        f"({a}.invalidated_at IS NULL OR {instant} < {a}.invalidated_at)",
        gap_clause(a, instant),
    ))


def gap_clause(alias: str, instant: str) -> str:
    """Cypher: the node or relationship ``alias`` is not in one of its system-time gaps."""
    a = alias
    return (f"({a}.gaps_from IS NULL OR none(i IN range(0, size({a}.gaps_from) - 1)"
            f" WHERE {a}.gaps_from[i] <= {instant} AND {instant} < {a}.gaps_to[i]))")


def in_gap(starts: Sequence[datetime], ends: Sequence[datetime], t: datetime) -> bool:
    return any(a <= t < b for a, b in zip(starts, ends, strict=True))


def _as_set(values: Iterable[Any] | None) -> frozenset[Any] | None:
    return None if values is None else frozenset(values)
