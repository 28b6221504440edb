"""The plugin's legal test (``Legal.java``) and the Python one (``exclusion.why_excluded``) give
every fact the same first reason.

Seeded random facts and reads, their instants drawn from a few days so that boundaries tie
often (``<`` against ``<=`` is where two spellings part), go through ``why_excluded``; the
request the Python side sends the plugin (``ranker._legal``), the fact's columns as the plugin
reads them and the reason are written to ``tests/golden/legal_reasons.tsv``. This test holds the
file to ``why_excluded``; ``LegalTest.java`` (``make java-check``) holds ``Legal.java`` to the
same file. Regenerate after an intended change with ``UPDATE_GOLDEN=1``.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from vintage.graph.core.asof import AsOf
from vintage.graph.core.exclusion import REASONS, why_excluded
from vintage.graph.core.kinds import FactKind, Status
from vintage.graph.core.model import Fact, Scope
from vintage.graph.core.temporal import Interval
from vintage.graph.neo4j.params import micros
from vintage.graph.neo4j.ranker import _legal

GOLDEN = Path(__file__).parent / "golden" / "legal_reasons.tsv"
CASES = 600
BASE = datetime(2024, 1, 1, tzinfo=UTC)
REQUEST = ("scope", "shared_only", "known", "system", "statuses", "unexpired", "valid_at",
           "valid_start", "valid_end", "kinds", "predicates", "ids")
ENTRY = ("id", "fact_scope", "available", "superseded_at", "superseded_recorded_at", "past_at",
         "past_from", "past_to", "recorded", "invalidated", "gaps_from", "gaps_to", "status",
         "erased", "valid_from", "valid_to", "expires", "kind", "predicate")
NULL = "~"  # an absent value; an empty list is an empty cell


def _day(rng: random.Random, first: int = 0, last: int = 6) -> datetime:
    return BASE + timedelta(days=rng.randint(first, last))


def _maybe(rng: random.Random, p: float = 0.5) -> datetime | None:
    return _day(rng) if rng.random() < p else None


def _stamps(rng: random.Random) -> tuple[tuple[datetime, ...], ...]:
    """Parallel lists (at/from/to or from/to): empty for most facts, as in the store."""
    n = rng.choice((0, 0, 0, 1, 2))
    starts = [_day(rng) for _ in range(n)]
    return (tuple(starts), tuple(s + timedelta(days=rng.randint(1, 3)) for s in starts),
            tuple(_day(rng) for _ in range(n)))


def _fact(rng: random.Random, i: int) -> Fact:
    recorded = _day(rng, 0, 4)
    valid_from = _day(rng)
    gaps_from, gaps_to, _ = _stamps(rng)
    past_from, past_to, past_at = _stamps(rng)
    return Fact.model_construct(
        id=f"f{i}", key="k", revision=1, tenant="t", value=1, unit=None, owner=None,
        retention_reason=None, content_hash="h", event_id="e",
        scope=tuple(rng.sample(("user=ann", "user=bo", "project=x"), rng.randint(0, 2))),
        kind=rng.choice((FactKind.OBSERVATION, FactKind.PREFERENCE, FactKind.DERIVED)),
        status=rng.choice((Status.ACTIVE, Status.ACTIVE, Status.CANDIDATE)),
        subject="s", predicate=rng.choice(("p", "q")),
        valid_from=valid_from,
        valid_to=rng.choice((None, valid_from + timedelta(days=rng.randint(0, 3)))),
        available_at=_day(rng, 0, 4),
        superseded_at=_maybe(rng, 0.2), superseded_recorded_at=_maybe(rng, 0.3),
        recorded_at=recorded, invalidated_at=_maybe(rng, 0.1),
        gaps_from=gaps_from, gaps_to=gaps_to,
        past_superseded_at=past_at, past_superseded_from=past_from,
        past_superseded_to=past_to,
        erased_at=_maybe(rng, 0.03), expires_at=_maybe(rng, 0.3), authority=1)


def _read(rng: random.Random, fact: Fact) -> AsOf:
    """A read of the fact's own scope most of the time (a scope test fails most random pairs),
    its instants later than most of the fact's (so that the later reasons are reached)."""
    shared = rng.random() < 0.1
    own = dict(term.split("=", 1) for term in fact.scope if term != "user=bo")
    keys = {} if shared else own if rng.random() < 0.8 else dict(
        rng.sample((("user", "ann"), ("project", "x")), rng.randint(0, 2)))
    start = _maybe(rng)
    window = rng.choice((
        Interval(), Interval(start, start) if start else Interval(),
        Interval(start, None if start is None else start + timedelta(days=rng.randint(1, 3)))))
    return AsOf(
        scope=Scope(tenant="t", keys=keys), known_at=_day(rng, 2), system_at=_day(rng, 3),
        valid=window,
        statuses=frozenset(rng.sample((Status.ACTIVE, Status.CANDIDATE), rng.randint(1, 2))),
        predicates=rng.choice((None, ("p",))), kinds=rng.choice((None, (FactKind.OBSERVATION,))),
        ids=rng.choice((None, None, (fact.id, "f-other"), ("f-other",))),
        shared_only=shared, unexpired_at=_maybe(rng, 0.3))


def _cell(value: Any) -> str:
    if value is None:
        return NULL
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, datetime):
        return str(micros(value))
    if isinstance(value, list | tuple | frozenset):
        return ",".join(_cell(v) for v in value)
    return str(value)


def _row(spec: AsOf, fact: Fact) -> list[str]:
    request = _legal(spec)
    entry = {
        "id": fact.id, "fact_scope": fact.scope, "available": fact.available_at,
        "superseded_at": fact.superseded_at, "superseded_recorded_at": fact.superseded_recorded_at,
        "past_at": fact.past_superseded_at, "past_from": fact.past_superseded_from,
        "past_to": fact.past_superseded_to, "recorded": fact.recorded_at,
        "invalidated": fact.invalidated_at, "gaps_from": fact.gaps_from, "gaps_to": fact.gaps_to,
        "status": fact.status.value, "erased": fact.erased_at is not None,
        "valid_from": fact.valid_from, "valid_to": fact.valid_to, "expires": fact.expires_at,
        "kind": fact.kind.value, "predicate": fact.predicate}
    return ([_cell(request[k]) for k in REQUEST] + [_cell(entry[k]) for k in ENTRY]
            + [why_excluded(spec)(fact) or ""])


def cases() -> str:
    rng = random.Random(40_37)
    facts = [_fact(rng, i) for i in range(CASES)]
    rows = [_row(_read(rng, f), f) for f in facts]
    return "\n".join("\t".join(r) for r in [[*REQUEST, *ENTRY, "reason"], *rows]) + "\n"


def test_the_shared_cases_are_what_why_excluded_says_today() -> None:
    text = cases()
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(text, encoding="utf-8")
    assert GOLDEN.exists(), "no legal_reasons.tsv; run with UPDATE_GOLDEN=1"
    assert GOLDEN.read_text(encoding="utf-8") == text


def test_the_cases_reach_every_reason_the_plugin_knows_and_visibility() -> None:
    """A file that never reached a reason would hold the two spellings to nothing there."""
    reasons = Counter(line.rsplit("\t", 1)[1] for line in cases().splitlines()[1:])
    plugin_knows = set(REASONS) - {"another subject", "below the required authority"}
    assert plugin_knows | {""} <= set(reasons), plugin_knows - set(reasons)
    assert min(reasons.values()) >= 5, reasons
