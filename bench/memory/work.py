"""The agent-memory workload of ``bench.memory`` and its timed runs through Vintage's own API
(``remember``, ``recall``, ``build_context``, ``forget``), for any backend.

Every call is timed on its own, end to end (one call per memory, as an agent makes them);
rates are calls divided by the summed call time, percentiles are nearest rank.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, TypeVar

from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import SourceKind, Status
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import as_of
from vintage.graph.memory.forget import forget
from vintage.graph.memory.gate import FACT_KIND, MemoryIn, MemoryKind, memory_scope
from vintage.graph.memory.ranking import weights
from vintage.graph.memory.remember import current_version, remember
from vintage.graph.store.protocol import Store
from vintage.queries.memory.recall import recall
from vintage.queries.search.context import build_context

X = TypeVar("X")
Y = TypeVar("Y")
Result = dict[str, Any]
Pair = tuple[str, str]  # (user, key)
Answer = tuple[tuple[str, str], ...]  # (key, value) pairs, sorted by key
ACTOR = "bench:agent"
WARMUP_READS = 20
WARMUP_WRITES = 20  # per round, into a throwaway tenant before the timed writes
CONTEXT_LIMIT = 10
PHASE_SAMPLE = 100


def clock() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Timed:
    ms: tuple[float, ...] = field(repr=False)

    def percentile(self, p: float) -> float:
        # Nearest rank: an observed latency, never an interpolation between two.
        ordered = sorted(self.ms)
        return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]

    def summary(self) -> Result:
        seconds = sum(self.ms) / 1000
        return {"n": len(self.ms), "seconds": seconds,
                "per_s": len(self.ms) / seconds if seconds > 0 else float("inf"),
                "p50_ms": self.percentile(50), "p95_ms": self.percentile(95),
                "p99_ms": self.percentile(99), "max_ms": max(self.ms),
                "mean_ms": sum(self.ms) / len(self.ms)}


def joined(*runs: Timed) -> Result:
    return Timed(tuple(x for r in runs for x in r.ms)).summary()


def time_each(items: Sequence[X], call: Callable[[X], Y],
              warmup: int = 0) -> tuple[Timed, list[Y]]:
    """Time ``call`` on every item; the first ``warmup`` items are called once untimed first
    (plan cache, connection pool: warm, as in a service). Only reads take a warm-up."""
    for item in items[:warmup]:
        call(item)
    latencies: list[float] = []
    answers: list[Y] = []
    for item in items:
        t0 = time.perf_counter()
        answers.append(call(item))
        latencies.append((time.perf_counter() - t0) * 1000)
    return Timed(tuple(latencies)), answers


@dataclass(frozen=True)
class Write:
    user: str
    key: str
    value: str
    source_id: str
    kind: str  # "new", "correction" (another value) or "restated" (same value, new message)


@dataclass(frozen=True)
class Workload:
    users: tuple[str, ...]
    keys: tuple[str, ...]
    first: tuple[Write, ...]  # every (user, key) once
    second: tuple[Write, ...]  # every (user, key) again: a share corrected, the rest restated
    points: tuple[Pair, ...]  # one-key recalls
    lists: tuple[str, ...]  # all-keys recalls (users)
    contexts: tuple[str, ...]
    erased: tuple[str, ...]

    def warmup(self) -> tuple[Write, ...]:
        """A few writes of both rounds, for a throwaway tenant: Cypher plans and the driver's
        connections are warm before the first timed write, as in a running service."""
        return (*self.first[:WARMUP_WRITES], *self.second[:WARMUP_WRITES])

    @cached_property
    def expected(self) -> dict[Pair, str]:
        """The value every (user, key) holds after both rounds."""
        return {(w.user, w.key): w.value for w in (*self.first, *self.second)}

    def answer(self, user: str, key: str | None = None) -> Answer:
        final = self.expected
        keys = self.keys if key is None else (key,)
        return tuple((k, final[(user, k)]) for k in sorted(keys))


def make_workload(users: int, keys: int, reads: int, correct_share: float, erase: int,
                  seed: int) -> Workload:
    rng = random.Random(seed)
    names = tuple(f"u{i:05d}" for i in range(users))
    prefs = tuple(f"pref.k{j:03d}" for j in range(keys))
    first = tuple(Write(u, k, f"option-{rng.randrange(1000)}", f"msg-{u}-{k}-1", "new")
                  for u in names for k in prefs)
    corrected = set(rng.sample(range(len(first)), round(correct_share * len(first))))
    second = tuple(
        Write(w.user, w.key, f"{w.value}-fixed", f"msg-{w.user}-{w.key}-2", "correction")
        if i in corrected else
        Write(w.user, w.key, w.value, f"msg-{w.user}-{w.key}-2", "restated")
        for i, w in enumerate(first))
    return Workload(
        users=names, keys=prefs, first=first, second=second,
        points=tuple((rng.choice(names), rng.choice(prefs)) for _ in range(reads)),
        lists=tuple(rng.choice(names) for _ in range(reads)),
        contexts=tuple(rng.choice(names) for _ in range(reads)),
        erased=tuple(rng.sample(names, min(erase, users))),
    )


def subject(user: str) -> str:
    return f"user:{user}"


def draft(tenant: str, w: Write, observed_at: datetime) -> MemoryIn:
    return MemoryIn(
        kind=MemoryKind.PREFERENCE, tenant=tenant, subject=subject(w.user), key=w.key,
        value=w.value, source_kind=SourceKind.USER_MESSAGE, source_id=w.source_id,
        observed_at=observed_at, owner=subject(w.user),
        retention_reason="the user asked us to remember", user=w.user,
    )


EXPECTED_DECISION = {"new": "active", "correction": "active", "restated": "duplicate"}


def write_round(store: Store, tenant: str,
                writes: Sequence[Write]) -> tuple[Timed, Counter[str], int]:
    """One ``remember`` per write, in order; the draft (and its observed time, the real clock
    just before the call) is built outside the timed call. Returns the latencies, the gate's
    decisions and how many differ from the one the workload expects."""
    ms: list[float] = []
    decisions: Counter[str] = Counter()
    unexpected = 0
    for w in writes:
        m = draft(tenant, w, clock())
        t0 = time.perf_counter()
        done = remember(store, m, actor=ACTOR)
        ms.append((time.perf_counter() - t0) * 1000)
        decisions[done.decision.value] += 1
        unexpected += done.decision.value != EXPECTED_DECISION[w.kind]
    return Timed(tuple(ms)), decisions, unexpected


def writes_summary(work: Workload, first: Timed, second: Timed) -> Result:
    """All writes, round 2 alone, and each kind of write (new, correction, restated)."""
    ms: dict[str, list[float]] = {}
    for w, x in zip((*work.first, *work.second), (*first.ms, *second.ms), strict=True):
        ms.setdefault(w.kind, []).append(x)
    return {"all": joined(first, second), "round2": second.summary(),
            **{kind: Timed(tuple(x)).summary() for kind, x in ms.items()},
            "drift": {"round1": drift(first), "round2": drift(second)}}


def drift(run: Timed) -> Result:
    """p50 of the first and the last tenth of a run's calls: does a call slow down as the
    store grows?"""
    tenth = max(1, len(run.ms) // 10)
    return {"first_tenth_p50_ms": Timed(run.ms[:tenth]).percentile(50),
            "last_tenth_p50_ms": Timed(run.ms[-tenth:]).percentile(50)}


def _values(store: Store, tenant: str, user: str, key: str | None) -> Answer:
    found = recall(store, memory_scope(tenant, user=user), subject(user), key)
    return tuple(sorted((m.key, str(m.value)) for m in found))


def reads(store: Store, tenant: str, work: Workload) -> tuple[Result, int]:
    """Timed one-key and all-keys recalls and context builds; returns the summaries and the
    number of timed recalls whose answer differs from the workload's expected values."""
    point, got_points = time_each(work.points, lambda p: _values(store, tenant, p[0], p[1]),
                                  WARMUP_READS)
    lists, got_lists = time_each(work.lists, lambda u: _values(store, tenant, u, None),
                                 WARMUP_READS)
    wrong = sum(got != work.answer(u, k) for (u, k), got in zip(work.points, got_points,
                                                                strict=True))
    wrong += sum(got != work.answer(u) for u, got in zip(work.lists, got_lists, strict=True))

    def context(item: tuple[int, str]) -> int:
        i, user = item
        built = build_context(store, memory_scope(tenant, user=user), subject(user),
                              thread=f"bench-thread-{i}", limit=CONTEXT_LIMIT, actor=ACTOR)
        return len(built.memories)

    built, sizes = time_each(list(enumerate(work.contexts)), context)
    wrong += sum(n != min(CONTEXT_LIMIT, len(work.keys)) for n in sizes)
    return {"recall_key": point.summary(), "recall_user": lists.summary(),
            "context": built.summary()}, wrong


