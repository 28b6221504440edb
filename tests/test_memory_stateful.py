"""Random sequences of memory operations (remember, tool facts that conflict, resolve,
correct, demote, invalidate, forget, rollback, summaries, contexts), driven against the embedded
store and a real Neo4j at once: every decision, every refusal, every recall (now and at past
system instants) and every summary must be identical."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from tests.factories import PinnedClock
from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import FactKind
from vintage.graph.core.temporal import parse_instant
from vintage.graph.embedded.store import EmbeddedStore
from vintage.graph.memory.amend import correct
from vintage.graph.memory.conflicts import resolve
from vintage.graph.memory.forget import forget
from vintage.graph.memory.gate import MemoryIn, memory_scope
from vintage.graph.memory.ranking import demote
from vintage.graph.memory.remember import Remembered, invalidate_memory, remember
from vintage.graph.memory.rollback import rollback
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.sealing.keyfile import FileKeyStore
from vintage.graph.sqlite.store import SqliteStore
from vintage.graph.store.protocol import Store, StoreError
from vintage.queries.memory.recall import recall
from vintage.queries.memory.summaries import summarise
from vintage.queries.search.context import build_context

SAID = parse_instant("2026-01-01")
USERS = ("1", "2")
KEYS = ("ship", "wrap")
users, keys = st.sampled_from(USERS), st.sampled_from(KEYS)
values = st.sampled_from(["office", "home", "locker"])


def attempt(fn: Any) -> Any:
    """What an operation returned, or the kind of error it raised (nothing else differs)."""
    try:
        return fn()
    except (StoreError, ValueError) as exc:
        return type(exc).__name__


def decided(r: Remembered) -> tuple[str, str, str, str | None, int | None]:
    return r.decision.value, r.reason, r.key, r.memory_id, r.revision


def test_embedded_and_neo4j_decide_and_recall_memories_identically(
    neo4j_driver_store: Neo4jStore, tmp_path: Path,
) -> None:
    # A key file each, as two deployments have: with one, erasing a memory in one store
    # destroyed the key of its twin (the same id) in the other, which then read it as erased.
    check_memories(lambda clock: [
        SqliteStore.open(tmp_path / uuid.uuid4().hex, clock, FileKeyStore(tmp_path / "keys-a")),
        Neo4jStore(neo4j_driver_store.driver, clock, keys=FileKeyStore(tmp_path / "keys-b"))],
        neo4j_driver_store.purge_tenant)


def test_embedded_and_the_reference_model_decide_and_recall_memories_identically(
    tmp_path: Path,
) -> None:
    """Server-free: the SQLite store, sealed on disk, against the reference model in memory."""
    keys = FileKeyStore(tmp_path / "keys")
    check_memories(lambda clock: [EmbeddedStore.open(None, clock),
                                  SqliteStore.open(tmp_path / uuid.uuid4().hex, clock, keys)],
                   lambda tenant: None)


def check_memories(open_pair: Callable[[PinnedClock], list[Store]],
                   purge: Callable[[str], None]) -> None:
    compared: list[bool] = []
    decisions: set[str] = set()

    class Memories(RuleBasedStateMachine):
        @initialize()
        def open_stores(self) -> None:
            self.clock = PinnedClock(parse_instant("2026-02-01"))
            self.tenant = "mem-" + uuid.uuid4().hex[:10]
            # The stores on disk seal (memory is written as ciphertext and read back through
            # the keys), so every answer compared also checks that sealing round-trips exactly.
            self.stores: list[Store] = open_pair(self.clock)
            self.instants = [self.clock.now]
            self.said = 0

        def teardown(self) -> None:
            if hasattr(self, "tenant"):
                purge(self.tenant)

        def both(self, fn: Any) -> Any:
            left, right = (attempt(lambda s=s: fn(s)) for s in self.stores)
            assert left == right
            compared.append(bool(left))
            return left

        def tick(self) -> None:
            self.instants.append(self.clock.advance(seconds=1))

        def draft(self, user: str, key: str, value: str, kind: str, source: str) -> MemoryIn:
            self.said += 1
            return MemoryIn(kind="preference", tenant=self.tenant, subject=f"user:{user}",
                            key=key, value=value, source_kind=kind, source_id=source,
                            observed_at=SAID + timedelta(minutes=self.said),
                            owner=f"user:{user}", retention_reason="asked", user=user)

        @rule(user=users, key=keys, value=values,
              kind=st.sampled_from(["user_message", "user_message", "document",
                                    "agent_output", "unknown"]),
              source=st.sampled_from(["m1", "m2", "m3"]))
        def write(self, user: str, key: str, value: str, kind: str, source: str) -> None:
            m = self.draft(user, key, value, kind, f"{kind}-{source}")
            # Event ids are random per store; everything else must match.
            done = self.both(lambda s: decided(remember(s, m, actor="prop")))
            if not isinstance(done, str):
                decisions.add(done[0])
            self.tick()

        @rule(user=users, key=keys, value=values)
        def user_corrects(self, user: str, key: str, value: str) -> None:
            shown = self.both(lambda s: [m.id for m in recall(
                s, memory_scope(self.tenant, user), f"user:{user}", key)])
            if shown:
                self.said += 1
                self.both(lambda s: decided(correct(
                    s, self.tenant, shown[0], value, source_id=f"fix-{self.said}",
                    observed_at=SAID + timedelta(minutes=self.said), actor="prop")))
                self.tick()

        @rule(user=users, value=values, system=st.sampled_from(["crm", "billing", "erp"]))
        def tool_says(self, user: str, value: str, system: str) -> None:
            # Business facts of equal authority: conflict sets open, grow and take support.
            self.said += 1
            m = MemoryIn(kind="fact", tenant=self.tenant, subject=f"user:{user}", key="plan",
                         value=value, source_kind="tool_result", source_id=f"{system}-{value}",
                         source_version="v1", observed_at=SAID + timedelta(minutes=self.said),
                         owner="ops", retention_reason="account data", user=user)
            done = self.both(lambda s: decided(remember(s, m, actor="prop")))
            if not isinstance(done, str):
                decisions.add(done[0])
            self.tick()

        @rule(user=users, value=values)
        def person_resolves(self, user: str, value: str) -> None:
            self.said += 1
            self.both(lambda s: resolve(
                s, memory_scope(self.tenant, user), f"user:{user}", "plan", value,
                source_id=f"ticket-{self.said}", observed_at=SAID + timedelta(minutes=self.said),
                owner="ops", actor="ops", reason="checked").created)
            self.tick()

        @rule(user=users)
        def summary(self, user: str) -> None:
            self.both(lambda s: summarise(s, memory_scope(self.tenant, user), f"user:{user}",
                                          actor="prop").fact.value)
            self.tick()

        @rule(user=users, key=keys, weight=st.sampled_from([0.0, 0.5, 1.0]))
        def demote_one(self, user: str, key: str, weight: float) -> None:
            self.both(lambda s: demote(s, memory_scope(self.tenant, user), f"user:{user}", key,
                                       weight=weight, actor="prop", reason="rank").weight)
            self.tick()

        @rule(user=users, key=keys)
        def invalidate_one(self, user: str, key: str) -> None:
            self.both(lambda s: invalidate_memory(s, memory_scope(self.tenant, user),
                                                  f"user:{user}", key, actor="prop",
                                                  reason="wrong").invalidated)
            self.tick()

        @rule(user=users, key=st.one_of(st.none(), keys))
        def erase(self, user: str, key: str | None) -> None:
            def gone(s: Store) -> Any:
                if key is None:
                    done = forget(s, memory_scope(self.tenant), user=user, actor="prop",
                                  reason="asked")
                else:
                    done = forget(s, memory_scope(self.tenant, user), subject=f"user:{user}",
                                  key=key, actor="prop", reason="asked")
                return (done.facts, done.derived)
            self.both(gone)
            self.tick()

        @rule(user=users, back=st.integers(1, 6))
        def roll_back(self, user: str, back: int) -> None:
            to = self.instants[max(0, len(self.instants) - 1 - back)]
            def undo(s: Store) -> tuple[int, int]:
                done = rollback(s, memory_scope(self.tenant, user), to, actor="prop",
                                reason="undo")
                return done.restored, done.retired
            self.both(undo)
            self.tick()

        @rule(user=users, limit=st.integers(1, 2))
        def context(self, user: str, limit: int) -> None:
            def built(s: Store) -> tuple[list[str], int]:
                c = build_context(s, memory_scope(self.tenant, user), f"user:{user}",
                                  thread="t", limit=limit, actor="prop")
                return [m.id for m in c.memories], c.left_out
            self.both(built)
            self.tick()

        @invariant()
        def recall_agrees_now_and_before(self) -> None:
            if not hasattr(self, "stores"):
                return
            for user in USERS:
                summaries = AsOf(memory_scope(self.tenant, user), kinds=(FactKind.DERIVED,))
                self.both(lambda s, q=summaries: [(f.id, f.value, f.superseded_at)
                                                  for f in s.read(q)])
                for system_at in (None, *self.instants[-4:]):
                    self.both(lambda s, u=user, t=system_at: [
                        m.model_dump() for m in recall(s, memory_scope(self.tenant, u),
                                                       f"user:{u}", system_at=t,
                                                       candidates=True)])

    Memories.TestCase.settings = settings(max_examples=40, stateful_step_count=15,
                                          deadline=None)
    Memories.TestCase().runTest()
    # Guard against a vacuous run: many comparisons, real memories, several kinds of decision.
    assert len(compared) > 300
    assert sum(compared) > 100
    assert "active" in decisions and len(decisions) >= 3
