"""Small builders of test data, so tests read like the specification they check."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from vintage.cli.main import main
from vintage.graph.core.model import FactIn, Scope, SourceIn, Subject, Value
from vintage.graph.core.temporal import parse_instant
from vintage.graph.embedded.store import EmbeddedStore
from vintage.graph.memory.gate import MemoryIn
from vintage.graph.memory.remember import remember
from vintage.graph.memory.tools import register_tool
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.sealing.keyfile import FileKeyStore
from vintage.graph.sqlite.store import SqliteStore
from vintage.graph.store.protocol import Store
from vintage.graph.writes.semantics import Batch
from vintage.queries.memory.recall import MemoryView

Q1_2018 = (parse_instant("2018-01-01"), parse_instant("2018-04-01"))


def source(sid: str, available: str, kind: str = "filing", **extra: Any) -> SourceIn:
    return SourceIn(id=sid, kind=kind, available_at=parse_instant(available), **extra)


def fact(
    value: Any, src: str, subject: str = "GOOGL", predicate: str = "OperatingIncomeLoss",
    period: tuple[Any, Any] = Q1_2018, **extra: Any,
) -> FactIn:
    start, end = period
    return FactIn(
        subject=subject, predicate=predicate, value=value, unit=extra.pop("unit", "USD"),
        valid_from=start if not isinstance(start, str) else parse_instant(start),
        valid_to=end if not isinstance(end, str) or end is None else parse_instant(end),
        source=src, **extra,
    )


def company(sid: str = "GOOGL") -> Subject:
    return Subject(id=sid, kind="company", name=sid)


def batch(
    *facts: FactIn, sources: tuple[SourceIn, ...] = (), subjects: tuple[str, ...] = ("GOOGL",),
) -> Batch:
    return Batch(subjects=[company(s) for s in subjects], sources=list(sources), facts=list(facts))


def run(args: list[str], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, columns: int = 200) -> tuple[int, str, str]:
    """``vintage ARGS`` in process: exit code, stdout, stderr, at a terminal ``columns`` wide."""
    monkeypatch.setattr(sys, "argv", ["vintage", *args])
    monkeypatch.setenv("COLUMNS", str(columns))
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


PINNED = parse_instant("2026-06-01T12:00:00+00:00")

# Every test that needs a server carries the ``neo4j`` marker, so that ``pytest -m "not neo4j"``
# is the whole server-free tier. Backend parameters mark themselves; a test that asks for a
# server fixture is marked at collection (``conftest.pytest_collection_modifyitems``).
BACKENDS = ["embedded", pytest.param("neo4j", marks=pytest.mark.neo4j)]
# The same, and a stock Neo4j without Vintage's plugin (conftest.stock_neo4j_store): where a
# suite holds the Cypher fallback to the answers the plugin and the embedded reference give.
# The reference model (the log-replay store, vintage.graph.embedded) joins them: the store every
# backend was first checked against, kept in the tests and off the user's path.
WITH_STOCK = [*BACKENDS, "reference", pytest.param("neo4j-stock", marks=pytest.mark.neo4j)]
# Ranking on both Neo4j paths, each taken every time (tests/rank_paths.py): the Cypher a stock
# server runs, and the launcher's columns.
RANK_PATHS = ["embedded", pytest.param("neo4j-cypher", marks=pytest.mark.neo4j),
              pytest.param("neo4j-ranker", marks=pytest.mark.neo4j)]


class PinnedClock:
    """System time under test control: it moves only when a test says so."""

    def __init__(self, start: datetime = PINNED) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


def make_store(
    backend: str, clock: PinnedClock, tmp_path: Path, request: pytest.FixtureRequest,
) -> Store:
    # Sealed, as every store that open_store opens: memory reaches the disk as ciphertext.
    if backend == "embedded":
        return SqliteStore.open(tmp_path / "store", clock, FileKeyStore(tmp_path / "keys"))
    if backend == "reference":
        return EmbeddedStore.open(tmp_path / "store", clock, FileKeyStore(tmp_path / "keys"))
    server = "stock_neo4j_store" if backend == "neo4j-stock" else "neo4j_driver_store"
    shared: Neo4jStore = request.getfixturevalue(server)
    store = Neo4jStore(shared.driver, clock, shared.database, keys=FileKeyStore(tmp_path / "keys"))
    # As open_store's store would find them.
    store.procedures, store.server_ranker = shared.procedures, shared.server_ranker
    if backend not in ("neo4j", "neo4j-stock"):
        from tests.rank_paths import take_rank_path

        take_rank_path(store, backend, request.getfixturevalue("monkeypatch"))
    return store


# -- memories -----------------------------------------------------------------------------------

ACTOR = "agent:test"


def memory(scope: Scope, **fields: Any) -> MemoryIn:
    base: dict[str, Any] = {
        "kind": "preference", "tenant": scope.tenant, "subject": "user:42",
        "key": "shipping.preference", "value": "ship to the office",
        "source_kind": "user_message", "source_id": "msg-1",
        "observed_at": "2026-05-01T10:00:00Z", "owner": "user:42",
        "retention_reason": "user asked us to remember", "user": "42",
    }
    base.update(fields)
    return MemoryIn.model_validate(base)


def tools(store: Store, tenant: str, *names: str) -> None:
    """Register each tool (every version, any reporter), as a tenant does before its tools'
    results may make business facts active."""
    for name in names:
        register_tool(store, tenant, name, actor="user:admin", reason="the tenant's tool")


REFUND = json.dumps({"trigger": "a customer asks for a refund",
                     "preconditions": ["the order exists", "it was paid by card"],
                     "steps": ["check the order", "refund to the original card"],
                     "outcome": "the customer is refunded"})


def values(memories: Sequence[MemoryView]) -> list[Value]:
    return [m.value for m in memories]


def mine(scope: Scope, user: str = "42") -> Scope:
    return Scope(tenant=scope.tenant, keys={"user": user})


def bad_batch(store: Store, scope: Scope, clock: PinnedClock) -> datetime:
    """A good state at the instant returned, then a buggy agent's batch: one changed memory,
    one new one."""
    remember(store, memory(scope, observed_at=clock.now.isoformat()), actor=ACTOR)
    clock.advance(minutes=1)
    good = clock.now
    clock.advance(minutes=1)
    remember(store, memory(scope, value="ship to nowhere", source_id="bad-1",
                           observed_at=clock.now.isoformat()), actor="agent:buggy")
    remember(store, memory(scope, key="gift.wrap", value="always", source_id="bad-2",
                           observed_at=clock.now.isoformat()), actor="agent:buggy")
    clock.advance(minutes=1)
    return good


# One quarter of subject A's "base" figure, filed days after DAY0: what the cascade tests
# derive from and restate (tests/test_cascade_cycle.py, tests/test_cascade_close_race.py).
DAY0 = parse_instant("2020-01-01")
QUARTER = (parse_instant("2019-01-01"), parse_instant("2019-04-01"))


def filed_base(value: int, source: str, days: int) -> Batch:
    return Batch(subjects=[Subject(id="A")],
                 sources=[SourceIn(id=source, kind="filing",
                                   available_at=DAY0 + timedelta(days=days))],
                 facts=[FactIn(subject="A", predicate="base", value=value, unit="USD",
                               valid_from=QUARTER[0], valid_to=QUARTER[1], source=source)])
