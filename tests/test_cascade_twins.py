"""The plugin's cascade (``vintage.cascade_close``, Cascade.java) decides what the Python cascade
decides on the embedded store, held to each other in the Java build from one case file.

Seeded random derivation graphs (chains several derivations deep, diamonds and shortcuts, one
input shared by many derivations, derivations that generate two facts, derivations recorded
after some cascades' instant, facts already closed or invalidated, a source retracted with the
facts it alone supported invalidated) are laid down by one function through the store's write
primitives, twice: on the embedded store, and on a Neo4j transaction whose runner only records
the statements (so the file holds exactly what ``Neo4jStore`` sends). Another tenant holds
another graph over the same ids; a third a chain deeper than ``MAX_DEPTH`` and a fan wider than
a record of the procedure; a fourth a cycle. Per seeded change (ids and their ends, an axis, an
instant) the embedded store decides (``cascade.plan``, its subgraph from ``by_walk``): which
facts, in order, at which depth, by which path, ending when; and ``cascade.close`` writes the
closes, rolled back after they are read. The file is ``tests/golden/cascade_cases.json``, with
the call ``Neo4jTx.close_cascade`` sends (``procedures.cascade_call``, and the read-only twin);
``CascadeTest.java`` (``make java-check``) lays the graph in an in-process Neo4j with the
plugin, calls both and compares. A changed decision or statement fails here until the file is
written again (``UPDATE_GOLDEN=1``) and the Java build has compared it.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from tests.factories import PinnedClock
from tests.golden_json import Statements
from vintage.graph.core.kinds import FactKind, SourceKind, Status
from vintage.graph.core.model import DerivationIn, Fact, Source, Subject
from vintage.graph.derivations.derived import CycleError
from vintage.graph.embedded.store import EmbeddedStore
from vintage.graph.neo4j.cypher import Query
from vintage.graph.neo4j.params import micros
from vintage.graph.neo4j.procedures import cascade_call
from vintage.graph.neo4j.schema import SCHEMA_STATEMENTS
from vintage.graph.neo4j.tx import Neo4jTx
from vintage.graph.store.protocol import (
    Closure,
    DerivationWrite,
    Invalidation,
    StoreTx,
    Support,
)
from vintage.graph.writes.cascade import CYCLE, Axis, close, plan
from vintage.graph.writes.reach import MAX_DEPTH

GOLDEN = Path(__file__).parent / "golden" / "cascade_cases.json"
TENANT, OTHER, DEEP, LOOP = "cascade-twins", "cascade-twins-other", "cascade-twins-deep", \
    "cascade-twins-cycle"
BASE = datetime(2024, 1, 1, tzinfo=UTC)
RETRACTED = BASE + timedelta(days=4)  # the restated source's retraction
BASES, DERIVED = 6, 40
CHUNK = 256  # Cascade.java's facts per record: the fan passes it
CASES = 36


def _day(days: float) -> datetime:
    return BASE + timedelta(days=days)


@dataclass
class Graph:
    """What one tenant's writes lay down, in the order the store's primitives take them."""

    tenant: str
    facts: list[Fact] = field(default_factory=list)
    supports: list[Support] = field(default_factory=list)
    derivations: list[DerivationWrite] = field(default_factory=list)
    closures: list[Closure] = field(default_factory=list)
    invalid: list[Invalidation] = field(default_factory=list)
    retract: str | None = None  # a source whose support goes at RETRACTED

    def fact(self, n: int, value: Any = None) -> str:
        fid = f"f{n:03d}"
        self.facts.append(Fact.model_construct(
            id=fid, key=f"k{n}", revision=1, tenant=self.tenant, value=n if value is None
            else value, unit=("USD", None)[n % 2], owner=None, retention_reason=None,
            content_hash=f"h{n}", event_id="e", scope=(), kind=FactKind.OBSERVATION,
            status=Status.ACTIVE, subject=f"s{n % 3}", predicate=f"p{n}", valid_from=BASE,
            valid_to=None, available_at=BASE, superseded_at=None, superseded_recorded_at=None,
            recorded_at=BASE, invalidated_at=None, authority=1))
        return fid

    def derive(self, inputs: list[str], outputs: list[str], recorded: datetime) -> None:
        n = len(self.derivations)
        self.derivations.append(DerivationWrite(
            DerivationIn(id=f"d{n:03d}", recipe="sum", version="1"),
            tuple((fid, f"r{k}") for k, fid in enumerate(dict.fromkeys(inputs))),
            tuple(outputs), recorded))


def _random(tenant: str, rng: random.Random) -> Graph:
    """Bases, then derived facts each from the few just before it (depth grows), two in five
    with more justifications from anywhere earlier (diamonds, shortcuts, shared inputs)."""
    g = Graph(tenant)
    ids = [g.fact(n) for n in range(BASES)]
    g.supports = [Support(fid, source, BASE, BASE) for k, fid in enumerate(ids)
                  for source in (["restated"] if k < 2 else ["restated", "kept"] if k < 4
                                 else ["kept"])]
    g.retract = "restated"
    g.invalid = [Invalidation(fid, RETRACTED) for fid in ids[:2]]  # its orphans, as unsupported
    for i in range(DERIVED):
        fid = g.fact(BASES + i, value=(BASES + i) / 4 if i % 3 else f"v{i}")
        justs = [sorted(set(rng.sample(ids[-3:], rng.randint(1, 2))))]
        justs += [sorted(set(rng.sample(ids, rng.randint(1, 3))))
                  for _ in range(rng.choice((0, 0, 0, 1, 2)))]
        for inputs in justs:
            twin = [g.fact(500 + i)] if rng.random() < 0.05 else []  # a second output
            g.derive(inputs, [fid, *twin], _day(rng.choice((0, 1, 2, 3, 6, 8))))
            ids += twin
        ids.append(fid)
    for fid in rng.sample(ids[BASES:], 8):  # closed already, on one axis or the other
        g.closures.append(Closure(fid, _day(rng.randint(1, 5)), _day(rng.randint(1, 5))))
    for fid in rng.sample(ids[BASES:], 5):
        g.invalid.append(Invalidation(fid, _day(rng.randint(1, 5))))
    return g


def _deep() -> Graph:
    """A chain past MAX_DEPTH from f000, and f001 used by more derivations than a record holds."""
    g = Graph(DEEP)
    chain = [g.fact(0), g.fact(1)]
    for n in range(MAX_DEPTH + 3):
        chain.append(g.fact(2 + n))
        g.derive([chain[-2] if n else chain[0]], [chain[-1]], BASE)
    for n in range(CHUNK + 20):
        g.derive(["f001"], [g.fact(1000 + n)], BASE)
    return g


def _cycle() -> Graph:
    g = Graph(LOOP)
    a, b, c = g.fact(0), g.fact(1), g.fact(2)
    g.derive([a], [b], BASE)
    g.derive([b], [c], BASE)
    g.derive([c], [b], BASE)
    return g


def _graphs() -> list[Graph]:
    rng = random.Random(37_2)
    return [_random(TENANT, rng), _random(OTHER, rng), _deep(), _cycle()]


def lay(tx: StoreTx, g: Graph) -> None:
    tx.put_subjects([Subject(id=f"s{k}", name=f"s{k}") for k in range(3)])
    tx.put_sources([Source(id=s, kind=SourceKind.FILING, available_at=BASE, recorded_at=BASE)
                    for s in sorted({s.source_id for s in g.supports})])
    tx.create_facts(g.facts)
    tx.add_support(g.supports)
    tx.put_derivations(*g.derivations)
    tx.close_knowledge(g.closures)
    if g.retract is not None:
        tx.retract_support(g.retract, RETRACTED)
    tx.invalidate_facts(g.invalid)


class _Recorder:
    """A runner that keeps each statement and answers none: what the Neo4j store sends."""

    def __init__(self) -> None:
        self.sent: list[Query] = []

    def run(self, text: str, params: dict[str, Any]) -> list[Any]:
        self.sent.append(Query(text, params))
        return []


def _change(rng: random.Random, g: Graph) -> tuple[dict[str, datetime | None], Axis, datetime]:
    """Mostly bases; now and then a derived fact too (a start is never decided itself)."""
    ids = [f.id for f in g.facts]
    starts = rng.sample(ids[:BASES], rng.randint(1, 3)) + (
        rng.sample(ids[BASES:], 1) if rng.random() < 0.3 else [])
    ends = {fid: None if rng.random() < 0.1 else _day(rng.randint(1, 6)) for fid in starts}
    return ends, rng.choice(tuple(Axis)), _day(rng.choice((3, 5, 7, 9)))


def _micros(value: datetime | None) -> int | None:
    return None if value is None else micros(value)


class _Rollback(Exception):
    def __init__(self, ends: dict[str, list[int | None]]) -> None:
        self.ends = ends


def _decide(store: EmbeddedStore, tenant: str, changed: dict[str, datetime | None], axis: Axis,
            at: datetime) -> dict[str, Any]:
    """Python's decisions, and the ends ``close`` writes (each fact whose stamps it moved:
    superseded_at, superseded_recorded_at, invalidated_at), rolled back."""
    ends: Any = changed  # an open end (None) is a change too, as close_cascade takes it
    try:
        affected = store.reading(tenant, lambda tx: plan(tx, ends, axis, at).affected)
    except CycleError as exc:  # what the procedure must say: CYCLE, or this test's file fails
        return {"refused": CYCLE if CYCLE in str(exc) else str(exc)}

    def work(tx: StoreTx) -> None:
        def stamps() -> dict[str, list[int | None]]:
            facts = store.state.facts[tenant]
            return {f.id: [_micros(f.superseded_at), _micros(f.superseded_recorded_at),
                           _micros(f.invalidated_at)] for f in facts.values()}
        before = stamps()
        close(tx, ends, axis, at)
        raise _Rollback({k: v for k, v in stamps().items() if before[k] != v})

    try:
        store.write(tenant, work)
    except _Rollback as rolled:
        closes = rolled.ends
    return {"decided": [{
        "id": a.fact.id, "subject": a.fact.subject, "predicate": a.fact.predicate,
        "value": a.fact.value, "unit": a.fact.unit, "depth": a.depth, "path": list(a.path),
        "end": _micros(a.ends_at)} for a in affected], "closes": closes}


def cases() -> str:
    graphs = _graphs()
    store = EmbeddedStore.open(None, PinnedClock(_day(10)))
    recorder = _Recorder()
    for g in graphs:
        store.write(g.tenant, partial(lay, g=g))
        lay(Neo4jTx(recorder, g.tenant), g)  # type: ignore[arg-type]
    by = {g.tenant: g for g in graphs}
    rng = random.Random(37_3)
    asked: list[tuple[str, dict[str, datetime | None], Axis, datetime]] = [
        (TENANT, {"f000": RETRACTED, "f001": RETRACTED}, Axis.SYSTEM, RETRACTED),
        (DEEP, {"f000": _day(2)}, Axis.KNOWLEDGE, _day(3)),
        (DEEP, {"f001": _day(2), "f000": None}, Axis.SYSTEM, _day(3)),
        (LOOP, {"f000": _day(2)}, Axis.KNOWLEDGE, _day(3))]
    asked += [(t, *_change(rng, by[t])) for t in (TENANT, OTHER)
              for _ in range(CASES // (3 if t == OTHER else 1) // 2)]
    statements = Statements()
    ref = statements.ref

    made = [{"name": f"case {n}: {tenant}, {len(changed)} changed, {axis.value} at "
                     f"{at.date().isoformat()}", "tenant": tenant,
             "call": ref(cascade_call(tenant, changed, axis.value, at, close=True)),
             "read": ref(cascade_call(tenant, changed, axis.value, at)),
             **_decide(store, tenant, changed, axis, at)}
            for n, (tenant, changed, axis, at) in enumerate(asked)]
    body = {"schema": [ref(Query(s, {})) for s in SCHEMA_STATEMENTS],
            "setup": [ref(q) for q in recorder.sent], "cases": made, "texts": statements.texts,
            "chunk": CHUNK}
    return _lines(body)


def _lines(body: dict[str, Any]) -> str:
    """JSON with each statement, text and case on a line of its own: a changed decision
    shows as the one case it changed."""
    def one(value: Any) -> str:
        return json.dumps(value, sort_keys=True, ensure_ascii=False)

    parts = [f"{one(k)}: [\n" + ",\n".join(map(one, v)) + "\n]" if isinstance(v, list)
             else f"{one(k)}: {one(v)}" for k, v in sorted(body.items())]
    return "{\n" + ",\n".join(parts) + "\n}\n"


def test_the_case_file_is_what_the_cascade_decides_and_the_builders_send_today() -> None:
    text = cases()
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(text, encoding="utf-8")
    assert GOLDEN.exists(), "no cascade_cases.json; run with UPDATE_GOLDEN=1"
    assert GOLDEN.read_text(encoding="utf-8") == text, \
        "the cascade's decisions or its statements changed: UPDATE_GOLDEN=1, then make java-check"


def _all(made: list[dict[str, Any]], test: Callable[[dict[str, Any]], bool]) -> int:
    return sum(1 for c in made for row in c.get("decided", []) if test(row))


def test_the_cases_reach_every_part_of_a_cascade() -> None:
    """A file that never met a limit, a survivor or a closed fact would hold the two spellings
    to nothing there (CascadeTest.java checks what the procedure returned)."""
    made = json.loads(cases())["cases"]
    decided = [c for c in made if "decided" in c]
    assert [c["tenant"] for c in made if "refused" in c] == [LOOP]
    assert max(len(c["decided"]) for c in decided) > CHUNK, "more than one record"
    assert max(r["depth"] for c in decided for r in c["decided"]) == MAX_DEPTH
    assert _all(decided, lambda r: r["depth"] >= 4 and r["id"] < "f100") > 10, "deep, at random"
    assert _all(decided, lambda r: r["end"] is None) > 50, "held by another justification"
    assert _all(decided, lambda r: r["end"] is not None) > 50, "ended"
    assert _all(decided, lambda r: len(r["path"]) - 1 > r["depth"]) == 0
    assert any(len(c["closes"]) < len(c["decided"]) for c in decided)
    graph = _graphs()[0]
    closed = {r.fact_id for r in graph.closures}
    reached = {r["id"] for c in decided if c["tenant"] == TENANT for r in c["decided"]}
    on_knowledge = {r["id"] for c in decided if c["tenant"] == TENANT
                    and c["read"]["params"]["axis"] == "knowledge" for r in c["decided"]}
    assert closed & reached and not closed & on_knowledge, "closed already: never decided again"
    starts = {k for c in decided for k in c["call"]["params"]["changed"]}
    assert any(s > f"f{BASES:03d}" for s in starts), "a derived fact among the changed"
    theirs = {r["id"] for c in decided if c["tenant"] == OTHER for r in c["decided"]}
    assert len(theirs & reached) > 10, "the other tenant's graph has the same ids"
