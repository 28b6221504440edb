"""A transaction past Neo4j's memory cap ends in one clear error that names what to raise, and
writes nothing: a cascade too large for the server's transaction memory is refused whole.

The test runs its own server (the project's launcher, its own port and data directory) with a
small cap (``VINTAGE_NEO4J_TX_MEMORY``, Neo4j's ``db.memory.transaction.max``): the shared
test server is never touched."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.cascade import setup as cascade_setup
from tests.factories import PinnedClock, run
from tests.sec_files import data_file
from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Scope
from vintage.graph.neo4j import launcher, process
from vintage.graph.neo4j.build import TX_MEMORY_ENV
from vintage.graph.neo4j.memory import TransactionTooLarge
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.writes.semantics import record
from vintage.http.kinds import kind_of
from vintage.ingest import batches

pytestmark = [pytest.mark.neo4j, pytest.mark.launcher]

CAP = "8m"
DERIVED = 3_000  # each closed fact costs the transaction a few KiB: well past 8 MiB


@pytest.fixture
def small(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Neo4jStore]:
    monkeypatch.setenv(launcher.HOME_ENV, str(tmp_path / "neo4j"))
    monkeypatch.setenv(TX_MEMORY_ENV, CAP)
    monkeypatch.delenv(launcher.PASSWORD_ENV, raising=False)
    monkeypatch.setattr(cascade_setup, "NEO4J_CHUNK", 200)  # the build's chunks fit the cap
    info = launcher.start(port=process.free_port())
    # The default retry time (30 s): Neo4j calls the refusal transient, and the driver's own
    # managed transactions ran the whole cascade again for that long when the refusal came at
    # commit (vintage.graph.neo4j.retry).
    store = Neo4jStore.connect(info.uri, PinnedClock())
    try:
        store.ensure_schema()
        yield store
    finally:
        store.close()
        launcher.stop()


def test_a_cascade_past_the_transaction_memory_cap_is_refused_whole_with_the_settings_named(
    small: Neo4jStore,
) -> None:
    scope = Scope(tenant=f"mem-{uuid.uuid4().hex[:8]}")
    inputs = cascade_setup.record_inputs(small, scope)
    cascade_setup.build_neo4j(small, inputs, DERIVED)
    before = small.read(AsOf(scope))
    began = time.monotonic()
    with pytest.raises(TransactionTooLarge) as refused:
        record(small, scope, cascade_setup.restatement(), actor="test")
    said = str(refused.value)
    for name in ("VINTAGE_NEO4J_HEAP", "VINTAGE_NEO4J_TX_MEMORY", "db.memory.transaction.max",
                 "db.memory.transaction.total.max", "nothing was written"):
        assert name in said
    assert "8.0 MiB" in said  # the cap the server reported, so the caller knows what to beat
    assert time.monotonic() - began < 10  # not 30 s of retries of the same work
    assert small.read(AsOf(scope)) == before  # X not superseded, no derived fact closed
    assert kind_of(refused.value).status == 507


def test_a_file_past_the_transaction_memory_cap_is_refused_whole_in_one_line(
    small: Neo4jStore, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file lands whole (docs/storage.md): its batches are one transaction, so a file too
    large for the server's transaction memory is refused whole, where batches of a size that
    fits would each have committed."""
    monkeypatch.setattr(batches, "BATCH_SIZE", 200)  # a batch alone fits under the cap
    monkeypatch.setenv("VINTAGE_KEYS", str(tmp_path / "keys"))
    tenant = f"mem-{uuid.uuid4().hex[:8]}"
    code, out, err = run(["--store", small.uri, "--tenant", tenant, "ingest", "companyfacts",
                          str(data_file("SNOW"))], capsys, monkeypatch)
    said = " ".join(err.split())
    assert (code, out) == (2, ""), err
    assert "Neo4j refused the transaction for memory" in said and "nothing was written" in said
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    facts = small.driver.execute_query("MATCH (f:Fact {tenant: $t}) RETURN count(f) AS n",
                                       t=tenant).records[0]["n"]
    assert (facts, small.events(tenant), small.subjects(tenant)) == (0, [], [])
