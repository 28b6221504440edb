"""A search's re-read of its ranked ids (``IndexTx.cited_with_subjects``, issue 13): the facts
``Store.read_cited`` gives, with the subjects they name, by id, in one read, on both backends.
A search counts the query's identifiers on each candidate's subject (``queries.search_
candidates``), so a subject missing here would cost a candidate its exact count, and one named
only by an identifier would add terms the candidate's document does not hold."""

from __future__ import annotations

import pytest

from tests.factories import ACTOR, fact, source
from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Scope, Subject
from vintage.graph.core.temporal import parse_instant
from vintage.graph.memory.primitives import memory_tx
from vintage.graph.retrieval.index import index_tx
from vintage.graph.store.protocol import Cited, CrossTenant, Erasure, Store
from vintage.graph.writes.semantics import Batch, record


def reread(store: Store, spec: AsOf) -> tuple[list[Cited], list[Subject]]:
    return store.reading(spec.scope.tenant,
                         lambda tx: index_tx(tx).cited_with_subjects(spec.resolved(store.now())))


def write(store: Store, scope: Scope) -> dict[str, str]:
    """GOOGL and MSFT facts, an AAPL subject no fact names, and ALPHA, whose identifier is
    GOOGL's id: a fact id per name."""
    early, late = source("10-Q-early", "2018-04-24"), source("10-Q-late", "2019-04-24")
    subjects = [Subject(id="GOOGL", kind="company", name="Alphabet Inc.",
                        identifiers=("ticker:GOOGL",)),
                Subject(id="MSFT", kind="company", name="Microsoft"),
                Subject(id="AAPL", kind="company", name="Apple"),
                Subject(id="ALPHA", kind="company", name="Alpha", identifiers=("GOOGL",))]
    facts = [fact(1, early.id), fact(2, early.id, subject="MSFT"),
             fact(3, early.id, predicate="Revenues"), fact(4, late.id, predicate="NetIncomeLoss")]
    created = record(store, scope, Batch(subjects=subjects, sources=[early, late], facts=facts),
                     actor=ACTOR).created
    return dict(zip(("googl", "msft", "erased", "later"), created, strict=True))


def test_the_reread_is_read_cited_with_the_subjects_its_facts_name_by_id(
    store: Store, scope: Scope,
) -> None:
    ids = write(store, scope)
    store.write(scope.tenant, lambda tx: memory_tx(tx).erase_facts(
        [Erasure(ids["erased"], store.now())]))
    spec = AsOf(scope, known_at=parse_instant("2018-06-30"),
                ids=(*ids.values(), "no-such-fact"))

    cited, subjects = reread(store, spec)

    assert cited == store.read_cited(spec)  # the erased and the not yet public are out
    assert sorted(f.id for f, _ in cited) == sorted([ids["googl"], ids["msft"]])
    assert [s.id for s in subjects] == ["GOOGL", "MSFT"]  # not AAPL, nor ALPHA by identifier
    assert subjects[0] == Subject(id="GOOGL", kind="company", name="Alphabet Inc.",
                                  identifiers=("ticker:GOOGL",))
    assert {s.id: s for s in store.subjects(scope.tenant, ["GOOGL", "MSFT"])}["MSFT"] \
        == subjects[1]


def test_a_reread_that_finds_no_legal_fact_names_no_subject(store: Store, scope: Scope) -> None:
    ids = write(store, scope)
    before = AsOf(scope, known_at=parse_instant("2018-01-01"), ids=tuple(ids.values()))
    assert reread(store, before) == ([], [])
    assert reread(store, AsOf(scope, ids=())) == ([], [])


def test_a_reread_of_another_tenant_in_this_ones_transaction_is_refused(
    store: Store, scope: Scope,
) -> None:
    ids = write(store, scope)
    other = AsOf(Scope(tenant=scope.tenant + "-other"), ids=tuple(ids.values()))
    with pytest.raises(CrossTenant):
        store.reading(scope.tenant, lambda tx: index_tx(tx).cited_with_subjects(
            other.resolved(store.now())))


def test_a_source_cited_by_several_facts_and_a_fact_citing_several_are_read_as_read_cited(
    store: Store, scope: Scope,
) -> None:
    ids = write(store, scope)
    # The later filing repeats GOOGL's figure: the fact it reads then cites both filings.
    record(store, scope, Batch(subjects=[], sources=[], facts=[fact(1, "10-Q-late")]),
           actor=ACTOR)
    spec = AsOf(scope, known_at=parse_instant("2020-01-01"),
                ids=(ids["googl"], ids["msft"], ids["later"]))

    cited, _ = reread(store, spec)

    assert cited == store.read_cited(spec)
    sources = {f.id: [s.id for s in c] for f, c in cited}
    assert sources == {ids["googl"]: ["10-Q-early", "10-Q-late"], ids["msft"]: ["10-Q-early"],
                       ids["later"]: ["10-Q-late"]}
