"""One evaluation run: every scenario replayed once on a tenant of its own, then every ask put to
every rung and peer, each answer scored, and the numbers of the ladder (docs/eval.md).

A scenario's writes are replayed once and its asks put to each rung in turn: the write layer is
the engine's and the same for all of its rungs (the ``none`` rung and the naive peer have no
write path of their own: n/a). Rungs are asked in ladder order, each at the ask's instant.
"""

from __future__ import annotations

import secrets
import statistics
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from vintage.graph.core.errors import InvalidArgument, UserError
from vintage.graph.retrieval.embedder import Embedder
from vintage.graph.store.protocol import Store
from vintage.queries.eval import scenario as sc
from vintage.queries.eval.answer import GOOD, Answerer, Outcome, answer
from vintage.queries.eval.replay import replay
from vintage.queries.eval.rungs import Rung
from vintage.queries.eval.score import LAYERS, Check, ask_checks, write_checks
from vintage.queries.eval.written import IngestFile, Settable

ENGINE_RUNGS = ("exact", "keyword", "semantic", "hybrid", "engine")
Progress = Callable[[str], None]


@dataclass
class RungResult:
    name: str
    checks: list[Check] = field(default_factory=list)
    outcomes: dict[tuple[str, str], Outcome] = field(default_factory=dict)
    seconds: list[float] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    # Checks a peer has no way to express, each with why: neither passed nor failed.
    not_expressible: list[dict[str, str | None]] = field(default_factory=list)


@dataclass
class Evaluation:
    run: str
    backend: str
    scenarios: list[sc.Scenario]
    rungs: list[RungResult]
    embedder: str = ""  # the model the engine's rungs searched with (the store's choice)

    def summary(self) -> dict[str, Any]:
        """The numbers ``--json`` prints and the report draws."""
        below: RungResult | None = None
        none = next((r for r in self.rungs if r.name == "none"), None)
        rows = []
        language = {s.id: s.language for s in self.scenarios}
        for r in self.rungs:
            rows.append(_row(r, below, none, language))
            if r.name in ("none", *ENGINE_RUNGS):
                below = r
        return {
            "run": self.run, "backend": self.backend, "embedder": self.embedder,
            "scenarios": len(self.scenarios),
            "asks": sum(len(s.asks) for s in self.scenarios),
            "families": dict(sorted(Counter(s.family for s in self.scenarios).items())),
            "languages": dict(sorted(Counter(s.language for s in self.scenarios).items())),
            "rungs": rows,
        }


def _layers(checks: Sequence[Check]) -> dict[str, dict[str, Any] | None]:
    out: dict[str, dict[str, Any] | None] = {}
    for layer in LAYERS:
        mine = [c for c in checks if c.layer == layer]
        passed = sum(c.passed for c in mine)
        out[layer] = (None if not mine else
                      {"passed": passed, "total": len(mine), "score": round(passed / len(mine), 4)})
    return out


def _row(r: RungResult, below: RungResult | None, none: RungResult | None,
         language: Mapping[str, str]) -> dict[str, Any]:
    def bad(o: Outcome) -> bool:
        return o in (Outcome.WRONG, Outcome.SHOULD_HAVE_REFUSED)

    layers = _layers(r.checks)
    # The bar is each layer in each language (issue 40): a language's checks alone.
    by_language = {lang: _layers([c for c in r.checks if language.get(c.scenario) == lang])
                   for lang in sorted(set(language.values()))}
    caused = [k for k, o in r.outcomes.items() if bad(o) and none is not None
              and none.outcomes.get(k) in (*GOOD, Outcome.REFUSED)]
    added = [k for k, o in r.outcomes.items() if below is not None and bad(o)
             and below.outcomes.get(k) in (*GOOD, Outcome.REFUSED)]
    ms = sorted(s * 1000 for s in r.seconds)
    return {
        "rung": r.name, "layers": layers, "layers_by_language": by_language,
        "outcomes": dict(sorted(Counter(o.value for o in r.outcomes.values()).items())),
        "memory_caused_errors": len(caused), "errors_added_over_below": len(added),
        "refusals_right": sum(o is Outcome.REFUSED_RIGHT for o in r.outcomes.values()),
        "latency_ms": {"p50": _q(ms, 0.5), "p95": _q(ms, 0.95)},
        "tokens_mean": round(statistics.fmean(r.tokens), 1) if r.tokens else 0.0,
        "failures": [{"layer": c.layer, "check": c.name, "scenario": c.scenario,
                      "ask": c.ask, "detail": c.detail} for c in r.checks if not c.passed],
        "not_expressible": r.not_expressible,
    }


def _q(sorted_ms: list[float], q: float) -> float:
    if not sorted_ms:
        return 0.0
    return round(sorted_ms[min(len(sorted_ms) - 1, int(q * len(sorted_ms)))], 2)


def evaluate(store: Store, clock: Settable, embedder: Embedder, scenarios: Sequence[sc.Scenario],
             rungs: Sequence[Rung], *, backend: str, progress: Progress | None = None,
             prefix: str | None = None, ingest: IngestFile | None = None,
             answerer: Answerer = answer) -> \
        Evaluation:
    """Each scenario on a tenant of its own, ``<prefix>-<n>`` (default prefix:
    ``eval-<run id>``)."""
    run = secrets.token_hex(4)
    prefix = prefix or f"eval-{run}"
    results = [RungResult(r.name) for r in rungs]
    for n, s in enumerate(scenarios, 1):
        if progress is not None:
            progress(s.id)
        done = replay(store, clock, embedder, s, f"{prefix}-{n}", ingest)
        writes = write_checks(store, s, done)
        _, instants = s.timeline()
        for rung, result in zip(rungs, results, strict=True):
            if rung.name in ENGINE_RUNGS:
                result.checks.extend(writes)
            rung.load(done)
            for a, at in zip(s.asks, instants, strict=True):
                clock.now = at
                try:
                    handed = rung.ask(store, clock, done, a)
                except UserError as exc:  # the ask itself refused: a failure, not a crash
                    result.checks.append(Check("task", "asked", False, s.id, a.id,
                                               str(exc).splitlines()[0][:200]))
                    result.outcomes[(s.id, a.id)] = Outcome.REFUSED
                    continue
                checks, outcome = ask_checks(s, a, handed, answerer(handed, a), done,
                                             retrieves=rung.name != "none")
                why = _inexpressible(rung, s, a)
                result.not_expressible.extend(
                    {"check": c.name, "scenario": s.id, "ask": a.id, "why": why[c.name]}
                    for c in checks if c.name in why)
                result.checks.extend(c for c in checks if c.name not in why)
                if "answer" not in why:
                    result.outcomes[(s.id, a.id)] = outcome
                result.seconds.append(handed.seconds)
                result.tokens.append(handed.tokens)
    return Evaluation(run, backend, list(scenarios), results, embedder.name)


def _inexpressible(rung: Rung, s: sc.Scenario, a: sc.Ask) -> dict[str, str]:
    """A peer's checks it cannot express (Graphiti: a refusal verdict, knowledge time apart
    from ingestion...): by check name, why."""
    says = getattr(rung, "not_expressible", None)
    return says(s, a) if says is not None else {}


def select(scenarios: Sequence[sc.Scenario], families: Sequence[str]) -> list[sc.Scenario]:
    if not families:
        return list(scenarios)
    known = {s.family for s in scenarios}
    unknown = [f for f in families if f not in known]
    if unknown:
        raise InvalidArgument(f"no scenario of the family {unknown[0][:60]!r}; families: "
                              f"{', '.join(sorted(known))}")
    return [s for s in scenarios if s.family in families]
