"""A tenant-wide search is audited while it reads (``vintage.graph.memory.scoping.audited_while``),
on both backends: its answer waits for the audit's commit, a failed audit fails the search, and a
search that fails on its own raises its own error."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.factories import ACTOR, PinnedClock, memory
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.model import Scope
from vintage.graph.memory.gate import Decision
from vintage.graph.memory.remember import remember
from vintage.graph.retrieval.embedder import minilm
from vintage.graph.retrieval.indexer import refresh
from vintage.graph.store.protocol import Store, StoreError
from vintage.queries.memory.recall import audit
from vintage.queries.search.request import SearchRequest, SearchResult
from vintage.queries.search.run import search

WHO = "ops:alice"


def find_everywhere(store: Store, scope: Scope, **options: Any) -> SearchResult:
    return search(store, minilm(), SearchRequest("E4031", scope, all_scopes=True, actor=WHO,
                                                 **options))


def searched(store: Store, scope: Scope) -> list[str]:
    return [e.actor for e in audit(store, scope.tenant) if e.action == "read"]


@pytest.fixture
def indexed(store: Store, scope: Scope, clock: PinnedClock) -> Store:
    """A memory of error E4031 in one user's scope, indexed: a search then writes nothing but
    its audit."""
    done = remember(store, memory(scope, key="checkout.error", value="error E4031 at checkout",
                                  source_id="msg-1"), actor=ACTOR)
    assert done.decision is Decision.ACTIVE, done.reason
    refresh(store, scope.tenant, minilm())
    clock.advance(seconds=1)
    return store


def test_a_tenant_wide_search_answers_only_once_its_audit_is_committed(
    indexed: Store, scope: Scope, monkeypatch: pytest.MonkeyPatch,
) -> None:
    write = indexed.write

    def slow_write(tenant: str, work: Any) -> Any:
        time.sleep(0.3)  # a commit slower than the whole search
        return write(tenant, work)

    monkeypatch.setattr(indexed, "write", slow_write)
    assert find_everywhere(indexed, scope).results
    monkeypatch.undo()
    assert searched(indexed, scope) == [WHO]


def test_a_tenant_wide_search_whose_audit_fails_fails_and_answers_nothing(
    indexed: Store, scope: Scope, monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refused(tenant: str, work: Any) -> Any:
        raise StoreError("the audit log refused the write")

    monkeypatch.setattr(indexed, "write", refused)
    with pytest.raises(StoreError, match="audit log refused"):
        find_everywhere(indexed, scope)
    monkeypatch.undo()
    assert searched(indexed, scope) == []


def test_a_tenant_wide_search_that_fails_raises_its_own_error_not_its_audits(
    indexed: Store, scope: Scope, monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refused(tenant: str, work: Any) -> Any:
        time.sleep(0.1)
        raise StoreError("the audit log refused the write")

    def broken(*args: Any) -> Any:
        raise InvalidArgument("the ranking read failed")

    monkeypatch.setattr(indexed, "write", refused)
    monkeypatch.setattr(indexed, "rank", broken)
    with pytest.raises(InvalidArgument, match="ranking read failed") as failed:
        find_everywhere(indexed, scope)
    assert any("its audit failed too" in note and "audit log refused" in note
               for note in getattr(failed.value, "__notes__", []))


def test_a_tenant_wide_search_without_an_actor_is_refused_before_anything_is_written(
    indexed: Store, scope: Scope,
) -> None:
    with pytest.raises(InvalidArgument, match="names its actor"):
        search(indexed, minilm(), SearchRequest("E4031", scope, all_scopes=True, actor=" "))
    assert searched(indexed, scope) == []
