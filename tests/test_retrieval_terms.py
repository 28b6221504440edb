"""The one set of tokenisation rules of keyword search (vintage.graph.retrieval.terms): exact
identifiers stay whole and match exactly, words match across inflection, and every term is safe
for a whitespace analyzer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vintage.graph.retrieval.terms import STOP_WORDS, identifiers, query_terms, terms


@pytest.mark.parametrize(("text", "code"), [
    ("checkout failed with E4031 again", "e4031"),
    ("GOOGL rose", "googl"),
    ("see accession 0001652044-19-000015.", "0001652044-19-000015"),
    ("the concept us-gaap:OperatingIncomeLoss", "us-gaap:operatingincomeloss"),
    ("set refund_policy to strict", "refund_policy"),
    ("Form 10-K for fiscal 2018", "10-k"),
    ("GOOGL's operating income", "googl"),  # a possessive does not hide it
    ("what is my shipping.preference?", "shipping.preference"),  # a dotted memory key
    ("pin constraint.currency to EUR", "constraint.currency"),
])
def test_an_identifier_is_one_whole_lowercase_term(text: str, code: str) -> None:
    assert code in terms(text)
    assert code in identifiers(text)


def test_the_same_code_typed_in_lowercase_is_the_same_term() -> None:
    assert identifiers("what is e4031?") == identifiers("What is E4031?") == ["e4031"]


def test_an_identifier_is_followed_by_its_parts_split_on_punctuation_and_camel_case() -> None:
    assert terms("us-gaap:OperatingIncomeLoss") == [
        "us-gaap:operatingincomeloss", "us", "gaap", "oper", "incom", "loss"]
    assert terms("refund_policy") == ["refund_policy", "refund", "polici"]


def test_words_of_a_concept_name_find_the_concept() -> None:
    concept = set(terms("us-gaap:OperatingIncomeLoss"))
    assert set(terms("operating income")) <= concept
    assert set(terms("Operating Income Loss")) <= concept


def test_an_identifier_is_never_stemmed() -> None:
    assert identifiers("ticker TSLAS and code ABC_RUNNING") == ["tslas", "abc_running"]
    assert "running" not in terms("running")  # while a plain word is


def test_a_one_part_identifier_is_counted_once() -> None:
    assert terms("GOOGL 2018") == ["googl", "2018"]


def test_words_match_across_inflection() -> None:
    assert terms("refunds") == terms("refund") == terms("Refunding")[:1] == ["refund"]
    assert terms("the customer's refunds were delayed") == terms("customer refund was delay")


def test_stop_words_are_dropped_and_negations_kept() -> None:
    assert terms("What did the customer say about the refund?") == ["custom", "say", "refund"]
    assert terms("do not refund") == ["not", "refund"]
    assert "the" in STOP_WORDS
    assert "not" not in STOP_WORDS


def test_a_dotted_key_is_an_identifier_and_an_abbreviation_is_not() -> None:
    assert terms("shipping.preference") == ["shipping.preference", "ship", "prefer"]
    assert identifiers("api.v2 or docs.example.com") == ["api.v2", "docs.example.com"]
    # Letters alone between the dots: an abbreviation, not a key; a sentence's full stop
    # followed by a space joins nothing.
    assert identifiers("e.g. a list, i.e. two. Then shipping preference") == []


def test_plain_words_are_not_identifiers() -> None:
    assert identifiers("the customer wants a refund, e.g. state-of-the-art iPhone") == []


def test_unicode_is_normalised_before_anything_else() -> None:
    assert identifiers("ＥＲＲ Ｅ４０３１") == ["err", "e4031"]  # full-width forms, NFKC
    assert terms("ﬁle Straße") == terms("file strasse")  # a ligature; casefolding of ß
    assert terms("CAFÉ") == terms("café")  # non-ASCII capitals are words, not identifiers


def test_order_is_kept_and_duplicates_count() -> None:
    assert terms("refund E4031 refund E4031") == ["refund", "e4031", "refund", "e4031"]
    assert identifiers("E4031 GOOGL E4031") == ["e4031", "googl"]


def test_text_without_words_has_no_terms() -> None:
    assert terms("") == terms("  -- ... !!! ") == terms("___") == []


TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=80) | st.lists(st.sampled_from([
    "E4031", "GOOGL", "us-gaap:OperatingIncomeLoss", "refund_policy", "0001652044-19-000015",
    "shipping.preference",
    "the", "refunds", " ", "\u00a0", "\u2003", "\n", "ﬁ", "Ｅ４", ".", "-", ":", "_", "ß", "İ",
]), max_size=12).map("".join)


@settings(deadline=None)  # the first example loads the stemmer
@given(TEXT)
def test_no_term_is_empty_or_holds_whitespace(text: str) -> None:
    for term in terms(text):
        assert term
        assert term == "".join(term.split())
        assert not any(c.isspace() for c in term)


@given(TEXT)
def test_terms_are_a_function_of_the_text(text: str) -> None:
    assert terms(text) == terms(text)
    assert identifiers(text) == identifiers(text)


@given(TEXT)
def test_every_identifier_is_among_the_terms(text: str) -> None:
    assert set(identifiers(text)) <= set(terms(text))
    assert len(identifiers(text)) == len(set(identifiers(text)))


def test_chinese_is_cut_into_every_gram_of_one_to_four_characters() -> None:
    assert terms("水壶退款") == ["水", "水壶", "水壶退", "水壶退款", "壶", "壶退", "壶退款",
                             "退", "退款", "款"]
    assert set(terms("退款")) <= set(terms("用户希望为坏掉的水壶退款"))  # a word's grams


def test_a_short_chinese_run_is_an_identifier_and_a_sentence_is_not() -> None:
    assert identifiers("退款") == ["退款"]
    assert identifiers("营业利润") == ["营业利润"]
    assert identifiers("用户希望为坏掉的水壶退款") == []


@pytest.mark.parametrize(("text", "expected"), [
    ("E4031错误", ["e4031", "错误"]),
    ("E4031-错误", ["e4031", "错误"]),
    ("ＧＯＯＧＬ的利润", ["googl", "的利润"]),  # full-width letters fold by NFKC first
])
def test_a_code_written_against_chinese_is_cut_from_it(text: str, expected: list[str]) -> None:
    assert identifiers(text) == expected


def test_a_chinese_querys_function_words_are_not_asked_for_but_an_entry_keeps_them() -> None:
    asked = query_terms("他们的配色方案是什么")  # "what is their colour scheme"
    assert "配色方案" in asked
    assert not {"他", "们", "他们", "的", "是", "什么", "们的"} & set(asked)
    assert {"他们", "的", "目的"} <= set(terms("他们的目的"))  # an entry: every gram
    assert query_terms("退款") == ["退款", "退", "款"]  # a word: whole, then its grams
