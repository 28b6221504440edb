"""A derivation graph with a cycle is refused by both Neo4j cascade paths, before anything is
written. Vintage never writes one (``derive`` refuses an assertion that would depend on itself),
so the cycle here is put in by hand, as a corrupted or hand-edited store would hold it: the
server-side procedure and the pure-Cypher path (decided in Python) must each say so, as the
store's own ``CycleError`` (a clear one-line error at the CLI), rather than close some of it
silently or surface the driver's or graphlib's exception."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.factories import QUARTER, filed_base
from vintage.graph.core.labels import DERIVATION, FACT, USED
from vintage.graph.core.model import Scope
from vintage.graph.derivations.derived import CycleError, Output, derive
from vintage.graph.derivations.recipes import expression
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.writes.cascade import CYCLE, _topological
from vintage.graph.writes.semantics import record


def test_a_cascade_through_a_derivation_cycle_is_refused_and_writes_nothing(
    cascade_paths: Neo4jStore, scope: Scope,
) -> None:
    neo4j = cascade_paths
    (base,) = record(neo4j, scope, filed_base(1, "10-K", 0), actor="t").created
    plus_one = expression("plus1", "1", "x + 1")
    first = derive(neo4j, scope, plus_one, {"x": base},
                   Output("A", "d0", QUARTER[0], QUARTER[1], "USD"), actor="t")
    second = derive(neo4j, scope, plus_one, {"x": first.fact.id},
                    Output("A", "d1", QUARTER[0], QUARTER[1], "USD"), actor="t")
    # The first derivation also "uses" the second's output: d0 -> d1 -> d0.
    with neo4j.driver.session(database=neo4j.database) as session:
        session.run(f"""
MATCH (d:{DERIVATION} {{tenant: $tenant, id: $derivation}})-[u:{USED}]->(:{FACT})
MATCH (late:{FACT} {{tenant: $tenant, id: $late}})
CREATE (d)-[again:{USED}]->(late) SET again = properties(u)""",
                    tenant=scope.tenant, derivation=first.derivation_id,
                    late=second.fact.id).consume()
    with pytest.raises(CycleError, match="has a cycle"):
        record(neo4j, scope, filed_base(2, "10-K/A", 30), actor="t")
    facts = neo4j.reading(scope.tenant, lambda tx: tx.get_facts(
        [base, first.fact.id, second.fact.id]))
    assert all(f.superseded_at is None for f in facts.values())  # nothing closed
    versions = neo4j.reading(scope.tenant, lambda tx: tx.versions([facts[base].key]))
    assert [f.id for f in versions[facts[base].key]] == [base]  # the restatement not recorded


def test_the_embedded_reference_orders_no_cycle_and_names_the_facts_in_it() -> None:
    with pytest.raises(CycleError, match="has a cycle through a, b, a"):
        _topological({"a": [("b",)], "b": [("a",)], "c": [("a",)]})


def test_the_refusal_read_from_the_server_is_the_one_cascade_java_raises() -> None:
    java = Path(__file__).parents[1] / "docker/neo4j-plugin/src/main/java/dev/vintage/neo4j"
    assert f'"{CYCLE}"' in (java / "Cascade.java").read_text(encoding="utf-8")
