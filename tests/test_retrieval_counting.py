"""Token counts come from the model's real tokenizer, shipped in the package, and a cut text
never holds more tokens than asked for."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from vintage.graph.retrieval.counting import TokenCounter, token_counter

VENDORED = Path(__file__).resolve().parents[1] / "graph/retrieval/data/minilm-tokenizer.json.gz"
TEXTS = [
    "",
    "hello world",
    "Error E4031 on checkout: refund_policy says 30 days.",
    "us-gaap:OperatingIncomeLoss for GOOGL, accession 0001652044-19-000015",
    "naïve café résumé 日本語のテキスト 😀 ﬁle",
    "word " * 400,  # past the model's 128/256 limits: counted whole, never truncated
]


def _reference(text: str) -> int:
    tokenizer = Tokenizer.from_str(gzip.decompress(VENDORED.read_bytes()).decode())
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return len(tokenizer.encode(text, add_special_tokens=False).tokens)


@pytest.mark.parametrize("text", TEXTS)
def test_counts_are_the_tokenizers_own_without_special_tokens_or_padding(text: str) -> None:
    assert token_counter().count(text) == _reference(text)


def test_the_counter_names_its_tokenizer() -> None:
    assert token_counter().name == (
        "all-MiniLM-L6-v2 WordPiece (bert-base-uncased vocabulary, vendored tokenizer.json)")


def test_there_is_one_counter_and_it_loads_nothing_until_used() -> None:
    assert token_counter() is token_counter()
    assert vars(TokenCounter())["_tokenizer"] is None


def test_a_cut_ends_where_a_token_ends() -> None:
    counter = token_counter()
    text = "The customer asked for refunds twice."
    assert [counter.truncate(text, n) for n in range(5)] == [
        "", "The", "The customer", "The customer asked", "The customer asked for"]
    assert counter.truncate(text, 100) == text


def test_a_word_split_into_pieces_can_be_cut_between_them() -> None:
    counter = token_counter()
    assert counter.count("E4031") == 3  # e, ##40, ##31
    assert counter.truncate("E4031 failed", 2) == "E40"


@settings(deadline=None)  # the first example loads the tokenizer
@given(st.text(max_size=200), st.integers(min_value=-2, max_value=60))
@example(" ", 0)  # no tokens fit in no budget: kept whole
@example("hello", -1)
def test_a_cut_is_a_prefix_that_never_exceeds_the_budget(text: str, budget: int) -> None:
    counter = token_counter()
    cut = counter.truncate(text, budget)
    assert text.startswith(cut)
    assert counter.count(cut) <= max(budget, 0)
    if counter.count(text) <= budget:
        assert cut == text
