"""``vintage store migrate``: a store in the old log format becomes a SQLite store that answers
every read exactly as the log store did (facts on all three axes, supports, lineage, events,
subjects, search entries, sealed memory), and the log is kept aside, not deleted."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from tests.factories import ACTOR, PinnedClock, batch, fact, memory, mine, run, source
from tests.on_disk import fact_rows
from tests.test_search_index import MODEL, entry, facts, put, search
from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import all_time
from vintage.graph.embedded import log
from vintage.graph.embedded.store import EmbeddedStore
from vintage.graph.memory.remember import remember
from vintage.graph.sealing.keyfile import FileKeyStore
from vintage.graph.sealing.sealed import CIPHERTEXT
from vintage.graph.sqlite.store import SqliteStore
from vintage.graph.store.backends import key_path
from vintage.graph.store.protocol import Direction, Store
from vintage.graph.writes.corrections import restore_source, retract_source
from vintage.graph.writes.semantics import record

TENANT = "migrated"


def answers(store: Store, clock: PinnedClock, instants: list[datetime]) -> list[Any]:
    """What a user can ask of the store, at every system instant it went through."""
    scope = Scope(tenant=TENANT)
    found: list[Any] = []
    for at in instants:
        spec = AsOf(scope, system_at=at, valid=all_time())
        read = store.read(spec)
        found += [read, store.read_cited(spec), store.read_confirmed(spec)]
        ids = [f.id for f in read]
        found += [store.supports(TENANT, ids, at),
                  store.walk(TENANT, ids, Direction.UPSTREAM, at),
                  store.walk(TENANT, ["s1"], Direction.DOWNSTREAM, at)]
    keys = sorted({f.key for f in store.read(AsOf(scope, valid=all_time()))})
    found += [store.history(TENANT, k) for k in keys]
    found += [store.events(TENANT), store.subjects(TENANT), store.sources(TENANT, ["s1", "s2"])]
    hits = search(store, AsOf(scope), "revenue")
    found.append((hits.keyword, hits.semantic, hits.legal, hits.matched))
    return found


def test_a_log_store_migrates_into_a_sqlite_store_that_answers_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    directory = tmp_path / "store"
    clock = PinnedClock()
    old = EmbeddedStore.open(directory, clock, FileKeyStore(key_path(str(directory))))
    scope = Scope(tenant=TENANT)
    instants = [clock.now]
    s1, s2 = source("s1", "2018-04-24"), source("s2", "2019-04-24")
    record(old, scope, batch(fact(100, "s1"), sources=(s1,)), actor=ACTOR)
    instants.append(clock.advance(minutes=1))
    record(old, scope, batch(fact(120, "s2"), sources=(s2,)), actor=ACTOR)  # a restatement
    instants.append(clock.advance(minutes=1))
    retract_source(old, scope, "s2", actor=ACTOR, reason="withdrawn")
    instants.append(clock.advance(minutes=1))
    restore_source(old, scope, "s2", actor=ACTOR, reason="reinstated")  # a gap on its edges
    instants.append(clock.advance(minutes=1))
    (revenue,) = facts(old, scope, "Revenues")
    put(old, TENANT, entry(revenue, "revenue growth"))
    remember(old, memory(scope, value="ship to the office"), actor=ACTOR)
    instants.append(clock.advance(minutes=1))
    before = answers(old, clock, instants)
    assert before[0] and before[-1][0]  # not vacuous: facts read, and a keyword hit

    code, out, err = run(["--store", str(directory), "store", "migrate"], capsys, monkeypatch)
    assert code == 0, err
    assert "migrated" in out and "the old log is kept" in out
    assert sorted(p.name for p in directory.iterdir()) == sorted([
        log.LOCK_NAME, f"{log.LOG_NAME}.migrated", "vintage.db"])

    new = SqliteStore.open(directory, clock, FileKeyStore(key_path(str(directory))))
    assert answers(new, clock, instants) == before
    (said,) = [r for r in fact_rows(directory, TENANT) if r["predicate"] == "shipping.preference"]
    assert CIPHERTEXT in said and said["value"] == ""  # still sealed at rest
    assert [m.value for m in new.history(TENANT, memory(scope).assertion_key())] == [
        "ship to the office"]
    assert mine(scope).tenant == TENANT and MODEL

    code, _, err = run(["--store", str(directory), "store", "migrate"], capsys, monkeypatch)
    assert code == 2 and "no store in the old log format" in err
