"""Random sequences of writes, corrections, CAS updates and as-of reads, driven against two
stores at once: the embedded store (SQLite) and a real Neo4j, and, server-free, the embedded
store and the reference model it replaced (the log-replay store, ``vintage.graph.embedded``):
every answer and every refusal must be identical."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from tests.factories import PinnedClock
from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Fact, FactIn, Scope, SourceIn, Subject, assertion_key
from vintage.graph.core.temporal import all_time, as_of, parse_instant
from vintage.graph.derivations.derived import Output, derive
from vintage.graph.derivations.recipes import expression
from vintage.graph.embedded.store import EmbeddedStore
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.sqlite.store import SqliteStore
from vintage.graph.store.protocol import Store, StoreError
from vintage.graph.writes.corrections import restore_source, retract_source
from vintage.graph.writes.semantics import Batch, record

DAY0 = parse_instant("2020-01-01")
PERIODS = [(parse_instant("2019-01-01"), parse_instant("2019-04-01")),
           (parse_instant("2019-04-01"), parse_instant("2019-07-01"))]
days = st.integers(min_value=0, max_value=6)  # few instants: boundaries get hit often


def comparable(facts: list[Fact]) -> list[tuple[Any, ...]]:
    return [(f.id, f.value, f.available_at, f.superseded_at, f.superseded_recorded_at,
             f.recorded_at, f.invalidated_at, f.gaps_from, f.gaps_to, f.past_superseded_at,
             f.past_superseded_from, f.past_superseded_to) for f in facts]


def chained(versions: list[Fact]) -> bool:
    """Each held version of an observed assertion is current until the next held one begins,
    and the last one is current: a retracted correction leaves no hole, an undone retraction
    no overlap (docs/semantics.md, "Reinstatement")."""
    held = sorted((v for v in versions if v.invalidated_at is None),
                  key=lambda v: (v.available_at, v.revision))
    ends: list[datetime | None] = [v.available_at for v in held[1:]]
    return [v.superseded_at for v in held] == ([*ends, None] if held else [])


def outcome(store: Store, scope: Scope, batch: Batch, expected: dict[str, int | None],
            recompute: bool) -> Any:
    try:
        report = record(store, scope, batch, actor="prop", expected=expected or None,
                        recompute=recompute)
    except StoreError as exc:
        return type(exc).__name__
    cascade = [(o.fact.id, o.fate, o.ends_at, o.replacement.id if o.replacement else None)
               for o in report.cascade]
    return (report.created, sorted(report.repeated), report.superseded, report.changed, cascade)


def derived(store: Store, scope: Scope, left: str, right: str, period: Any) -> Any:
    try:
        result = derive(store, scope, SUM, {"a": left, "b": right},
                        Output("A", "d", period[0], period[1], "USD"), actor="prop")
    except StoreError as exc:
        return type(exc).__name__
    return (result.fact.id, result.fact.value, result.created, result.fact.available_at,
            result.fact.superseded_at)


def exited(store: Store, scope: Scope, exit_: Any, source_id: str) -> Any:
    try:
        report = exit_(store, scope, source_id, actor="prop", reason="prop")
    except StoreError as exc:
        return type(exc).__name__
    return (sorted(report.invalidated),
            sorted((o.fact.id, o.fate.value, o.ends_at) for o in report.cascade))


SUM = expression("sum", "1", "a + b")


def test_embedded_and_neo4j_give_identical_answers(neo4j_driver_store: Neo4jStore) -> None:
    check_equivalence(lambda clock: [SqliteStore.open(None, clock),
                                     Neo4jStore(neo4j_driver_store.driver, clock)],
                      neo4j_driver_store.purge_tenant)


def test_embedded_and_the_reference_model_give_identical_answers() -> None:
    """Server-free: the SQLite store against the log-replay model it replaced."""
    check_equivalence(lambda clock: [EmbeddedStore.open(None, clock),
                                     SqliteStore.open(None, clock)], lambda tenant: None)


def check_equivalence(open_pair: Callable[[PinnedClock], list[Store]],
                      purge: Callable[[str], None]) -> None:
    compared: list[bool] = []
    cascades: list[int] = []

    class Equivalence(RuleBasedStateMachine):
        @initialize()
        def open_stores(self) -> None:
            self.clock = PinnedClock(parse_instant("2026-01-01"))
            self.scope = Scope(tenant="prop-" + uuid.uuid4().hex[:10])
            self.stores: list[Store] = open_pair(self.clock)
            self.keys: list[str] = []
            self.used: set[str] = set()  # facts some derivation took as input
            self.instants = [self.clock.now]

        def teardown(self) -> None:
            if hasattr(self, "scope"):
                purge(self.scope.tenant)

        def both(self, fn: Any) -> Any:
            left, right = (fn(s) for s in self.stores)
            assert left == right
            compared.append(bool(left))
            return left

        @rule(subject=st.sampled_from(["A", "A", "B"]), predicate=st.sampled_from(["p", "q"]),
              period=st.sampled_from(PERIODS), value=st.integers(0, 2), day=days,
              cas=st.sampled_from([None] * 6 + [0, 1, 2]), recompute=st.booleans())
        def write(self, subject: str, predicate: str, period: Any, value: int, day: int,
                  cas: int | None, recompute: bool) -> None:
            src = SourceIn(id=f"src-{day}", kind="filing", available_at=DAY0 + timedelta(day))
            draft = FactIn(subject=subject, predicate=predicate, value=value, unit="USD",
                           valid_from=period[0], valid_to=period[1], source=src.id)
            key = draft.assertion_key(self.scope)
            expected = {} if cas is None else {key: cas or None}
            batch = Batch(subjects=[Subject(id="A"), Subject(id="B")], sources=[src],
                          facts=[draft])
            self.both(lambda s: outcome(s, self.scope, batch, expected, recompute))
            self.keys.append(key)
            self.instants.append(self.clock.advance(seconds=1))

        @rule(pick=st.tuples(st.integers(0, 50), st.integers(0, 50)),
              period=st.sampled_from(PERIODS))
        def derive_sum(self, pick: tuple[int, int], period: Any) -> None:
            # Any two facts visible now (observed or derived), in the same order on both stores.
            visible = self.both(lambda s: [f.id for f in s.read(AsOf(self.scope))
                                           if f.predicate != "d" or pick[0] % 5 == 0])
            if len(visible) < 2:
                return
            left, right = visible[pick[0] % len(visible)], visible[pick[1] % len(visible)]
            if left == right:
                return
            self.both(lambda s: derived(s, self.scope, left, right, period))
            self.used |= {left, right}
            key = assertion_key(self.scope, "A", "d", period[0], period[1], "USD")
            self.keys.append(key)
            self.instants.append(self.clock.advance(seconds=1))

        @precondition(lambda self: bool(getattr(self, "used", None)))
        @rule(pick=st.integers(0, 50), later=st.integers(0, 3), value=st.integers(3, 9),
              recompute=st.booleans())
        def restate(self, pick: int, later: int, value: int, recompute: bool) -> None:
            # A correction aimed at an observation that derivations may depend on.
            seen = self.both(lambda s: [(f.subject, f.predicate, f.valid_from, f.valid_to,
                                         f.available_at) for f in s.read(AsOf(self.scope))
                                        if f.predicate != "d" and f.id in self.used])
            if not seen:
                return
            subject, predicate, start, end, available = seen[pick % len(seen)]
            day = (available - DAY0).days + later
            src = SourceIn(id=f"src-{day}", kind="filing", available_at=DAY0 + timedelta(day))
            draft = FactIn(subject=subject, predicate=predicate, value=value, unit="USD",
                           valid_from=start, valid_to=end, source=src.id)
            batch = Batch(sources=[src], facts=[draft])
            result = self.both(lambda s: outcome(s, self.scope, batch, {}, recompute))
            cascades.append(len(result[4]) if isinstance(result, tuple) else 0)
            self.keys.append(draft.assertion_key(self.scope))
            self.instants.append(self.clock.advance(seconds=1))

        @rule(day=days, undo=st.booleans())
        def retract_or_undo(self, day: int, undo: bool) -> None:
            # A filing withdrawn (its facts lose its support; orphans and what rests on them
            # leave), or its latest withdrawal undone (never two current versions after).
            exit_ = restore_source if undo else retract_source
            self.both(lambda s: exited(s, self.scope, exit_, f"src-{day}"))
            self.instants.append(self.clock.advance(seconds=1))

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
                    versions = self.both(
                        lambda s, k=key: comparable(s.history(self.scope.tenant, k)))
                    # One assertion never has two current versions (open on both axes).
                    assert sum(v[3] is None and v[6] is None for v in versions) <= 1
                    history = self.stores[0].history(self.scope.tenant, key)
                    if history and history[0].predicate != "d":
                        assert chained(history)

    # Derandomized: the guards below (corrections did reach derived facts) held on most seeds
    # but not all; a fixed exploration keeps them meaningful and CI repeatable.
    Equivalence.TestCase.settings = settings(max_examples=80, stateful_step_count=25,
                                             deadline=None, derandomize=True)
    Equivalence.TestCase().runTest()
    # Guard against a vacuous run: many comparisons, and plenty of them about real facts.
    assert len(compared) > 500
    assert sum(compared) > 100
    assert sum(cascades) > 0  # corrections did reach derived facts
