"""The embedded backend's downstream subgraph (``vintage.graph.writes.reach``), from the general
primitives.

Also the reference: tests/test_cascade_equivalence.py checks Neo4j's one-query-per-level answer
(``vintage.graph.neo4j.downstream``) against this on the same graph.
"""

from __future__ import annotations

from datetime import datetime

from vintage.graph.core.labels import FACT, GENERATED, USED
from vintage.graph.store.protocol import Direction, StoreTx
from vintage.graph.writes.reach import MAX_DEPTH, Downstream, Ends, FactRef, Reach


def by_walk(tx: StoreTx, starts: list[str], at: datetime) -> Downstream:
    """:class:`Downstream` from the general primitives: one walk, the justifications of what
    it reached, and those facts and their inputs."""
    # A walk's depth counts nodes passed (fact, derivation, fact): a derivation step is two.
    walk = tx.walk(sorted(set(starts)), Direction.DOWNSTREAM, at, 2 * MAX_DEPTH,
                   (USED, GENERATED))
    derived = sorted(walk.ids(FACT) - set(starts))
    if not derived:
        return Downstream({}, {})
    justs: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for j in tx.justifications(derived, at):
        justs.setdefault(j.output_id, []).append(
            (j.derivation.id, tuple(sorted({i for i, _ in j.inputs}))))
    inputs = {i for js in justs.values() for _, ids in js for i in ids}
    facts = tx.get_facts(sorted(set(derived) | inputs))
    reached = {fid: Reach(FactRef.of(facts[fid]), tuple(sorted(justs.get(fid, []))))
               for fid in derived}
    return Downstream(reached, {fid: Ends.of(f) for fid, f in facts.items()})
