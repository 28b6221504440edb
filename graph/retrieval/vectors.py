"""What every embedder is and gives: the ``Embedder`` protocol, its unit rows and its one kind of
error (``vintage.graph.retrieval.embedder`` holds the models and the choice among them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from vintage.graph.core.errors import UserError

Vectors = NDArray[np.float32]


class EmbedderError(UserError):
    """The embedder could not be loaded or did not answer with vectors."""


class Embedder(Protocol):  # not runtime-checkable: probing ``dim`` may ask an endpoint
    name: str  # names the model: an index entry by another name is recomputed, never compared

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One unit-length row per text, in order: shape (len(texts), dim), float32."""
        ...


def unit_rows(vectors: NDArray[Any], source: str) -> Vectors:
    rows = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    if rows.size and (not np.all(np.isfinite(rows)) or np.any(norms == 0)):
        raise EmbedderError(f"{source} returned a zero or non-finite vector")
    return (rows / np.where(norms == 0, 1, norms)).astype(np.float32)
