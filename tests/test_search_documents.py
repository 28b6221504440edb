"""What describes a fact for search (``vintage.graph.retrieval.documents``) and how the index is
kept
complete (``vintage.graph.retrieval.indexer.refresh``), on both backends with the real model."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np
import pytest

from tests.factories import ACTOR, batch, fact, mine, run, source
from tests.test_search import SAID, remember_all
from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import FactKind, Status
from vintage.graph.core.model import Fact, Scope, Source, Subject
from vintage.graph.core.temporal import parse_instant
from vintage.graph.memory.forget import forget
from vintage.graph.retrieval import documents
from vintage.graph.retrieval.documents import concept_words, describe, period_words
from vintage.graph.retrieval.embedder import Vectors, minilm
from vintage.graph.retrieval.index import SearchStore, TextQuery, index_key
from vintage.graph.retrieval.indexer import PARTS, refresh
from vintage.graph.store.protocol import Store
from vintage.graph.writes.semantics import Batch, record
from vintage.queries.search.fusion import Mode
from vintage.queries.search.request import SearchRequest
from vintage.queries.search.run import search

ALPHABET = Subject(id="GOOGL", kind="company", name="Alphabet Inc.",
                   identifiers=("cik:0001652044", "ticker:GOOGL"))
FILING = Source(id="0001652044-18-000016", kind="filing", available_at=parse_instant("2018-04-24"),
                recorded_at=parse_instant("2026-06-01"), accession="0001652044-18-000016",
                form="10-Q")


def stored(scope: tuple[str, ...], predicate: str, value: object, start: str,
           end: str | None) -> Fact:
    at = datetime(2026, 6, 1, tzinfo=UTC)
    return Fact(id="k1.r1", key="k1", revision=1, tenant="t", scope=scope,
                kind=FactKind.OBSERVATION, status=Status.ACTIVE, subject="GOOGL",
                predicate=predicate, value=value, unit=None if scope else "USD",
                valid_from=parse_instant(start), valid_to=parse_instant(end) if end else None,
                available_at=at, superseded_at=None, superseded_recorded_at=None,
                recorded_at=at, invalidated_at=None, authority=4, owner=None,
                retention_reason=None, content_hash="h", event_id="e")


def test_a_business_fact_is_described_by_company_concept_period_and_unit_not_its_number() -> None:
    figure = stored((), "us-gaap:OperatingIncomeLoss", 7_001_000_000, "2018-01-01", "2018-04-01")
    doc = describe(figure, ALPHABET, [FILING])
    # Embedded as two parts, what and when, each shared by many facts of the company.
    assert doc.parts == ("Alphabet Inc. GOOGL CIK 0001652044 Operating Income Loss USD",
                         "Q1 2018 first quarter 2018 January to March 2018 three months ended"
                         " March 31, 2018")
    assert doc.shared
    # exact identifiers a query may name: the concept whole, the CIK, the accession
    assert {"us-gaap:operatingincomeloss", "cik:0001652044", "0001652044-18-000016",
            "googl"} <= set(doc.terms)
    assert "7001000000" not in " ".join(doc.terms)


def test_a_memory_is_described_by_its_key_in_words_and_its_value() -> None:
    note = stored(("user=42",), "refund_policy", "wants a refund", "1970-01-01", None)
    doc = describe(note, None, [])
    assert doc.parts == ("refund policy: wants a refund",)
    assert not doc.shared
    assert "refund_policy" in doc.terms


def test_the_term_cache_keeps_a_business_fact_s_vocabulary_never_a_memory_or_a_text_value(
) -> None:
    cache = (documents._shared_terms, documents._shared_identifiers)
    for c in cache:
        c.cache_clear()
    note = stored(("user=42",), "refund_policy", "wants a refund", "1970-01-01", None)
    worded = stored((), "dei:EntityRegistrantName", "Alphabet Inc.", "2018-01-01", None)
    for f in (note, worded):
        describe(f, ALPHABET, [FILING])
    assert [c.cache_info().currsize for c in cache] == [0, 0]
    figure = stored((), "us-gaap:OperatingIncomeLoss", 7_001_000_000, "2018-01-01", "2018-04-01")
    first = describe(figure, ALPHABET, [FILING])
    # what and when; the subject, its two identifiers and the concept (not the filing's ids)
    assert [c.cache_info().currsize for c in cache] == [2, 4]
    assert describe(figure, ALPHABET, [FILING]) == first  # the same document, from the cache
    assert documents._shared_terms.cache_info().hits == 2


def test_periods_and_concepts_read_as_people_say_them() -> None:
    assert period_words(parse_instant("2018-01-01"), parse_instant("2019-01-01")) == (
        "FY2018 fiscal year 2018 January to December 2018 year ended December 31, 2018")
    assert period_words(parse_instant("2018-03-31"), parse_instant("2018-04-01")) == (
        "as of 2018-03-31 March 31, 2018")
    assert period_words(parse_instant("2017-10-30"), parse_instant("2018-01-29")) == (
        "Q4 2017 fourth quarter 2017 October 2017 to January 2018 three months ended January 28,"
        " 2018")  # a fiscal quarter, also named by its last day as its filing names it
    assert concept_words("us-gaap:EarningsPerShareDiluted") == "Earnings Per Share Diluted"


class Counting:
    """The real model, counting what it is asked to embed (and running ``meanwhile`` once)."""

    def __init__(self, meanwhile: object = None) -> None:
        self.name, self.texts, self.meanwhile = minilm().name, 0, meanwhile

    @property
    def dim(self) -> int:
        return minilm().dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.texts += len(texts)
        if callable(self.meanwhile):
            self.meanwhile()
            self.meanwhile = None
        return minilm().embed(texts)


def test_refresh_indexes_each_fact_once_embedding_a_shared_text_once(
    store: Store, scope: Scope,
) -> None:
    filings = [source(f"acc-{i}", f"2018-04-2{i}", form="10-Q") for i in range(3)]
    figures = [fact(7_000_000_000 + i, f"acc-{i}") for i in range(3)]  # 3 versions, one text
    record(store, scope, batch(*figures, sources=tuple(filings)), actor=ACTOR)
    remember_all(store, scope, ("tone", "short answers"), ("shipping.preference", "the office"))
    PARTS.clear()  # another test may have embedded these parts already
    model = Counting()
    assert refresh(store, scope.tenant, model, batch=2) == 5
    assert model.texts == 4  # the figure's what and when, once for three versions; 2 memories
    assert refresh(store, scope.tenant, model) == 0


def test_refresh_ends_and_skips_a_memory_erased_while_its_batch_was_embedded(
    store: Store, scope: Scope,
) -> None:
    remember_all(store, scope, ("checkout.error", "error E4031"), ("tone", "short answers"))

    def erase() -> None:
        forget(store, mine(scope), subject="user:42", key="checkout.error", actor=ACTOR,
               reason="asked")

    assert refresh(store, scope.tenant, Counting(meanwhile=erase)) == 1
    found = search(store, minilm(), SearchRequest("E4031 error", mine(scope)))
    # The erased memory is no candidate; the one left is ranked, and is nothing relevant.
    assert [f.predicate for f in found.considered] == ["tone"]
    assert found.legal == 1 and found.nothing_relevant


QUARTERS = [("2018-01-01", "2018-04-01"), ("2018-04-01", "2018-07-01"),
            ("2017-01-01", "2017-04-01")]
INCOME = ["us-gaap:OperatingIncomeLoss", "us-gaap:NetIncomeLoss",
          "us-gaap:ResearchAndDevelopmentExpense"]


def company_figures(store: Store, scope: Scope) -> dict[tuple[str, str], str]:
    """Alphabet's three concepts over three quarters: (concept, quarter start) -> fact id."""
    filing = source("acc-1", "2018-08-01", form="10-Q")
    figures = [fact(n, filing.id, predicate=c, period=q)
               for n, (c, q) in enumerate((c, q) for c in INCOME for q in QUARTERS)]
    report = record(store, scope, Batch(subjects=[ALPHABET], sources=[filing], facts=figures),
                    actor=ACTOR)
    return {(c, q[0]): i for (c, q), i in zip(((c, q) for c in INCOME for q in QUARTERS),
                                              report.created, strict=True)}


