"""A search counts the query's identifiers on every candidate
(``vintage.queries.search.candidates``) with ``vintage.graph.retrieval.documents.carried``, which
must give what counting them on the whole
document (``describe``) gives, whatever the fact, its subject and the sources it cites."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from vintage.graph.core.kinds import FactKind, Status
from vintage.graph.core.model import Fact, Source, Subject
from vintage.graph.retrieval import documents
from vintage.graph.retrieval.documents import carried, describe
from vintage.graph.retrieval.terms import identifiers

AT = datetime(2026, 6, 1, tzinfo=UTC)
# Pieces of source ids and accession numbers: digits, joiners, letters of both cases, a
# full-width digit (NFKC makes it ASCII), a possessive and a curly apostrophe.
PIECES = st.sampled_from(["0001652044", "-18-", "000016", "E4031", "e4031", "GOOGL", "'s",
                          "\u2019s", "\uff14", "sec", ":", "_", ".", "x", " ", "Q1", "2018"])


@st.composite
def described(draw: st.DrawFn) -> tuple[Fact, Subject | None, list[Source]]:
    memory = draw(st.booleans())
    start = AT - timedelta(days=draw(st.integers(0, 3000)))
    days = draw(st.sampled_from([None, 1, 91, 182, 273, 365, 40]))
    value = draw(st.sampled_from([7_001_000_000, "Alphabet Inc.", "ship to desk E4031"]))
    fact = Fact(id="k1.r1", key="k1", revision=1, tenant="t",
                scope=("user=42",) if memory else (), kind=FactKind.OBSERVATION,
                status=Status.ACTIVE, subject=draw(st.sampled_from(["GOOGL", "cik:0001652044"])),
                predicate=draw(st.sampled_from(["us-gaap:OperatingIncomeLoss", "refund_policy",
                                                "dei:EntityRegistrantName"])),
                value=value, unit=draw(st.sampled_from([None, "USD", "USD/shares"])),
                valid_from=start, valid_to=None if days is None else start + timedelta(days),
                available_at=AT, superseded_at=None, superseded_recorded_at=None,
                recorded_at=AT, invalidated_at=None, authority=4, owner=None,
                retention_reason=None, content_hash="h", event_id="e")
    subject = draw(st.sampled_from([None, Subject(
        id="GOOGL", kind="company", name="Alphabet Inc.",
        identifiers=("cik:0001652044", "ticker:GOOGL"))]))
    ids = st.lists(PIECES, min_size=1, max_size=6).map("".join).filter(str.strip)
    sources = [Source(id=i, kind="filing", available_at=AT, recorded_at=AT, accession=a)
               for i, a in draw(st.lists(st.tuples(ids, st.none() | ids), max_size=4))]
    return fact, subject, sources


@given(described(), st.lists(PIECES, max_size=4).map("".join), st.data())
def test_the_identifiers_a_candidate_carries_are_those_its_whole_document_holds(
    drawn: tuple[Fact, Subject | None, list[Source]], typed: str, data: st.DataObject,
) -> None:
    fact, subject, sources = drawn
    document = describe(fact, subject, sources)
    # The query's identifiers: some the document holds (a source's among them), some typed.
    held = sorted(set(document.terms))
    named = [i for s in sources for i in identifiers(s.id + " " + (s.accession or ""))]
    wanted = frozenset(data.draw(st.lists(st.sampled_from(held + named or ["e4031"]),
                                          max_size=5)) + identifiers(typed))
    assert carried(fact, subject, sources, wanted) == len(wanted & set(document.terms))


def test_the_count_cache_keeps_a_business_facts_vocabulary_never_a_memorys_or_a_sources(
) -> None:
    documents._business_terms.cache_clear()
    note = Fact(id="m.r1", key="m", revision=1, tenant="t", scope=("user=42",),
                kind=FactKind.OBSERVATION, status=Status.ACTIVE, subject="user:42",
                predicate="refund_policy", value="wants a refund", unit=None,
                valid_from=AT, valid_to=None, available_at=AT, superseded_at=None,
                superseded_recorded_at=None, recorded_at=AT, invalidated_at=None, authority=4,
                owner=None, retention_reason=None, content_hash="h", event_id="e")
    filing = Source(id="0001652044-18-000016", kind="filing", available_at=AT,
                    recorded_at=AT, accession="0001652044-18-000016")
    assert carried(note, None, [filing], frozenset({"refund_policy", "0001652044-18-000016"}))\
        == 2
    assert documents._business_terms.cache_info().currsize == 0
    figure = note.model_copy(update={"scope": (), "subject": "GOOGL", "value": 7,
                                     "predicate": "us-gaap:OperatingIncomeLoss"})
    assert carried(figure, None, [filing], frozenset({"0001652044-18-000016", "googl"})) == 2
    # one set, by subject, concept, unit and period: no source id in it
    assert documents._business_terms.cache_info().currsize == 1
    cached = documents._business_terms("GOOGL", "us-gaap:OperatingIncomeLoss", None, AT, None,
                                       None)
    assert "0001652044-18-000016" not in cached and "googl" in cached
