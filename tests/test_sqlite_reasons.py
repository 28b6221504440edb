"""The SQLite store names why a matched fact is not legal in SQL (``reason_sql``), and that
reason is ``why_excluded``'s for every fact: seeded random facts and reads, their instants drawn
from a few days so that boundaries tie often (``<`` against ``<=`` is where two spellings part).
A fact with a TTL that passes the checks before the valid time is left to ``why_excluded``
(``UNDECIDED``: its valid end is in its body), and a fact is legal by ``to_sql`` exactly when
``reason_sql`` gives no reason."""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, datetime, timedelta

from vintage.graph.core.asof import AsOf
from vintage.graph.core.exclusion import EXPIRED, REASONS, VALID, why_excluded
from vintage.graph.core.kinds import Authority, FactKind, Status
from vintage.graph.core.model import Fact, Scope
from vintage.graph.core.temporal import Interval
from vintage.graph.sqlite import schema
from vintage.graph.sqlite.asof import UNDECIDED, reason_sql, to_sql
from vintage.graph.sqlite.rows import UPSERT_FACT, fact_row

BASE = datetime(2024, 1, 1, tzinfo=UTC)
CASES = 600


def day(rng: random.Random, first: int = 0, last: int = 6) -> datetime:
    return BASE + timedelta(days=rng.randint(first, last))


def maybe(rng: random.Random, p: float = 0.5) -> datetime | None:
    return day(rng) if rng.random() < p else None


def stamps(rng: random.Random) -> tuple[tuple[datetime, ...], ...]:
    n = rng.choice((0, 0, 0, 1, 2))
    starts = [day(rng) for _ in range(n)]
    return (tuple(starts), tuple(s + timedelta(days=rng.randint(1, 3)) for s in starts),
            tuple(day(rng) for _ in range(n)))


def random_fact(rng: random.Random, i: int) -> Fact:
    valid_from = day(rng)
    gaps_from, gaps_to, _ = stamps(rng)
    past_from, past_to, past_at = stamps(rng)
    # A closure is recorded with its instant: both or neither, as every write sets them.
    superseded = maybe(rng, 0.3)
    return Fact.model_construct(
        id=f"f{i}", key=f"k{i}", revision=1, tenant="t", value=1, unit=None, owner=None,
        retention_reason=None, content_hash="h", event_id="e", change=None, sealed=False,
        scope=tuple(sorted(rng.sample(("user=ann", "user=bo", "project=x"),
                                      rng.randint(0, 2)))),
        kind=rng.choice((FactKind.OBSERVATION, FactKind.PREFERENCE, FactKind.DERIVED)),
        status=rng.choice((Status.ACTIVE, Status.ACTIVE, Status.CANDIDATE)),
        subject=rng.choice(("s", "r")), predicate=rng.choice(("p", "q")),
        valid_from=valid_from,
        valid_to=rng.choice((None, valid_from + timedelta(days=rng.randint(0, 3)))),
        available_at=day(rng, 0, 4),
        superseded_at=superseded,
        superseded_recorded_at=None if superseded is None else day(rng),
        recorded_at=day(rng, 0, 4), invalidated_at=maybe(rng, 0.1),
        gaps_from=gaps_from, gaps_to=gaps_to,
        past_superseded_at=past_at, past_superseded_from=past_from,
        past_superseded_to=past_to,
        erased_at=maybe(rng, 0.03), expires_at=maybe(rng, 0.3),
        authority=rng.choice(list(Authority)))


def random_read(rng: random.Random, fact: Fact) -> AsOf:
    """Mostly a read of the fact's own scope, its instants later than most of the fact's, so
    that the later reasons are reached."""
    shared = rng.random() < 0.1
    own = dict(term.split("=", 1) for term in fact.scope if term != "user=bo")
    keys = {} if shared else own if rng.random() < 0.8 else dict(
        rng.sample((("user", "ann"), ("project", "x")), rng.randint(0, 2)))
    start = maybe(rng)
    window = rng.choice((
        Interval(), Interval(start, start) if start else Interval(),
        Interval(start, None if start is None else start + timedelta(days=rng.randint(1, 3)))))
    return AsOf(
        scope=Scope(tenant="t", keys=keys), known_at=day(rng, 2), system_at=day(rng, 3),
        valid=window,
        statuses=frozenset(rng.sample((Status.ACTIVE, Status.CANDIDATE), rng.randint(1, 2))),
        predicates=rng.choice((None, ("p",))), kinds=rng.choice((None, (FactKind.OBSERVATION,))),
        subjects=rng.choice((None, None, ("s",))),
        ids=rng.choice((None, None, (fact.id, "f-other"), ("f-other",))),
        min_authority=rng.choice((None, None, Authority.APPROVED_SUMMARY)),
        shared_only=shared, unexpired_at=maybe(rng, 0.3))


def test_the_reason_in_sql_is_why_excluded_s_for_every_fact_and_legal_is_no_reason() -> None:
    rng = random.Random(39)
    conn = schema.connect(None, 1.0)
    schema.create(conn)
    facts = [random_fact(rng, i) for i in range(CASES)]
    conn.executemany(UPSERT_FACT, [fact_row(f, None) for f in facts])
    seen: Counter[str] = Counter()
    for fact in facts:
        spec = random_read(rng, fact)
        expected = why_excluded(spec)(fact)
        case, params = reason_sql(spec, "f")
        where, _ = to_sql(spec, "f")
        found, legal = conn.execute(f"SELECT {case}, ({where}) FROM facts f WHERE f.id = "
                                    ":the_id", {**params, "the_id": fact.id}).fetchone()
        if found == UNDECIDED:
            assert fact.expires_at is not None
            assert expected is None or REASONS.index(expected) >= REASONS.index(VALID)
        else:
            assert found == expected, (fact, spec)
        assert bool(legal) == (expected is None), (fact, spec)
        seen[found or "legal"] += 1
    # Every reason was reached, but EXPIRED (a fact with a TTL is UNDECIDED there), and
    # visibility and the TTL case: a spelling never reached would be held to nothing.
    assert set(seen) == {*REASONS, "legal", UNDECIDED} - {EXPIRED}, seen
    assert min(seen.values()) >= 5, seen
