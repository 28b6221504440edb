"""Reads that scale out: through a ``neo4j://`` routing URI the store reads in read transactions
(which a cluster serves from its secondaries) and writes in write transactions (its leader), and
every session carries the store's bookmarks, so that a read sees the writes before it.

A standalone server answers routing requests as a one-member cluster: the local one is enough to
show which access mode each statement runs in, since the server refuses a write inside a read
transaction."""

from __future__ import annotations

from collections.abc import Iterator

import neo4j
import pytest
from neo4j.exceptions import ClientError

from tests.factories import PinnedClock, batch, fact, source
from tests.neo4j_server import Neo4jTarget
from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Scope
from vintage.graph.neo4j.cypher import Query
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.neo4j.tx import Neo4jTx
from vintage.graph.writes.semantics import record

A1 = source("0001652044-18-000016", "2018-04-24", form="10-Q")
# Tenant-scoped, so that it could be wiped if a server ever let it through.
WRITE = "CREATE (:Fact {tenant: $tenant, id: 'routing-probe'})"


def routing(uri: str) -> str:
    """The same server addressed as a cluster: ``neo4j://`` instead of ``bolt://``."""
    scheme, rest = uri.split("://", 1)
    return ("neo4j+s" if scheme.endswith("+s") else "neo4j") + "://" + rest


@pytest.fixture
def routed(neo4j_target: Neo4jTarget, tenant: str) -> Iterator[Neo4jStore]:
    store = Neo4jStore.connect(routing(neo4j_target.uri), PinnedClock(), auth=neo4j_target.auth)
    store.ensure_schema()  # schema statements run auto-commit, routed to the writer
    try:
        yield store
        store.purge_tenant(tenant)
    finally:
        store.close()


def test_the_store_opens_with_a_routing_uri(routed: Neo4jStore) -> None:
    assert routed.uri.startswith("neo4j://")
    assert routed.run(Query("RETURN 1 AS one", {})) == [{"one": 1}]


def test_a_read_right_after_a_write_through_the_routing_uri_sees_it(
    routed: Neo4jStore, scope: Scope,
) -> None:
    record(routed, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    assert [f.value for f in routed.read(AsOf(scope))] == [7001]


def test_a_statement_on_the_read_path_runs_in_a_read_transaction(
    routed: Neo4jStore, tenant: str,
) -> None:
    with pytest.raises(ClientError) as refused:
        routed.run(Query(WRITE, {"tenant": tenant}))
    assert refused.value.code == "Neo.ClientError.Statement.AccessMode"


def test_work_given_to_reading_runs_in_a_read_transaction(
    routed: Neo4jStore, tenant: str,
) -> None:
    def work(tx: Neo4jTx) -> None:
        tx.tx.run(WRITE, {"tenant": tenant}).consume()

    with pytest.raises(ClientError) as refused:
        routed.reading(tenant, work)
    assert refused.value.code == "Neo.ClientError.Statement.AccessMode"


def test_work_given_to_write_runs_in_a_write_transaction(
    routed: Neo4jStore, tenant: str,
) -> None:
    def work(tx: Neo4jTx) -> None:
        tx.tx.run(WRITE, {"tenant": tenant}).consume()

    routed.write(tenant, work)
    found = routed.run(Query("MATCH (f:Fact {tenant: $tenant, id: 'routing-probe'}) "
                             "RETURN count(f) AS n", {"tenant": tenant}))
    assert found == [{"n": 1}]


def test_a_write_leaves_its_bookmark_in_the_store_wide_manager(
    routed: Neo4jStore, scope: Scope,
) -> None:
    before = set(routed.bookmarks.get_bookmarks())
    record(routed, scope, batch(fact(7001, A1.id), sources=(A1,)), actor="test")
    after = set(routed.bookmarks.get_bookmarks())
    assert after and after != before


def test_every_read_carries_the_store_wide_bookmarks(routed: Neo4jStore) -> None:
    # The server parses the bookmarks a transaction waits for: a malformed one in the store's
    # manager is refused, which shows that the read was given the manager's bookmarks.
    kept = routed.bookmarks
    routed.bookmarks = neo4j.GraphDatabase.bookmark_manager(
        initial_bookmarks=neo4j.Bookmarks.from_raw_values(["not-a-bookmark"]))
    try:
        with pytest.raises(ClientError) as refused:
            routed.run(Query("RETURN 1 AS one", {}))
    finally:
        routed.bookmarks = kept
    assert refused.value.code == "Neo.ClientError.Transaction.InvalidBookmark"
