"""A fact's search entry as the embedded stores keep it, and the checks an entry passes before
either writes it. Apart from the log store's state (``vintage.graph.embedded.state``), so that the
SQLite store shares them without loading networkx."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from vintage.graph.core.errors import InvalidArgument
from vintage.graph.retrieval.index import IndexEntry

if TYPE_CHECKING:  # numpy is loaded where a vector is made: asof and remember need none
    import numpy as np
    import numpy.typing as npt

ERASED = "erased"  # the content_hash of an erased fact


@dataclass(frozen=True, eq=False)
class Entry:
    """A fact's search entry as the state keeps it (``vintage.graph.retrieval.index.IndexEntry``),
    its vector as float32: a tuple of Python floats takes eight times the memory (100k entries of
    384 dimensions would hold over a gigabyte)."""

    terms: tuple[str, ...]
    vector: npt.NDArray[np.float32]
    model: str


@dataclass(frozen=True, eq=False)
class Indexed:
    """The ``index`` operation: a fact's search entry, and whether the log must seal it (as
    its fact is). ``entry`` None: read back sealed under a key since destroyed, so gone."""

    fact_id: str
    entry: Entry | None
    sealed: bool


@dataclass(frozen=True)
class Unindexing:
    """The ``unindex`` operation: every search entry of the tenant dropped (a rebuild)."""


def checked_entry(e: IndexEntry) -> Entry:
    """The entry as the state keeps it; one that could not be ranked (no model, a term a
    whitespace analyzer would split, a vector not of finite numbers) is refused before
    anything is written."""
    if not isinstance(e, IndexEntry):
        raise InvalidArgument(f"a search entry must be an IndexEntry, not {type(e).__name__}")
    if not e.model or not all(isinstance(t, str) and t and not any(c.isspace() for c in t)
                              for t in e.terms):
        raise InvalidArgument(f"the search entry of {e.fact_id} needs a model and terms "
                              "without whitespace")
    import numpy as np

    try:
        vector = np.asarray(e.vector, dtype=np.float32)
    except (TypeError, ValueError):
        vector = np.array([np.nan], dtype=np.float32)
    if vector.ndim != 1 or not vector.size or not np.isfinite(vector).all():
        raise InvalidArgument(f"the search entry of {e.fact_id} needs a vector of finite numbers")
    return Entry(tuple(e.terms), vector, e.model)
