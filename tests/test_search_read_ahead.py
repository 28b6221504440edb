"""A search of the embedded store reads the rows its ranking needs while the question is embedded
(``ReadsAhead``): in a new process the model's load and those reads, a search's two largest
costs, overlap (issue 39: ``search`` in a new process at p95 <= 1 s). The answers are those of
the search that embeds first and reads after, the ranking then reads none of those rows again,
and an embedder's failure is the search's, as before."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.factories import ACTOR, PinnedClock
from tests.sec_files import data_file
from tests.test_search import CONCEPTS
from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Scope
from vintage.graph.retrieval.embedder import MiniLM, minilm
from vintage.graph.retrieval.index import ReadsAhead, TextQuery
from vintage.graph.retrieval.indexer import refresh
from vintage.graph.retrieval.vectors import EmbedderError, Vectors
from vintage.graph.sealing.keyfile import FileKeyStore
from vintage.graph.sqlite import search as sqlite_search
from vintage.graph.sqlite.store import SqliteStore
from vintage.ingest.sec.companyfacts import ingest_companyfacts
from vintage.queries.search.request import SearchRequest, SearchResult
from vintage.queries.search.run import search

QUESTION = "Alphabet operating income"


@pytest.fixture
def sec(clock: PinnedClock, tmp_path: Path, scope: Scope) -> SqliteStore:
    """An embedded store on disk holding two of GOOGL's concepts, indexed."""
    store = SqliteStore.open(tmp_path / "store", clock, FileKeyStore(tmp_path / "keys"))
    ingest_companyfacts(store, scope, data_file("GOOGL"), actor=ACTOR, concepts=CONCEPTS)
    refresh(store, scope.tenant, minilm())
    return store


class Waiting:
    """MiniLM, whose question waits until the store has read ahead: a search that embedded
    first and read after would wait here until the timeout, and fail."""

    def __init__(self, read: threading.Event) -> None:
        self.model, self.read = minilm(), read
        self.name = self.model.name

    @property
    def dim(self) -> int:
        return self.model.dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        return self.model.embed(texts)

    def embed_query(self, texts: Sequence[str]) -> Vectors:
        if not self.read.wait(timeout=10):
            raise AssertionError("the question was embedded before the store read ahead")
        return self.model.embed_query(texts)


class Failing(MiniLM):
    def embed_query(self, texts: Sequence[str]) -> Vectors:
        raise EmbedderError("the local embedding model is broken")


class NoReadAhead:
    """The store as one without ``read_ahead``: the search embeds, then ranks."""

    def __init__(self, store: SqliteStore) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        if name == "read_ahead":
            raise AttributeError(name)
        return getattr(self._store, name)


def ask(store: Any, embedder: Any, scope: Scope) -> SearchResult:
    return search(store, embedder, SearchRequest(QUESTION, scope, limit=5))


def test_the_embedded_store_reads_ahead_and_the_search_embeds_meanwhile(
    sec: SqliteStore, scope: Scope, monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert isinstance(sec, ReadsAhead)
    read = threading.Event()
    served = sec.read_ahead

    def read_ahead(spec: AsOf, query: TextQuery) -> None:
        assert query.vector is None  # the question is not embedded yet
        served(spec, query)
        read.set()

    monkeypatch.setattr(sec, "read_ahead", read_ahead)
    assert ask(sec, Waiting(read), scope).results
    assert read.is_set()


def test_the_answers_are_those_of_a_search_that_embeds_first_and_ranks_after(
    sec: SqliteStore, scope: Scope,
) -> None:
    ahead = ask(sec, minilm(), scope)
    plain = NoReadAhead(sec)
    assert not isinstance(plain, ReadsAhead)
    after = ask(plain, minilm(), scope)
    assert ahead.results and ahead == after


def test_the_ranking_after_reading_ahead_reads_neither_postings_nor_entries_again(
    sec: SqliteStore, scope: Scope, monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[bool] = []  # per read of the ranking's cache: made in the database
    served = sqlite_search.Ranking.fetch

    def fetch(cache: sqlite_search.Ranking, conn: Any, sql: str, params: Any) -> list[Any]:
        asked.append(not cache.holds(conn, sql, params))
        return served(cache, conn, sql, params)

    monkeypatch.setattr(sqlite_search.Ranking, "fetch", fetch)
    read_ahead = sec.read_ahead
    made: list[int] = []

    def counted(spec: AsOf, query: TextQuery) -> None:
        read_ahead(spec, query)
        made.append(len(asked))

    monkeypatch.setattr(sec, "read_ahead", counted)
    ask(sec, minilm(), scope)
    (ahead,) = made
    assert asked[:ahead] == [True, True]  # the judged postings and the legal entries
    assert asked[ahead:ahead + 2] == [False, False]  # the first ranking read finds them


def test_an_embedder_that_fails_fails_the_search_with_its_own_message(
    sec: SqliteStore, scope: Scope,
) -> None:
    with pytest.raises(EmbedderError, match=r"^the local embedding model is broken$"):
        ask(sec, Failing(), scope)