def test_a_companys_facts_cost_one_embedding_per_concept_and_period_not_one_per_fact(
    store: Store, scope: Scope,
) -> None:
    figures = company_figures(store, scope)
    remember_all(store, scope, ("tone", "short answers"))
    PARTS.clear()
    model = Counting()
    assert refresh(store, scope.tenant, model, batch=2) == 10
    assert model.texts == 3 + 3 + 1  # concepts, quarters, one memory: across five batches
    assert (model.name, "tone: short answers") not in PARTS  # a memory's text is not kept
    # A fact's vector is the normalised sum of its what and its when.
    what, when = minilm().embed([
        "Alphabet Inc. GOOGL CIK 0001652044 Operating Income Loss USD",
        "Q1 2018 first quarter 2018 January to March 2018 three months ended March 31, 2018"])
    both = (what + when) / np.linalg.norm(what + when)
    assert isinstance(store, SearchStore)
    hits = store.rank(AsOf(scope), TextQuery((), (), tuple(float(x) for x in both),
                                             index_key(model.name), per_leg=1))
    ((best, cosine),) = hits.semantic
    assert best == figures[("us-gaap:OperatingIncomeLoss", "2018-01-01")]
    assert cosine == pytest.approx(1.0, abs=1e-5)


def test_a_question_about_a_concept_and_a_quarter_finds_that_figure_by_meaning(
    store: Store, scope: Scope,
) -> None:
    figures = company_figures(store, scope)
    for question, concept, start in (
        ("Alphabet operating income Q1 2018", INCOME[0], "2018-01-01"),
        ("GOOGL net income second quarter 2018", INCOME[1], "2018-04-01"),
        ("Alphabet research and development expense Q1 2017", INCOME[2], "2017-01-01"),
    ):
        found = search(store, minilm(), SearchRequest(
            question, scope, mode=Mode.SEMANTIC, limit=1, all_scopes=True, actor="analyst:ann"))
        assert [f.id for f in found.results] == [figures[(concept, start)]], question


