"""Why the as-of predicate leaves a fact out: the hard filters of ``vintage.graph.core.asof``, one
reason each.

A search (``vintage.queries.search.run``) reports, for the items its query text matched in the
tenant within the read's scope, how many each hard filter excluded, so that a caller can tell "not
there" from "there, and not legal for this read". The scope is a boundary there, never a count
(``SCOPE`` is for a caller entitled to look past it, e.g. a trace asked by an admin). A fact
gets the first reason, in the order of ``REASONS``, that it fails; a visible fact gets none.
The Cypher and Python twins below say the same thing, as ``vintage.graph.core.asof.to_cypher`` and
``to_predicate`` do; the tenant is not a reason, since a read never looks at another tenant's
facts at all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vintage.graph.core.asof import (
    AsOf,
    holds_at,
    in_gap,
    past_closed,
    past_closure_clause,
    scope_clause,
    scope_test,
    to_cypher,
)
from vintage.graph.core.model import Fact

SCOPE = "outside the scope"
ERASED = "erased"
SYSTEM = "not held at the system instant"  # not yet recorded, invalidated, retracted
NOT_PUBLIC = "not yet public at the cutoff"
SUPERSEDED = "superseded by the cutoff"
VALID = "outside the valid time"
EXPIRED = "expired"
STATUS = "status not admitted"  # a candidate when candidates were not asked for
KIND = "another kind"
SUBJECT = "another subject"
PREDICATE = "another predicate"
ID = "not among the ids"
AUTHORITY = "below the required authority"  # a read's risk or --min-authority

# What the request asks about (subject, kind, predicate) comes before the read's instants: a
# fact of another subject is "another subject" whatever its times, and the time reasons count
# the facts the request is about (a search for one company's figures says how many of *its*
# facts were not yet public, not the tenant's). It also lets the embedded store count a
# matched fact of another subject from its postings alone, without reading the fact
# (``vintage.graph.sqlite.search_sql.others_sql``). Erased facts have no text left to match
# (their entries go with them), so where erasure sits changes no count. Ids come last: they
# narrow what is otherwise legal (a two-stage search's first stage, drawn from the legal set;
# a rescoring of named items), so a fact outside them that fails another filter is reported
# for that filter, as a trace reports it (``vintage.queries.search.trace``).
REASONS = (SCOPE, ERASED, SUBJECT, KIND, PREDICATE, SYSTEM, NOT_PUBLIC, SUPERSEDED, VALID,
           EXPIRED, STATUS, AUTHORITY, ID)


def why_excluded(spec: AsOf) -> Callable[[Fact], str | None]:
    """The reason each fact of the spec's tenant is not visible (None: it is)."""
    known, system = spec._instants()
    holds_scope = scope_test(spec)
    unexpired = spec.unexpired_at
    valid = spec.valid
    least = -1 if spec.min_authority is None else int(spec.min_authority)

    def reason(f: Fact) -> str | None:
        closed = (f.superseded_at is not None and f.superseded_recorded_at is not None
                  and f.superseded_recorded_at <= system and f.superseded_at <= known)
        expired = f.expires_at is not None and (
            not valid.overlaps(f.valid_from, f.expires_at)
            or (unexpired is not None and f.expires_at <= unexpired))
        checks = (
            (SCOPE, holds_scope(f.scope)),
            (ERASED, f.erased_at is None),
            (SUBJECT, spec.subjects is None or f.subject in spec.subjects),
            (KIND, spec.kinds is None or f.kind in spec.kinds),
            (PREDICATE, spec.predicates is None or f.predicate in spec.predicates),
            (SYSTEM, f.recorded_at <= system
             and (f.invalidated_at is None or system < f.invalidated_at)
             and not in_gap(f.gaps_from, f.gaps_to, system)),
            (NOT_PUBLIC, f.available_at <= known),
            (SUPERSEDED, not closed and not past_closed(f, known, system)),
            (VALID, valid.overlaps(f.valid_from, f.valid_to)),
            (EXPIRED, not expired),
            (STATUS, f.status in spec.statuses),
            (AUTHORITY, f.authority >= least),
            (ID, spec.ids is None or f.id in spec.ids),
        )
        return next((name for name, ok in checks if not ok), None)

    return reason


def reason_cypher(spec: AsOf, alias: str = "f") -> tuple[str, dict[str, Any]]:
    """A Cypher ``CASE`` expression over node ``alias``: the first reason it is not visible
    (null: it is), with the parameters of ``vintage.graph.core.asof.to_cypher`` (the same names, so
    the two
    can sit in one query)."""
    _, params = to_cypher(spec, alias)
    f = alias
    valid = spec.valid
    if valid.is_instant:
        in_valid = f"{f}.valid_from <= $asof_valid_at AND ({f}.valid_to IS NULL OR " \
                   f"$asof_valid_at < {f}.valid_to)"
        unexpired = f"({f}.expires_at IS NULL OR $asof_valid_at < {f}.expires_at)"
    else:
        in_valid = " AND ".join(
            ([f"{f}.valid_from < $asof_valid_end"] if valid.end is not None else [])
            + ([f"({f}.valid_to IS NULL OR $asof_valid_start < {f}.valid_to)"]
               if valid.start is not None else [])) or "true"
        unexpired = (f"({f}.expires_at IS NULL OR $asof_valid_start < {f}.expires_at)"
                     if valid.start is not None else "true")
    checks = [
        (SCOPE, scope_clause(spec, f)),
        (ERASED, f"{f}.erased_at IS NULL"),
    ]
    for reason, name, key in ((SUBJECT, "subject", "asof_subjects"), (KIND, "kind", "asof_kinds"),
                              (PREDICATE, "predicate", "asof_predicates")):
        if key in params:
            checks.append((reason, f"{f}.{name} IN ${key}"))
    checks += [
        (SYSTEM, holds_at(f, "$asof_system")),
        (NOT_PUBLIC, f"{f}.available_at <= $asof_known"),
        (SUPERSEDED, f"({f}.superseded_at IS NULL OR $asof_known < {f}.superseded_at OR "
                     f"$asof_system < {f}.superseded_recorded_at) AND "
                     + past_closure_clause(f, "$asof_known", "$asof_system")),
        (VALID, in_valid),
        (EXPIRED, unexpired if spec.unexpired_at is None else
         f"{unexpired} AND ({f}.expires_at IS NULL OR $asof_unexpired < {f}.expires_at)"),
        (STATUS, f"{f}.status IN $asof_statuses"),
    ]
    if "asof_min_authority" in params:
        checks.append((AUTHORITY, f"{f}.authority >= $asof_min_authority"))
    if "asof_ids" in params:
        checks.append((ID, f"{f}.id IN $asof_ids"))
    whens = "\n".join(f"  WHEN NOT ({clause}) THEN '{reason}'" for reason, clause in checks)
    return f"CASE\n{whens}\n  ELSE null END", params
