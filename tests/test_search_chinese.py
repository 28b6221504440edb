"""Chinese and mixed text in search (issue 40), on both backends with the real local model: the
keyword and exact legs cut Chinese into character n-grams (vintage.graph.retrieval.terms), so a
word finds the sentence that holds it; a code or ticker written against Chinese stays whole; a
sealed memory's Chinese terms reach the store's files only blinded; and an entry cut by the
older rules is indexed again before a search ranks it."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.factories import ACTOR, memory, mine, run
from tests.test_erasure_on_disk import in_clear
from tests.test_search import find, remember_all
from vintage.graph.core.model import Scope
from vintage.graph.memory.remember import remember
from vintage.graph.retrieval.embedder import minilm
from vintage.graph.retrieval.index import IndexEntry, index_key, index_tx
from vintage.graph.retrieval.indexer import refresh
from vintage.graph.store.protocol import Store
from vintage.queries.search.fusion import Mode

KETTLE = "用户希望为坏掉的水壶退款"  # "the user wants a refund for the broken kettle"
NOTES = (
    ("refund_policy", KETTLE),
    ("shipping.preference", "寄到办公室，不要寄到家里"),
    ("checkout.error", "付款时出现 E4031 错误"),
    ("login.error", "登录页面出现E4032错误"),
    ("watch.googl", "每季度关注GOOGL的营业利润"),
    ("watch.aapl", "关注 AAPL 的营业收入"),
)
SAID = ["--source-kind", "user_message", "--observed-at", "2026-05-01T10:00:00Z",
        "--owner", "user:42", "--reason", "asked us to remember", "--user", "42"]


def han(n: int) -> str:
    """Chinese text no other test writes: ``n`` characters drawn from the unified block."""
    return "".join(chr(random.randrange(0x4E00, 0x9FA5)) for _ in range(n))


def values(found: Any) -> list[Any]:
    return [f.value for f in found.results]


@pytest.mark.parametrize("mode", [Mode.EXACT, Mode.KEYWORD, Mode.HYBRID])
def test_a_chinese_word_finds_the_sentence_that_holds_it(
    store: Store, scope: Scope, mode: Mode,
) -> None:
    remember_all(store, scope, *NOTES)
    found = find(store, "退款", mine(scope), mode=mode)
    assert found.results[0].value == KETTLE
    assert found.results[0].signals["exact"] == 1.0  # the word as written: the exact leg
    if mode is Mode.EXACT:
        assert values(found) == [KETTLE]


def test_exact_mode_finds_only_the_items_holding_a_chinese_word_as_written(
    store: Store, scope: Scope,
) -> None:
    remember_all(store, scope, *NOTES)
    # 款 alone is in 付款 too; 退款 is in one sentence only, and 款退 in none.
    assert set(values(find(store, "款", mine(scope), mode=Mode.EXACT))) == {
        KETTLE, "付款时出现 E4031 错误"}
    assert values(find(store, "款退", mine(scope), mode=Mode.EXACT)) == []


@pytest.mark.parametrize("query", ["E4031 错误", "E4031错误", "Ｅ４０３１ 错误"])
def test_a_code_written_against_chinese_stays_whole(
    store: Store, scope: Scope, query: str,
) -> None:
    remember_all(store, scope, *NOTES)
    found = find(store, query, mine(scope), mode=Mode.KEYWORD)
    assert [(f.value, f.signals["exact"]) for f in found.results[:2]] == [
        ("付款时出现 E4031 错误", 2.0),  # the code and the word
        ("登录页面出现E4032错误", 1.0),  # the word only: E4032 is another code
    ]


def test_a_ticker_and_chinese_words_find_the_note_on_that_ticker(
    store: Store, scope: Scope,
) -> None:
    remember_all(store, scope, *NOTES)
    found = find(store, "GOOGL 的营业利润", mine(scope), mode=Mode.KEYWORD)
    assert found.results[0].value == "每季度关注GOOGL的营业利润"
    assert found.results[1].value == "关注 AAPL 的营业收入"  # 的营业 but neither ticker nor 利润


def test_a_memory_sharing_only_function_words_with_a_question_is_not_a_keyword_match(
    store: Store, scope: Scope,
) -> None:
    remember_all(store, scope, ("emergency.contact", "紧急联系人是他们的姐姐"),
                 ("editor.theme", "在 Neovim 里用 Gruvbox 配色方案"))
    found = find(store, "他们的配色方案是什么", mine(scope), mode=Mode.KEYWORD)
    assert values(found) == ["在 Neovim 里用 Gruvbox 配色方案"]  # not "their sister"


def test_vintage_search_finds_a_chinese_word_in_keyword_and_exact_mode(
    store_args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    for n, (key, value) in enumerate(NOTES[:3]):
        code, _, err = run([*store_args, "remember", "preference", "user:42", key, value,
                            "--source-id", f"msg-{n}", *SAID], capsys, monkeypatch)
        assert code == 0, err
    for mode in ("keyword", "exact"):
        code, out, err = run([*store_args, "search", "退款", "--mode", mode, "--user", "42",
                              "--limit", "1"], capsys, monkeypatch)
        assert (code, err) == (0, "")
        assert KETTLE in out


def test_a_sealed_memorys_chinese_terms_reach_the_files_only_blinded(
    store: Store, scope: Scope, request: pytest.FixtureRequest,
) -> None:
    said = han(26)  # 78 bytes: one run of bytes wherever it is stored in clear
    remember(store, memory(scope, value=said, consent=True), actor=ACTOR)
    refresh(store, scope.tenant, minilm())
    word = said[10:12]
    assert values(find(store, word, mine(scope), mode=Mode.EXACT)) == [said]
    # Grams of two characters and more: six bytes and up, no chance hit in a store's files.
    grams = sorted({said[i:i + n] for n in (2, 3, 4) for i in range(len(said) - n + 1)})
    assert in_clear(store, request, scope, [said, *grams]) == {}


def test_an_entry_cut_by_older_term_rules_is_indexed_again_before_a_search(
    store: Store, scope: Scope,
) -> None:
    (kettle,) = remember_all(store, scope, NOTES[0])
    embedder = minilm()
    vector = tuple(float(x) for x in embedder.embed([f"refund policy: {KETTLE}"])[0])
    # As the rules before issue 40 wrote it: the run one term, keyed by the model alone.
    store.write(scope.tenant, lambda tx: index_tx(tx).put_index([
        IndexEntry(kettle, ("refund", "polici", KETTLE), vector, embedder.name)]))
    stale = store.reading(scope.tenant,
                          lambda tx: index_tx(tx).unindexed(index_key(embedder.name), 10))
    assert [f.id for f in stale] == [kettle]
    assert values(find(store, "退款", mine(scope), mode=Mode.KEYWORD)) == [KETTLE]
    assert store.reading(scope.tenant,
                         lambda tx: index_tx(tx).unindexed(index_key(embedder.name), 10)) == []
