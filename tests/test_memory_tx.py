"""Reads inside a write transaction, on both backends: the primitives erasure and rollback plan
on (``StoreTx.read``, ``StoreTx.facts_in``), events narrowed to some actions, and a rollback
that reads, plans and writes in one transaction."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from tests.factories import ACTOR, PinnedClock, bad_batch, memory, mine, values
from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import FactKind, Status
from vintage.graph.core.model import Event, Fact, Scope
from vintage.graph.core.temporal import all_time
from vintage.graph.memory.forget import forget
from vintage.graph.memory.primitives import memory_tx
from vintage.graph.memory.remember import invalidate_memory, remember
from vintage.graph.memory.rollback import rollback
from vintage.graph.store.protocol import CrossTenant, Store, StoreError, StoreTx
from vintage.queries.memory.recall import recall

T = TypeVar("T")


def remembered(store: Store, scope: Scope, **fields: Any) -> str:
    done = remember(store, memory(scope, **fields), actor=ACTOR)
    assert done.memory_id is not None
    return done.memory_id


def three_memories(store: Store, scope: Scope, clock: PinnedClock) -> None:
    """User 42: a corrected preference and an invalidated one; user 43: one preference."""
    remembered(store, scope, value="ship to the office")
    clock.advance(minutes=1)
    remembered(store, scope, value="ship to my home", source_id="msg-2",
               observed_at=clock.now.isoformat())
    remembered(store, scope, key="gift.wrap", value="yes", source_id="msg-3")
    clock.advance(minutes=1)
    invalidate_memory(store, mine(scope), "user:42", "gift.wrap", actor="ops", reason="wrong")
    remembered(store, scope, user="43", subject="user:43", owner="user:43", source_id="msg-4",
               value="ship to the other office")


def in_write(store: Store, tenant: str, work: Callable[[StoreTx], T]) -> T:
    return store.write(tenant, work)


def test_a_read_inside_a_write_returns_what_the_store_reads_for_the_same_spec(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    three_memories(store, scope, clock)
    for spec in (AsOf(mine(scope)).resolved(clock.now),
                 AsOf(scope, valid=all_time(), statuses=frozenset(Status)).resolved(clock.now),
                 AsOf(mine(scope), known_at=clock.now, system_at=clock.now.replace(minute=0))):
        def read_inside(tx: StoreTx, spec: AsOf = spec) -> list[Fact]:
            return tx.read(spec)

        assert in_write(store, scope.tenant, read_inside) == store.read(spec)
    assert [f.value for f in store.read(AsOf(mine(scope)))] == ["ship to my home"]


def test_a_read_inside_a_transaction_refuses_an_unresolved_spec(
    store: Store, scope: Scope,
) -> None:
    with pytest.raises(ValueError, match="resolve"):
        in_write(store, scope.tenant, lambda tx: tx.read(AsOf(scope)))
    assert store.events(scope.tenant) == []


def test_a_transaction_of_one_tenant_cannot_read_another(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    other = Scope(tenant=scope.tenant + "-other")
    with pytest.raises(CrossTenant):
        in_write(store, scope.tenant, lambda tx: tx.read(AsOf(other).resolved(clock.now)))
    with pytest.raises(CrossTenant):
        in_write(store, scope.tenant, lambda tx: memory_tx(tx).facts_in(other))


def test_facts_in_a_scope_are_every_version_ever_recorded_and_none_of_another_user(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    three_memories(store, scope, clock)

    def facts_in(tx: StoreTx) -> list[Fact]:
        return memory_tx(tx).facts_in(mine(scope))

    found = store.reading(scope.tenant, facts_in)
    assert sorted(str(f.value) for f in found) == [
        "ship to my home", "ship to the office", "yes"]  # superseded and invalidated too
    assert {f.superseded_at is not None for f in found} == {True, False}
    assert any(f.invalidated_at is not None for f in found)
    assert all("user=42" in f.scope for f in found)
    everyone = store.reading(scope.tenant, lambda tx: memory_tx(tx).facts_in(scope))
    assert len(everyone) == 4
    key = memory(scope).assertion_key()
    keyed = store.reading(scope.tenant, lambda tx: memory_tx(tx).facts_in(mine(scope), keys=[key]))
    assert [f.revision for f in keyed] == [1, 2]
    assert store.reading(scope.tenant, lambda tx: memory_tx(tx).facts_in(
        mine(scope), [FactKind.EXPERIENCE])) == []


def test_facts_in_a_scope_include_erased_shells(store: Store, scope: Scope) -> None:
    remembered(store, scope, value="ship to the office")
    forget(store, mine(scope), subject="user:42", key="shipping.preference", actor="x",
           reason="erase request")
    (shell,) = store.reading(scope.tenant, lambda tx: memory_tx(tx).facts_in(mine(scope)))
    assert shell.erased_at is not None and shell.value == ""


def test_events_can_be_narrowed_to_some_actions_in_their_order(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    three_memories(store, scope, clock)
    clock.advance(minutes=1)
    forget(store, scope, user="43", actor="admin", reason="account deleted")
    every = store.events(scope.tenant)
    assert store.events(scope.tenant, None) == every

    def only(*actions: str) -> list[Event]:
        return [e for e in every if e.action in actions]

    assert store.events(scope.tenant, ["erase"]) == only("erase") != []
    assert store.events(scope.tenant, ["invalidate", "erase"]) == only("invalidate", "erase")
    assert len(only("invalidate", "erase")) == 2
    assert store.events(scope.tenant, []) == []
    assert store.events(scope.tenant, ["no-such-action"]) == []


def test_a_write_committed_as_a_rollback_starts_is_part_of_its_plan(
    store: Store, scope: Scope, clock: PinnedClock, monkeypatch: pytest.MonkeyPatch,
) -> None:
    good = bad_batch(store, scope, clock)
    write = store.write

    def late_writer_first(tenant: str, work: Callable[[StoreTx], T]) -> T:
        # Another writer commits after rollback() was called, before its transaction opens.
        monkeypatch.setattr(store, "write", write)
        remembered(store, scope, key="late.key", value="late", source_id="bad-3",
                   observed_at=clock.now.isoformat())
        return write(tenant, work)

    monkeypatch.setattr(store, "write", late_writer_first)
    done = rollback(store, mine(scope), good, actor="ops", reason="bad batch")
    assert (done.restored, done.retired) == (1, 2)  # the late key is retired too
    assert values(recall(store, mine(scope), "user:42")) == ["ship to the office"]


def test_a_rollback_failing_at_its_last_step_writes_nothing(
    store: Store, scope: Scope, clock: PinnedClock, monkeypatch: pytest.MonkeyPatch,
) -> None:
    good = bad_batch(store, scope, clock)
    key = memory(scope).assertion_key()
    before = (store.events(scope.tenant), store.history(scope.tenant, key),
              store.read(AsOf(mine(scope))))
    write = store.write

    def event_refused(tenant: str, work: Callable[[StoreTx], T]) -> T:
        def refuse(*events: Event) -> None:
            raise RuntimeError("the event could not be written")

        def failing(tx: StoreTx) -> T:
            monkeypatch.setattr(tx, "append_events", refuse)
            return work(tx)

        return write(tenant, failing)

    monkeypatch.setattr(store, "write", event_refused)
    # By then the rollback has written its new version, its source and an invalidation.
    with pytest.raises(RuntimeError, match="event could not be written"):
        rollback(store, mine(scope), good, actor="ops", reason="bad batch")
    monkeypatch.undo()
    assert (store.events(scope.tenant), store.history(scope.tenant, key),
            store.read(AsOf(mine(scope)))) == before
    assert sorted(str(m.value) for m in recall(store, mine(scope), "user:42")) == [
        "always", "ship to nowhere"]


def test_a_rollback_with_nothing_to_change_writes_nothing(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    remembered(store, scope, value="ship to the office")
    clock.advance(minutes=1)
    at = clock.now
    clock.advance(minutes=1)
    events = store.events(scope.tenant)
    done = rollback(store, mine(scope), at, actor="ops", reason="nothing happened")
    assert (done.event_id, done.restored, done.retired) == (None, 0, 0)
    assert store.events(scope.tenant) == events


def test_a_transaction_without_the_memory_primitives_is_refused_by_name() -> None:
    class CoreOnly:
        tenant = "t"

    with pytest.raises(StoreError, match="CoreOnly has no agent-memory primitives"):
        memory_tx(CoreOnly())  # type: ignore[arg-type]
