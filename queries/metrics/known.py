"""What a metric question knows of its companies at a cutoff: their figures as known then, each
with the latest support public by the cutoff and the first source that reported it.

One store read for every company of a question (``known_all``): the as-of predicate runs in
the store over all of them at once, and each company keeps only its own concepts (a company's
metric maps to its own concepts, ``Metric.predicates_for``), in the read's order. A read per
company cost a round trip each, which a three-company question paid three times.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Fact, Scope
from vintage.graph.core.temporal import Interval
from vintage.graph.store.protocol import Confirmation, StoreTx


@dataclass
class Known:
    facts: list[Fact]
    confirmed: dict[str, datetime]  # fact id -> latest support public by the cutoff
    first_source: dict[str, str]  # fact id -> the earliest source that reported it
    subject: str = ""  # whose facts: a refusal names the concepts tried for this subject


def known_all(tx: StoreTx, now: datetime, scope: Scope, wanted: Mapping[str, Sequence[str]],
              cutoff: datetime, valid: Interval) -> dict[str, Known]:
    """Each subject of ``wanted`` (subject -> its predicates) as known at ``cutoff`` within
    ``valid``, from one read."""
    if not wanted:
        return {}
    predicates = sorted({p for ps in wanted.values() for p in ps})
    found = tx.read_confirmed(AsOf(scope, known_at=cutoff, valid=valid,
                                   subjects=tuple(sorted(wanted)),
                                   predicates=tuple(predicates)).resolved(now))
    own = {s: frozenset(ps) for s, ps in wanted.items()}
    rows: dict[str, list[tuple[Fact, Confirmation | None]]] = {s: [] for s in wanted}
    for f, c in found:
        if f.predicate in own.get(f.subject, ()):
            rows[f.subject].append((f, c))
    return {s: _known(rows[s], s) for s in wanted}


def _known(found: list[tuple[Fact, Confirmation | None]], subject: str) -> Known:
    facts = [f for f, _ in found]
    seen = {f.id: c for f, c in found if c is not None}
    confirmed = {f.id: seen[f.id].last_at if f.id in seen else f.available_at for f in facts}
    return Known(facts, confirmed, {fid: c.first_source for fid, c in seen.items()}, subject)
