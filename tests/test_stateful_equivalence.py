"""Random sequences of writes, corrections, CAS updates and as-of reads, driven against the
embedded store and a real Neo4j at once: every answer and every refusal must be identical."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from graph.asof import AsOf
from graph.embedded import EmbeddedStore
from graph.model import Fact, FactIn, Scope, SourceIn, Subject
from graph.neo4j_store import Neo4jStore
from graph.store import Store, StoreError
from graph.temporal import all_time, as_of, parse_instant
from graph.writes import Batch, record
from tests.conftest import PinnedClock

DAY0 = parse_instant("2020-01-01")
PERIODS = [(parse_instant("2019-01-01"), parse_instant("2019-04-01")),
           (parse_instant("2019-04-01"), parse_instant("2019-07-01"))]
days = st.integers(min_value=0, max_value=6)  # few instants: boundaries get hit often


def comparable(facts: list[Fact]) -> list[tuple[Any, ...]]:
    return [(f.id, f.value, f.available_at, f.superseded_at, f.superseded_recorded_at,
             f.recorded_at) for f in facts]


def outcome(store: Store, scope: Scope, batch: Batch, expected: dict[str, int | None]) -> Any:
    try:
        report = record(store, scope, batch, actor="prop", expected=expected or None)
    except StoreError as exc:
        return type(exc).__name__
    return (report.created, sorted(report.repeated), report.superseded, report.changed)


def test_embedded_and_neo4j_give_identical_answers(neo4j_driver_store: Neo4jStore) -> None:
    compared: list[bool] = []

    class Equivalence(RuleBasedStateMachine):
        @initialize()
        def open_stores(self) -> None:
            self.clock = PinnedClock(parse_instant("2026-01-01"))
            self.scope = Scope(tenant="prop-" + uuid.uuid4().hex[:10])
            self.stores: list[Store] = [
                EmbeddedStore.open(None, self.clock),
                Neo4jStore(neo4j_driver_store.driver, self.clock),
            ]
            self.keys: list[str] = []
            self.instants = [self.clock.now]

        def teardown(self) -> None:
            if hasattr(self, "scope"):
                neo4j_driver_store.purge_tenant(self.scope.tenant)

        def both(self, fn: Any) -> Any:
            left, right = (fn(s) for s in self.stores)
            assert left == right
            compared.append(bool(left))
            return left

        @rule(subject=st.sampled_from(["A", "B"]), predicate=st.sampled_from(["p", "p", "p", "q"]),
              period=st.sampled_from(PERIODS), value=st.integers(0, 2), day=days,
              cas=st.sampled_from([None] * 6 + [0, 1, 2]))
        def write(self, subject: str, predicate: str, period: Any, value: int, day: int,
                  cas: int | None) -> None:
            src = SourceIn(id=f"src-{day}", kind="filing", available_at=DAY0 + timedelta(day))
            draft = FactIn(subject=subject, predicate=predicate, value=value, unit="USD",
                           valid_from=period[0], valid_to=period[1], source=src.id)
            key = draft.assertion_key(self.scope)
            expected = {} if cas is None else {key: cas or None}
            batch = Batch(subjects=[Subject(id="A"), Subject(id="B")], sources=[src],
                          facts=[draft])
            self.both(lambda s: outcome(s, self.scope, batch, expected))
            self.keys.append(key)
            self.instants.append(self.clock.advance(seconds=1))

        @rule(seconds=st.integers(1, 3600))
        def tick(self, seconds: int) -> None:
            self.instants.append(self.clock.advance(seconds=seconds))

        @rule(cutoff=days, valid=st.one_of(st.none(), st.sampled_from(PERIODS)),
              limit=st.one_of(st.none(), st.integers(1, 3)))
        def read(self, cutoff: int, valid: Any, limit: int | None) -> None:
            # Every system instant seen so far: a past answer must stay reproducible.
            for instant in self.instants:
                window = all_time() if valid is None else as_of(valid[0])
                spec = AsOf(self.scope, known_at=DAY0 + timedelta(cutoff), system_at=instant,
                            valid=window)
                self.both(lambda s, q=spec: comparable(s.read(q, limit)))

        @invariant()
        def histories_agree(self) -> None:
            if hasattr(self, "stores"):
                for key in set(self.keys):
                    self.both(lambda s, k=key: comparable(s.history(self.scope.tenant, k)))

    Equivalence.TestCase.settings = settings(max_examples=50, stateful_step_count=20,
                                             deadline=None)
    Equivalence.TestCase().runTest()
    # Guard against a vacuous run: many comparisons, and plenty of them about real facts.
    assert len(compared) > 500
    assert sum(compared) > 100
