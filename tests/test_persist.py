"""Finding persisted plans: ``persisted_all`` predicts every derivation of every plan from its
leaves and looks them all up in one round trip. Where a derivation kept an equal value known
since earlier (another fact than the one predicted), that plan is found level by level, as
``persist`` made it; a plan with a derivation missing is None."""

from __future__ import annotations

from tests.factories import Q1_2018, PinnedClock, batch, fact
from tests.test_lineage import RESTATED, inputs
from tests.test_question_round_trips import Counting
from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Fact, Scope
from vintage.graph.derivations.recipes import expression
from vintage.graph.store.protocol import Store
from vintage.graph.writes.semantics import record
from vintage.queries.metrics.fiscal import Span
from vintage.queries.metrics.persist import Persisted, Plan, persist, persisted_all
from vintage.queries.metrics.plans import Computed, Observed, PlanNode

SPAN = Span.from_valid(*Q1_2018)


def plan(over: Fact, copy: str = "x") -> Computed:
    """Two levels: the input copied into ``derived:Copy``, then doubled."""
    copied = Computed(expression("Copy", "1", copy), (("x", Observed(over)),), "derived:Copy",
                      "USD", SPAN, "copied")
    return Computed(expression("Double", "1", "x * 2"), (("x", copied),), "derived:Double",
                    "USD", SPAN, "doubled")


def persisted(store: Store, scope: Scope, node: PlanNode) -> Persisted:
    derivations: list[str] = []
    fact = store.write(scope.tenant, lambda tx: persist(
        tx, store.now(), scope, "GOOGL", node, "t", derivations))
    return Persisted(fact, derivations)


def found(store: Store, scope: Scope, *nodes: PlanNode,
          calls: Counting | None = None) -> list[tuple[str, list[str]] | None]:
    def read(tx: object) -> list[Persisted | None]:
        seen = tx if calls is None else Counting(tx, calls.calls)
        return persisted_all(seen, [Plan(scope, "GOOGL", n) for n in nodes])  # type: ignore[arg-type]
    return [None if p is None else (p.fact.id, p.derivations)
            for p in store.reading(scope.tenant, read)]


def test_plans_persisted_as_predicted_are_found_in_one_lookup(
    store: Store, scope: Scope,
) -> None:
    given = inputs(store, scope, Revenues=100, Costs=60)
    revenue, costs = plan(given["Revenues"]), plan(given["Costs"])
    made = [persisted(store, scope, revenue), persisted(store, scope, costs)]
    calls = Counting(store)
    assert found(store, scope, revenue, costs, calls=calls) == [
        (m.fact.id, m.derivations) for m in made]
    assert calls.calls == {"generated_by": 1}  # both plans, both levels


def test_a_plan_whose_derivation_kept_an_earlier_equal_fact_is_found_level_by_level(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    first = plan(inputs(store, scope, Revenues=100)["Revenues"])
    made_first = persisted(store, scope, first)
    clock.advance(hours=1)
    record(store, scope, batch(fact(100, RESTATED.id, predicate="Sales"), sources=(RESTATED,)),
           actor="t")
    (sales,) = [f for f in store.read(AsOf(scope)) if f.predicate == "Sales"]
    second = plan(sales)
    made_second = persisted(store, scope, second)
    # The copy of Sales kept the copy of Revenues (100, known since earlier): not the predicted
    # fact, and the doubling over it is the first plan's.
    assert made_second.fact.id == made_first.fact.id
    assert made_second.derivations[0] != made_first.derivations[0]
    calls = Counting(store)
    assert found(store, scope, second, calls=calls) == [
        (made_second.fact.id, made_second.derivations)]
    assert calls.calls["generated_by"] == 1 + 2  # predicted, then level by level
    never = plan(sales, copy="x + 1")  # a plan no one persisted
    assert found(store, scope, never, second, first) == [
        None, (made_second.fact.id, made_second.derivations),
        (made_first.fact.id, made_first.derivations)]