def sweep(store: Store, tenant: str, work: Workload) -> int:
    """Untimed: every user's memories, all keys, against the expected values; returns how many
    (user, key) answers differ (missing, extra or another value)."""
    wrong = 0
    for user in work.users:
        got = dict(_values(store, tenant, user, None))
        want = dict(work.answer(user))
        wrong += sum(got.get(k) != v for k, v in want.items()) + len(set(got) - set(want))
    return wrong


def erase(store: Store, tenant: str, work: Workload) -> tuple[Result, int]:
    """``forget(user=...)`` for each chosen user; afterwards that user's recall must be empty."""
    scope = Scope(tenant=tenant)
    timed, found = time_each(work.erased, lambda u: forget(
        store, scope, user=u, actor=ACTOR, reason="bench: account deleted"))
    left = sum(len(_values(store, tenant, u, None)) for u in work.erased)
    return {**timed.summary(), "ms": list(timed.ms),
            "facts_per_user": [f.facts for f in found]}, left


def phases(store: Store, tenant: str, work: Workload) -> Result:
    """Diagnostics, not part of any rate: the steps a write and a one-key recall make, timed one
    by one on a sample of keys. The recall steps repeat what ``recall`` does (its AsOf, then
    supports, sources, ranking weights); the write's first step is the gate's read."""
    sample = work.points[:PHASE_SAMPLE]
    statuses = frozenset({Status.ACTIVE, Status.CONFLICTED})

    def spec(p: Pair) -> AsOf:
        t = store.now()
        return AsOf(memory_scope(tenant, user=p[0]), known_at=t, valid=as_of(t),
                    subjects=(subject(p[0]),), predicates=(p[1],), statuses=statuses,
                    kinds=tuple(FACT_KIND.values()))

    keys = [draft(tenant, Write(u, k, "-", "-", "new"), clock()).assertion_key() for u, k in sample]
    ids = [f.id for p in sample for f in store.read(spec(p))]
    sources = sorted({s.source_id for s in store.supports(tenant, ids)})
    steps: dict[str, Timed] = {
        "gate_read (current_version)": time_each(
            keys, lambda k: current_version(store, tenant, k), WARMUP_READS)[0],
        "store.read": time_each(sample, lambda p: store.read(spec(p)), WARMUP_READS)[0],
        "store.supports": time_each(ids, lambda i: store.supports(tenant, [i]),
                                    WARMUP_READS)[0],
        "store.sources": time_each(sources, lambda s: store.sources(tenant, [s]),
                                   WARMUP_READS)[0],
        "ranking.weights": time_each(ids, lambda i: weights(store, tenant, [i], store.now()),
                                     WARMUP_READS)[0],
    }
    out: Result = {name: {"p50_ms": t.percentile(50), "p95_ms": t.percentile(95)}
                   for name, t in steps.items()}
    out["events_in_tenant"] = len(store.events(tenant))
    return out
