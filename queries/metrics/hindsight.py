"""What became of a metric answer's inputs after they were read, said apart from the answer.

An answer as of cutoff C holds nothing that became known after C (docs/contract.md, "No
look-ahead"). Two things can still be said about its inputs:

* **revised by the cutoff**: an answer computed on an earlier basis
(``vintage.queries.metrics.question``, a
  fixed period whose inputs straddle a restatement) reads its inputs just before the restating
  filing; the revisions public between then and C belong to C, and go to ``warnings``;
* **hindsight**: revisions public after C. Only asked for (``hindsight=True``, ``vintage asof
  --hindsight``), they go to the answer's own ``hindsight`` field, never to ``warnings``; not
  asked for, nothing after C is read at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Fact, Scope
from vintage.graph.core.temporal import from_to
from vintage.graph.store.protocol import Store, StoreTx
from vintage.queries.metrics.plans import Observed


def versions_since(tx: StoreTx, now: datetime, scope: Scope, used: Sequence[Fact],
                   read_at: datetime, asked: datetime, hindsight: bool) -> dict[str, list[Fact]]:
    """The versions of each input that say what became of it after ``read_at`` (the cutoff
    its inputs were read at), oldest first: every version with ``hindsight``; otherwise only
    the ones public by the question's cutoff ``asked``, through an as-of read at ``asked`` (none
    at all when ``asked`` is ``read_at``: the inputs are current then by construction)."""
    keys = sorted({f.key for f in used})
    if hindsight:
        return tx.versions(keys)
    if asked <= read_at or not used:
        return {}
    valid = from_to(min(f.valid_from for f in used),
                    max(f.valid_to or f.valid_from for f in used))
    spec = AsOf(scope, known_at=asked, valid=valid,
                subjects=tuple(sorted({f.subject for f in used})),
                predicates=tuple(sorted({f.predicate for f in used}))).resolved(now)
    found: dict[str, list[Fact]] = {}
    for f in tx.read(spec):
        if f.key in keys:
            found.setdefault(f.key, []).append(f)
    return found


def revisions(store: Store, tenant: str, used: Sequence[Fact],
              versions: Mapping[str, list[Fact]], asked: datetime,
              hindsight: bool) -> tuple[list[str], list[str] | None]:
    """(warnings: inputs revised by the cutoff ``asked``; hindsight: inputs revised after it,
    with the filing that did, or None when hindsight was not asked for)."""
    revised, later = [], []
    for f in used:
        chain = versions.get(f.key, [])
        known = [v for v in chain if v.available_at <= asked]
        then = known[-1] if known else f
        if then.id != f.id:
            revised.append(f"revised by the cutoff: {_revision(f, then)}")
        current = chain[-1] if chain and hindsight else then
        if current.id != then.id:
            later.append((then, current))
    if not hindsight:
        return revised, None
    cited = _first_sources(store, tenant, [new.id for _, new in later])
    # Named by the revision's own class: a reclassification is not called a restatement.
    return revised, [f"a later {_class(new)} exists: {_revision(old, new, cited.get(new.id))}"
                     for old, new in later]


def _class(new: Fact) -> str:
    return new.change.value if new.change else "revision"


def _revision(old: Fact, new: Fact, by: str | None = None) -> str:
    why = _class(new)
    source = f" by {by}" if by else ""
    return (f"{old.predicate} {Observed(old).span} was revised on {new.available_at.date()}"
            f"{source} ({why}) from {old.value} to {new.value}")


def _first_sources(store: Store, tenant: str, fact_ids: Sequence[str]) -> dict[str, str]:
    """Each fact's earliest source that supports it now (the filing that reported it)."""
    found: dict[str, str] = {}
    for s in store.supports(tenant, fact_ids) if fact_ids else []:  # earliest first per fact
        found.setdefault(s.fact_id, s.source_id)
    return found
