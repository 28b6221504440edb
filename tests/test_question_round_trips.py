"""What a metric question costs in transactions: a repeat is answered by one read transaction for
all its companies (the names resolved, one as-of read, every plan's derivations found at once,
the sources they cite) and writes nothing; only plans not all persisted yet open a write
transaction, one for the question, and write what a first ask always wrote."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import neo4j
import pytest

from tests.factories import BACKENDS, PinnedClock, make_store
from tests.test_questions import FILES, concepts
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import parse_instant
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.store.protocol import Store
from vintage.ingest.sec.companyfacts import ingest_companyfacts
from vintage.queries.metrics.answers import MetricAnswer
from vintage.queries.metrics.definitions import Metric, resolve_metric
from vintage.queries.metrics.periods import parse_period
from vintage.queries.metrics.question import ask

COMPANIES = ["GOOGL", "NVDA"]


class Counting:
    """A store that counts the transactions a question opens through it (``reading``,
    ``write``, and each one-shot store read such as the subject resolution)."""

    def __init__(self, store: Any, calls: Counter[str] | None = None) -> None:
        self.store, self.calls = store, Counter[str]() if calls is None else calls

    def __getattr__(self, name: str) -> Any:
        found = getattr(self.store, name)
        if name == "now" or not callable(found):
            return found

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            return found(*args, **kwargs)
        return counted


class CountingInside(Counting):
    """Also counts what the question asks of its read transaction."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self.inside = Counter[str]()

    def reading(self, tenant: str, work: Callable[[Any], Any]) -> Any:
        self.calls["reading"] += 1
        return self.store.reading(tenant, lambda tx: work(Counting(tx, self.inside)))


@pytest.fixture(scope="module", params=BACKENDS)
def loaded(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Store, Scope]]:
    scope = Scope(tenant="rt-" + uuid.uuid4().hex[:10])
    store = make_store(request.param, PinnedClock(), tmp_path_factory.mktemp("rt"), request)
    for ticker in COMPANIES:
        ingest_companyfacts(store, scope, FILES[ticker], actor="test",
                            concepts=concepts("operating_margin", "revenue"))
    yield store, scope
    if isinstance(store, Neo4jStore):
        store.purge_tenant(scope.tenant)


def asked(store: Store | Counting, scope: Scope, metric: str, cutoff: str) -> MetricAnswer:
    return ask(store, scope, resolve_metric(metric), COMPANIES, parse_instant(cutoff),
               parse_period("LTM"))


def test_a_repeated_question_is_one_read_transaction_for_all_its_companies_and_writes_nothing(
    loaded: tuple[Store, Scope],
) -> None:
    store, scope = loaded
    first = Counting(store)
    answer = asked(first, scope, "operating_margin", "2023-06-30")
    assert all(a.derivations for a in answer.answers)  # computed, so persisted
    assert first.calls == {"reading": 1, "write": 1}
    events = store.events(scope.tenant)

    again = Counting(store)
    assert asked(again, scope, "operating_margin", "2023-06-30") == answer
    assert again.calls == {"reading": 1}
    assert store.events(scope.tenant) == events


def test_every_company_of_a_question_is_read_in_one_as_of_read_and_found_in_one_lookup(
    loaded: tuple[Store, Scope],
) -> None:
    store, scope = loaded
    asked(store, scope, "operating_margin", "2024-03-31")  # persisted: the repeat only reads
    wrapped = CountingInside(store)
    answer = asked(wrapped, scope, "operating_margin", "2024-03-31")
    assert [a.subject for a in answer.answers if a.value is not None] == COMPANIES
    assert wrapped.calls == {"reading": 1}
    assert wrapped.inside["read_confirmed"] == 1  # both companies' figures, one read
    assert wrapped.inside["subjects"] == 1  # and their names, in the same transaction
    assert wrapped.inside["generated_by"] == 1  # every level of both plans, predicted
    assert wrapped.inside["get_sources"] == 1  # what both cite


