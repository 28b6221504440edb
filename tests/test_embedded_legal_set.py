"""The embedded legal set (``vintage.graph.embedded.legal``): its numpy pre-mask only ever drops
what the as-of predicate drops, so the set is exactly the predicate's, however the facts change
after the columns were first read."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.test_exclusion import facts, specs
from vintage.graph.core.asof import AsOf, to_predicate
from vintage.graph.core.model import Fact
from vintage.graph.embedded.legal import Columns, legal

IDS = "abcdef"


def admitted(columns: Columns, table: dict[str, Fact], spec: AsOf) -> tuple[list[str], ...]:
    """The legal set and the rows within the read's scope, as the columns give them."""
    return tuple([columns.ids[n] for n in rows.nonzero()[0]]
                 for rows in legal(columns, table, spec))


def expected(table: dict[str, Fact], spec: AsOf) -> tuple[list[str], ...]:
    visible = to_predicate(spec)
    terms = set(spec.scope.terms())
    return (sorted(i for i, f in table.items() if visible(f)),
            sorted(i for i, f in table.items() if terms <= set(f.scope)
                   and not (spec.shared_only and f.scope)))


@settings(max_examples=150)
@given(st.lists(facts(), min_size=1, max_size=len(IDS)), specs(), specs(),
       st.lists(facts(), max_size=3))
def test_the_legal_set_and_the_scope_are_exactly_the_predicates_as_facts_change(
    drawn: list[Fact], spec: AsOf, later: AsOf, changes: list[Fact],
) -> None:
    table = {IDS[n]: f.model_copy(update={"id": IDS[n]}) for n, f in enumerate(drawn)}
    columns = Columns(sorted(table))
    assert admitted(columns, table, spec) == expected(table, spec)
    # A fact replaced (closed, invalidated, erased, reopened...) or gone: the next read sees it.
    for i, f in zip(sorted(table), changes, strict=False):
        table[i] = f.model_copy(update={"id": i})
    if len(table) > 1:
        del table[max(table)]
    assert admitted(columns, table, later) == expected(table, later)
