"""BM25 scores computed from an index's statistics, equal to the last bit to ``bm25s``'s.

The reference store builds a ``bm25s.BM25`` over every entry of a tenant (Lucene's variant,
k1 = 1.5, b = 0.75) and asks it for the scores of the query's terms. A store that keeps postings
in its database (``vintage.graph.sqlite.search``) cannot afford that model per process: it reads
the postings of the query's terms only, with the tenant's entry count and total length, and
scores them here with the same arithmetic in the same order, so that a search ranks alike on
both (tests/test_retrieval_bm25.py holds this against ``bm25s`` itself):

- idf = ln(1 + (N - df + 0.5) / (df + 0.5)), in double, kept as float32 (``bm25s``'s idf array);
- a posting's score = idf * tf / (tf + k1 * (1 - b + b * dl / avgdl)), in double, kept as
  float32 (``bm25s``'s eager score matrix), where avgdl is the mean length over N;
- a document's score is the float32 sum of its postings' scores in the query's term order
  (``bm25s`` adds the query's columns one after the other).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

K1 = 1.5
B = 0.75

Scores = npt.NDArray[np.float32]


def idf(df: int, docs: int) -> np.float32:
    return np.float32(math.log(1 + (docs - df + 0.5) / (df + 0.5)))


def scores(terms: Sequence[str], df: Mapping[str, int], docs: int, total_length: int,
           rows: int, term_of: npt.NDArray[np.int64], row_of: npt.NDArray[np.int64],
           tf: npt.NDArray[np.float64], length: npt.NDArray[np.float64]) -> Scores:
    """The score of each of ``rows`` documents for ``terms`` (distinct, in query order), from
    postings given as parallel arrays: the index in ``terms`` of the posting's term, its
    document's row, its count and its document's length. ``df``: each term's document
    frequency over all ``docs`` documents of the index, whose lengths sum to
    ``total_length``."""
    found = np.zeros(rows, dtype=np.float32)
    if not docs or not total_length:
        return found
    avgdl = np.float64(total_length) / docs
    norm = K1 * ((1 - B) + B * length / avgdl) + tf
    for n, term in enumerate(terms):
        here = term_of == n
        if not here.any():
            continue
        weight = np.float64(idf(df[term], docs))
        found[row_of[here]] += (weight * (tf[here] / norm[here])).astype(np.float32)
    return found