def test_a_repeated_question_of_reported_figures_looks_up_no_derivation(
    loaded: tuple[Store, Scope],
) -> None:
    store, scope = loaded
    question = (resolve_metric("revenue"), COMPANIES, parse_instant("2023-06-30"),
                parse_period("FY2022"))
    first = ask(store, scope, *question)
    assert all(a.value is not None and not a.derivations for a in first.answers)  # as filed
    wrapped = CountingInside(store)
    assert ask(wrapped, scope, *question) == first
    assert "generated_by" not in wrapped.inside
    assert wrapped.inside["get_sources"] == 1


def test_a_plan_half_persisted_by_an_earlier_question_is_completed_in_one_write(
    loaded: tuple[Store, Scope],
) -> None:
    store, scope = loaded
    revenue = asked(store, scope, "revenue", "2022-06-30")
    counting = Counting(store)
    margin = asked(counting, scope, "operating_margin", "2022-06-30")
    assert counting.calls == {"reading": 1, "write": 1}
    for r, m in zip(revenue.answers, margin.answers, strict=True):
        assert r.derivation_id in m.derivations  # the LTM revenue found, not derived again
    derived = [e.details["derivation"] for e in store.events(scope.tenant, ["derive"])]
    assert len(derived) == len(set(derived))  # one event per derivation ever made

    again = Counting(store)
    assert asked(again, scope, "operating_margin", "2022-06-30") == margin
    assert "write" not in again.calls


@pytest.mark.neo4j
def test_on_neo4j_a_repeat_is_nine_statements_whatever_the_depth_of_its_plan(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = make_store("neo4j", PinnedClock(), tmp_path, request)
    assert isinstance(store, Neo4jStore)
    scope = Scope(tenant="rt-" + uuid.uuid4().hex[:10])
    ingest_companyfacts(store, scope, FILES["GOOGL"], actor="test",
                        concepts=concepts("operating_margin"))
    try:
        question = ("operating_margin", "2023-06-30")
        (first,) = ask(store, scope, resolve_metric(question[0]), ["GOOGL"],
                       parse_instant(question[1]), parse_period("LTM")).answers
        counted = Counter[str]()

        def counting(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
            def run(*args: Any, **kwargs: Any) -> Any:
                counted[name] += 1
                return real(*args, **kwargs)
            return run

        # Writes run in explicit transactions (vintage.graph.neo4j.retry): a repeat begins none.
        for cls, name in [(neo4j.Session, "execute_read"), (neo4j.Session, "begin_transaction"),
                          (neo4j.ManagedTransaction, "run"), (neo4j.Transaction, "run")]:
            monkeypatch.setattr(cls, name, counting(name, getattr(cls, name)))
        (again,) = ask(store, scope, resolve_metric(question[0]), ["GOOGL"],
                       parse_instant(question[1]), parse_period("LTM")).answers
    finally:
        monkeypatch.undo()
        store.purge_tenant(scope.tenant)
    assert again == first
    # Q4 2022 of operating income and revenue as the year less nine months, the LTM sums over
    # it, then the margin: five derivations on three levels.
    assert len(again.derivations) == 5
    # Four to answer: resolution, as-of read, all three levels at once, sources; five to say
    # whether a premise at any depth stopped holding (issue 40): the upstream walk (reach, its
    # starts, its edges: one traversal whatever the depth), the premises, their versions.
    assert counted == {"execute_read": 1,  # one read: the names, the company, its staleness
                       "run": 9}


def test_a_company_of_a_question_reads_only_its_own_concepts_as_asking_it_alone_would(
    loaded: tuple[Store, Scope],
) -> None:
    # The one read fetches every company's concepts together; NVDA's override must not become
    # GOOGL's figures: GOOGL reports no such concept, and alone it is refused for that.
    store, scope = loaded
    metric = Metric("turnover", "sales", {"sales": ("us-gaap:TurnoverNotReported",)}, "USD",
                    subjects={"NVDA": {"sales": ("us-gaap:Revenues",)}})
    cutoff, period = parse_instant("2023-06-30"), parse_period("LTM")
    together = ask(store, scope, metric, COMPANIES, cutoff, period).answers
    alone = [ask(store, scope, metric, [c], cutoff, period).answers[0] for c in COMPANIES]
    assert together == alone
    googl, nvda = together
    assert googl.refused is not None and "nothing public" in googl.refused
    assert nvda.value is not None
