"""A cascade follows derivations ``MAX_DEPTH`` steps deep, the same on every backend: a
restated input closes a chain to that depth and leaves what lies further down as it is (a
walk's depth counts the derivation nodes too, which once stopped the embedded reference at half
the depth while Neo4j went on)."""

from __future__ import annotations

from datetime import timedelta

from vintage.graph.core.model import FactIn, Scope, SourceIn, Subject
from vintage.graph.core.temporal import parse_instant
from vintage.graph.derivations.derived import Output, derive
from vintage.graph.derivations.recipes import expression
from vintage.graph.store.protocol import Store
from vintage.graph.writes.reach import MAX_DEPTH
from vintage.graph.writes.semantics import Batch, record

DAY0 = parse_instant("2020-01-01")
PERIOD = (parse_instant("2019-01-01"), parse_instant("2019-04-01"))
STEPS = MAX_DEPTH + 2


def test_a_restatement_closes_a_derivation_chain_to_the_cascade_depth_and_no_further(
    store: Store, scope: Scope,
) -> None:
    filed = record(store, scope, Batch(
        subjects=[Subject(id="A")], sources=[SourceIn(id="10-K", kind="filing",
                                                      available_at=DAY0)],
        facts=[FactIn(subject="A", predicate="base", value=1, unit="USD",
                      valid_from=PERIOD[0], valid_to=PERIOD[1], source="10-K")]), actor="t")
    (previous,) = filed.created
    plus_one = expression("plus1", "1", "x + 1")
    chain = []
    for i in range(STEPS):
        done = derive(store, scope, plus_one, {"x": previous},
                      Output("A", f"d{i}", PERIOD[0], PERIOD[1], "USD"), actor="t")
        previous = done.fact.id
        chain.append(previous)
    amended = SourceIn(id="10-K/A", kind="filing", available_at=DAY0 + timedelta(days=30))
    report = record(store, scope, Batch(sources=[amended], facts=[FactIn(
        subject="A", predicate="base", value=2, unit="USD", valid_from=PERIOD[0],
        valid_to=PERIOD[1], source="10-K/A")]), actor="t")
    depths = {o.fact.id: (o.fate.value, o.depth) for o in report.cascade}
    assert [depths.get(fid) for fid in chain] == [
        *[("closed", d) for d in range(1, MAX_DEPTH + 1)], None, None]
