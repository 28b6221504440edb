"""Timed ingest and as-of reads through Vintage's own API, for any backend."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Scope
from vintage.graph.store.protocol import Store
from vintage.graph.writes.semantics import Batch, record

WARMUP_READS = 20


@dataclass(frozen=True)
class IngestResult:
    facts: int
    batches: int
    seconds: float
    batch_seconds: tuple[float, ...]
    created: int
    superseded: int

    @property
    def per_second(self) -> float:
        return self.facts / self.seconds if self.seconds > 0 else float("inf")


@dataclass(frozen=True)
class ReadResult:
    reads: int
    ms: tuple[float, ...] = field(repr=False)
    rows: int
    answers: tuple[tuple[str, ...], ...] = field(repr=False)

    def percentile(self, p: float) -> float:
        # Nearest rank: an observed latency, never an interpolation between two.
        ordered = sorted(self.ms)
        return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]

    def summary(self) -> dict[str, float]:
        return {
            "p50_ms": self.percentile(50), "p95_ms": self.percentile(95),
            "p99_ms": self.percentile(99), "max_ms": max(self.ms),
            "mean_ms": sum(self.ms) / len(self.ms),
        }


def ingest(store: Store, scope: Scope, batches: Sequence[Batch]) -> IngestResult:
    created = superseded = 0
    per_batch = []
    began = time.perf_counter()
    for batch in batches:
        t0 = time.perf_counter()
        report = record(store, scope, batch, actor="bench")
        per_batch.append(time.perf_counter() - t0)
        created += len(report.created)
        superseded += len(report.superseded)
    seconds = time.perf_counter() - began
    facts = sum(len(b.facts) for b in batches)
    return IngestResult(facts, len(batches), seconds, tuple(per_batch), created, superseded)


def reads(store: Store, specs: Sequence[AsOf]) -> ReadResult:
    """Time each read end to end (query, transfer, decoding into ``Fact``s). A few untimed reads
    first, so Neo4j's plan cache and the driver's connection pool are warm, as in a service."""
    for spec in specs[:WARMUP_READS]:
        store.read(spec)
    latencies = []
    answers = []
    rows = 0
    for spec in specs:
        t0 = time.perf_counter()
        facts = store.read(spec)
        latencies.append((time.perf_counter() - t0) * 1000)
        rows += len(facts)
        answers.append(tuple(f.id for f in facts))
    return ReadResult(len(specs), tuple(latencies), rows, tuple(answers))


def disagreements(a: ReadResult, b: ReadResult) -> int:
    """Reads whose answers differ between two backends: both run the same compiled predicate,
    so any difference is a bug, not noise."""
    return sum(x != y for x, y in zip(a.answers, b.answers, strict=True))