def test_a_fiscal_quarter_asked_by_its_last_day_is_found_before_that_days_balances(
    store: Store, scope: Scope,
) -> None:
    # NVIDIA's fiscal quarters end on Sundays; its 10-Q names a quarter by its last day. The
    # balances of that day carry the day too: before quarters were named by their last day,
    # the question's "26" and "2020" matched only them, and they outranked every quarter.
    nvidia = Subject(id="NVDA", kind="company", name="NVIDIA CORP",
                     identifiers=("cik:0001045810", "ticker:NVDA"))
    filing = source("acc-nv", "2020-08-19", form="10-Q")
    quarters = {"Q2": ("2020-04-27", "2020-07-27"), "Q1": ("2020-01-27", "2020-04-27")}
    figures = [fact(0.99, filing.id, subject="NVDA", predicate="us-gaap:EarningsPerShareDiluted",
                    period=quarters["Q2"], unit="USD/shares"),
               fact(1.47, filing.id, subject="NVDA", predicate="us-gaap:EarningsPerShareDiluted",
                    period=quarters["Q1"], unit="USD/shares"),
               *(fact(v, filing.id, subject="NVDA", predicate=c,
                      period=("2020-07-26", "2020-07-27"))
                 for v, c in ((4_193_000_000, "us-gaap:Goodwill"),
                              (11_266_000_000, "us-gaap:Liabilities")))]
    created = record(store, scope, Batch(subjects=[nvidia], sources=[filing], facts=figures),
                     actor=ACTOR).created
    found = search(store, minilm(), SearchRequest(
        "NVIDIA diluted EPS quarter ended July 26, 2020", scope, limit=1, all_scopes=True,
        actor="analyst:ann"))
    assert [f.id for f in found.results] == [created[0]]


def test_a_dotted_memory_key_named_in_a_query_is_matched_exactly(
    store: Store, scope: Scope,
) -> None:
    remember_all(store, scope, ("shipping.preference", "the office"),
                 ("shipping.method", "express courier"), ("constraint.currency", "EUR"))
    found = search(store, minilm(), SearchRequest("what is my shipping.preference?", mine(scope),
                                                  mode=Mode.EXACT))
    assert [(f.predicate, f.signals["exact"]) for f in found.results] == [
        ("shipping.preference", 1.0)]
    hybrid = search(store, minilm(), SearchRequest("constraint.currency", mine(scope)))
    assert hybrid.results[0].predicate == "constraint.currency"
    assert hybrid.results[0].signals["exact"] == 1.0


def test_vintage_index_rebuild_drops_every_entry_and_indexes_every_fact_again(
    store_args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    for n, value in enumerate(("short answers", "the office")):
        code, _, err = run([*store_args, "remember", "preference", "user:42", f"note.{n}", value,
                            "--source-id", f"msg-{n}", *SAID], capsys, monkeypatch)
        assert code == 0, err
    assert run([*store_args, "index"], capsys, monkeypatch)[:2] == (
        0, "indexed 2 facts (all-MiniLM-L6-v2-int8)\n")
    assert run([*store_args, "index"], capsys, monkeypatch)[:2] == (
        0, "indexed 0 facts (all-MiniLM-L6-v2-int8)\n")
    assert run([*store_args, "index", "--rebuild"], capsys, monkeypatch)[:2] == (
        0, "dropped 2 entries, indexed 2 facts (all-MiniLM-L6-v2-int8)\n")
