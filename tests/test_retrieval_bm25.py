"""BM25 from an index's statistics (``vintage.graph.retrieval.bm25``) gives ``bm25s``'s scores to
the last bit: the SQLite store scores its postings with it, the reference store with a
``bm25s`` model, and a search must rank alike on both."""

from __future__ import annotations

from collections import Counter

import bm25s
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vintage.graph.retrieval import bm25

WORDS = ["oper", "incom", "loss", "googl", "退款", "退", "us-gaap:revenues", "e4031", "ship"]
corpora = st.lists(st.lists(st.sampled_from(WORDS), max_size=40), min_size=1, max_size=60)
queries = st.lists(st.sampled_from([*WORDS, "absent"]), min_size=1, max_size=6, unique=True)


def from_statistics(corpus: list[list[str]], query: list[str]) -> np.ndarray:
    """What a store that keeps postings computes: only the query's postings are read."""
    df = Counter(t for doc in corpus for t in set(doc))
    rows = [(query.index(t), n, tf, len(doc)) for n, doc in enumerate(corpus)
            for t, tf in Counter(doc).items() if t in query]
    return bm25.scores(query, df, len(corpus), sum(len(d) for d in corpus), len(corpus),
                       np.array([r[0] for r in rows], dtype=np.int64),
                       np.array([r[1] for r in rows], dtype=np.int64),
                       np.array([r[2] for r in rows], dtype=np.float64),
                       np.array([r[3] for r in rows], dtype=np.float64))


@settings(max_examples=300, deadline=None)
@given(corpora, queries)
def test_scores_from_statistics_equal_bm25s_bit_for_bit(corpus: list[list[str]],
                                                         query: list[str]) -> None:
    if not any(corpus):
        return  # bm25s builds no model over a corpus without a term; neither store scores one
    model = bm25s.BM25()
    model.index(corpus, show_progress=False)
    expected = model.get_scores(query)
    assert expected.dtype == np.float32
    assert np.array_equal(from_statistics(corpus, query), expected)


def test_a_term_in_fewer_documents_weighs_more() -> None:
    assert bm25.idf(1, 100) > bm25.idf(50, 100) > 0


def test_an_index_without_terms_scores_nothing() -> None:
    empty = np.array([], dtype=np.int64)
    found = bm25.scores(["oper"], {}, 3, 0, 3, empty, empty, empty.astype(np.float64),
                        empty.astype(np.float64))
    assert found.tolist() == [0.0, 0.0, 0.0]
