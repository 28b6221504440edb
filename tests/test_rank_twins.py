"""The plugin's ranker (``vintage.rank``, Rank.java) and the Cypher a stock server ranks with
(``cypher_search.rank``) are held to each other in the Java build, from one case file.

A seeded corpus (facts with text, vectors, scopes and times a few days apart, so that boundaries
tie) and seeded reads are turned here into exactly what the store sends a server: the writes
(``SCHEMA_STATEMENTS``, ``merge_subjects``, ``create_facts``, ``put_entries``, as ``put_index``
builds its rows), and for each read the ranking round ``vintage.graph.neo4j.search.rank`` sends
with the plugin (``ranker.rank_call``) and without it (``cypher_search.rank``), captured from
that function itself, plus the round by id that ``queries.search.run._rescore`` sends. Beside
them stand what Python alone decides: the legal set's size and the items that are not legal
(``exclusion.why_excluded``). The file is ``tests/golden/rank_cases.json``; ``RankTest.java``
(``make java-check``) writes the corpus into an in-process Neo4j with the plugin, runs both
rounds and compares them. This test holds the file to the builders: a changed query fails here
until the file is written again (``UPDATE_GOLDEN=1``) and the Java build has compared it.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.golden_json import Statements
from vintage.graph.core.asof import AsOf
from vintage.graph.core.exclusion import why_excluded
from vintage.graph.core.kinds import FactKind, Status
from vintage.graph.core.model import Fact, Scope
from vintage.graph.core.temporal import Interval
from vintage.graph.neo4j import cypher, cypher_search, ranker
from vintage.graph.neo4j.cypher import Query
from vintage.graph.neo4j.rows import fact_row
from vintage.graph.neo4j.schema import SCHEMA_STATEMENTS
from vintage.graph.neo4j.search import blind, rank
from vintage.graph.retrieval.index import TextQuery

GOLDEN = Path(__file__).parent / "golden" / "rank_cases.json"
TENANT = "rank-twins"
OTHER = "rank-twins-other"  # same words, same scopes: never matched, counted or scored
BASE = datetime(2024, 1, 1, tzinfo=UTC)
NOW = BASE + timedelta(days=9)
FACTS = 64
CASES = 30
MODEL, OTHER_MODEL = "test-4d", "other-4d"
WORDS = ("refund", "kettle", "order", "ship", "door", "code", "e4031", "e4032")
IDENTIFIERS = tuple(w for w in WORDS if w[-1].isdigit())
# Distinct directions whose cosines with each query vector stand at least 1e-3 apart
# (test_distinct_vectors_never_nearly_tie): two items tie on the semantic leg only when they
# carry one vector, so an order compared within the tolerance is still compared exactly.
VECTORS = ((1.0, 0.0, 0.0, 0.0), (0.6, 0.8, 0.0, 0.0), (0.0, 0.28, 0.96, 0.0),
           (0.36, 0.0, 0.48, 0.8), (-0.5, 0.5, 0.5, 0.5))
QUERIES = (*VECTORS[:3], (0.3, 0.2, 0.1, 0.9))
SCOPES = ((), ("user=ann",), ("user=bo",), ("project=x", "user=ann"))


def _day(rng: random.Random, first: int = 0, last: int = 6) -> datetime:
    return BASE + timedelta(days=rng.randint(first, last))


def _maybe(rng: random.Random, p: float) -> datetime | None:
    return _day(rng) if rng.random() < p else None


def _fact(rng: random.Random, n: int, tenant: str) -> Fact:
    valid_from = _day(rng)
    gap = rng.random() < 0.1
    closure = rng.random() < 0.1
    # A closure's two stamps are written together (cypher.close_knowledge): Cypher's reason
    # for a fact with one alone fails in Neo4j 5.26 (a TypeError from the past closures'
    # range(), evaluated despite the OR before it), a state the store never makes.
    closed = rng.random() < 0.25
    return Fact.model_construct(
        id=f"{tenant}-f{n:02d}", key=f"k{n}", revision=1, tenant=tenant, value=n, unit=None,
        owner=None, retention_reason=None, content_hash=f"h{n}", event_id="e",
        scope=rng.choice(SCOPES),
        kind=rng.choice((FactKind.OBSERVATION, FactKind.OBSERVATION, FactKind.PREFERENCE)),
        status=rng.choice((Status.ACTIVE, Status.ACTIVE, Status.ACTIVE, Status.CANDIDATE)),
        subject=rng.choice(("s1", "s2")), predicate=rng.choice(("p", "q")),
        valid_from=valid_from,
        valid_to=rng.choice((None, None, valid_from + timedelta(days=rng.randint(0, 3)))),
        available_at=_day(rng, 0, 5), superseded_at=_day(rng) if closed else None,
        superseded_recorded_at=_day(rng) if closed else None, recorded_at=_day(rng, 0, 4),
        invalidated_at=_maybe(rng, 0.08),
        gaps_from=(BASE + timedelta(days=3),) if gap else (),
        gaps_to=(BASE + timedelta(days=5),) if gap else (),
        past_superseded_at=(BASE + timedelta(days=2),) if closure else (),
        past_superseded_from=(BASE + timedelta(days=4),) if closure else (),
        past_superseded_to=(BASE + timedelta(days=6),) if closure else (),
        erased_at=_maybe(rng, 0.05), expires_at=_maybe(rng, 0.2), authority=1)


Entry = tuple[tuple[str, ...], tuple[float, ...], str]  # words, vector, model


def _corpus() -> tuple[list[Fact], dict[str, Entry]]:
    """The facts of both tenants, and the entry of each that has one: its words (a word said
    again counts again), vector and model. Every third fact repeats the one before it (the same
    scope, kind, words and vector), so that both legs meet exact ties."""
    rng = random.Random(37_0)
    facts: list[Fact] = []
    entries: dict[str, Entry] = {}
    for tenant, count in ((TENANT, FACTS), (OTHER, 8)):
        for n in range(count):
            fact = _fact(rng, n, tenant)
            words = tuple(rng.sample(WORDS, rng.randint(1, 4))) * rng.randint(1, 2)
            entry: Entry = (words, rng.choice(VECTORS),
                            MODEL if rng.random() < 0.85 else OTHER_MODEL)
            if n % 3 == 2:
                twin = facts[-1]
                fact = fact.model_copy(update={"scope": twin.scope, "kind": twin.kind})
                entry = entries.get(twin.id, entry)
            facts.append(fact)
            if n % 10 != 9:  # a fact without an entry is in no legal set of a search
                entries[fact.id] = entry
    return facts, entries


def _read(rng: random.Random) -> AsOf:
    scope = rng.choice(((), (), *SCOPES))  # tenant-wide most often: larger legal sets
    shared = not scope and rng.random() < 0.25
    start = _day(rng)
    window = rng.choice((Interval(), Interval(), Interval(start, start),
                         Interval(start, start + timedelta(days=rng.randint(1, 3)))))
    return AsOf(
        scope=Scope(tenant=TENANT, keys=dict(term.split("=", 1) for term in scope)),
        known_at=rng.choice((None, _day(rng, 3, 8))), system_at=rng.choice((None, _day(rng, 3))),
        valid=window, statuses=rng.choice((frozenset({Status.ACTIVE}), frozenset(Status))),
        predicates=rng.choice((None, None, None, ("p",))),
        kinds=rng.choice((None, None, None, (FactKind.OBSERVATION,))),
        shared_only=shared, unexpired_at=_maybe(rng, 0.2)).resolved(NOW)


def _sent(spec: AsOf, query: TextQuery) -> tuple[Query, Query]:
    """What ``search.rank`` sends a server with the plugin, then (when the plugin yields no
    row, as a stock server's Cypher path does from the start) what it ranks with in Cypher."""
    sent: list[Query] = []

    def run(q: Query) -> list[dict[str, Any]]:
        sent.append(q)
        return [] if len(sent) == 1 else [{"exact": [], "keyword": [], "semantic": [],
                                           "legal": 0, "matched": 0, "excluded": []}]

    rank(run, None, spec, query, server_ranker=True)
    plugin, fallback = sent
    return plugin, fallback


def _rescore(spec: AsOf, query: TextQuery, leg: str) -> Query:
    """``_rescore``'s round by id for one cut leg; RankTest names the ids and the depth
    (``asof_ids``, ``per_leg``), which only a ranked round tells."""
    narrowed = replace(query, terms=query.terms if leg == "keyword" else (), identifiers=(),
                       per_leg=1, counted=False,
                       vector=query.vector if leg == "semantic" else None)
    _, fallback = _sent(replace(spec, ids=("",)), narrowed)
    return fallback


def _case(rng: random.Random, n: int, facts: list[Fact],
          entries: dict[str, Entry]) -> dict[str, Any]:
    spec = _read(rng)
    words = (list(WORDS) if rng.random() < 0.2 else rng.sample(WORDS, rng.randint(0, 3)))
    vector = rng.choice((None, *QUERIES))
    if not words and vector is None:
        vector = QUERIES[n % len(QUERIES)]
    query = TextQuery(terms=tuple(words), identifiers=tuple(w for w in words if w in IDENTIFIERS),
                      vector=vector, model=MODEL if vector else None,
                      per_leg=rng.randint(1, 6), counted=rng.random() < 0.75)
    plugin, fallback = _sent(spec, query)
    reason = why_excluded(spec)
    held = [f for f in facts if f.id in entries and f.erased_at is None]
    legs = ([("keyword", _rescore(spec, query, "keyword"))] if words else []) + (
        [("semantic", _rescore(spec, query, "semantic"))] if vector else [])
    return {
        "name": f"case {n}: {len(words)} words, {'a' if vector else 'no'} vector, "
                f"{query.per_leg} per leg",
        "plugin": plugin, "cypher": fallback, "rescore": dict(legs),
        # What Python decides alone: the legal set's size (the facts with an entry and no
        # reason), and every fact with an entry that is not legal, of either tenant.
        "legal": sum(1 for f in held if f.tenant == TENANT and reason(f) is None)
        if query.counted else 0,
        "illegal": sorted(f.id for f in held if f.tenant != TENANT or reason(f) is not None),
    }


def _setup(facts: list[Fact], entries: dict[str, Entry]) -> list[Query]:
    """The writes, as the store sends them (after the schema): subjects, facts, then the
    entries (terms blinded with no key store, behind their filter tokens:
    ``SearchTx.put_index``)."""
    writes = []
    for tenant in (TENANT, OTHER):
        mine = [f for f in facts if f.tenant == tenant]
        writes.append(cypher.merge_subjects(tenant, [
            {"id": s, "kind": "company", "name": s, "identifiers": []} for s in ("s1", "s2")]))
        writes.append(cypher.create_facts(tenant, [fact_row(f) for f in mine]))
        words = [w for f in mine if f.id in entries for w in entries[f.id][0]]
        tokens = blind(None, tenant, words, create=True)
        writes.append(cypher_search.put_entries(tenant, [
            {"id": f.id, "model": entries[f.id][2], "vector": list(entries[f.id][1]),
             "terms": " ".join([*cypher_search.entry_filters(tenant, f.scope, f.kind.value),
                                *(tokens[w] for w in entries[f.id][0])])}
            for f in mine if f.id in entries]))
    return writes


def cases() -> str:
    facts, entries = _corpus()
    rng = random.Random(37_1)
    made = [_case(rng, n, facts, entries) for n in range(CASES)]
    statements = Statements()
    ref = statements.ref

    setup = [ref(q) for q in _setup(facts, entries)]
    columns = ref(ranker.build_columns(TENANT))
    for case in made:
        for key in ("plugin", "cypher"):
            case[key] = ref(case[key])
        case["rescore"] = {leg: ref(q) for leg, q in case["rescore"].items()}
    schema = [ref(Query(s, {})) for s in SCHEMA_STATEMENTS]
    body = {"tenant": TENANT, "schema": schema, "setup": setup, "columns": columns,
            "entries": sum(1 for f in facts if f.tenant == TENANT and f.id in entries
                           and f.erased_at is None),
            "cases": made, "texts": statements.texts}
    return json.dumps(body, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def test_the_case_file_is_what_the_builders_send_today() -> None:
    text = cases()
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(text, encoding="utf-8")
    assert GOLDEN.exists(), "no rank_cases.json; run with UPDATE_GOLDEN=1"
    assert GOLDEN.read_text(encoding="utf-8") == text, \
        "the ranking Cypher changed: UPDATE_GOLDEN=1, then make java-check"


def test_distinct_vectors_never_nearly_tie() -> None:
    def cosine(a: tuple[float, ...], b: tuple[float, ...]) -> float:
        return sum(x * y for x, y in zip(a, b, strict=True)) / math.hypot(*a) / math.hypot(*b)

    for q in QUERIES:
        scores = sorted(cosine(q, v) for v in VECTORS)
        assert min(b - a for a, b in itertools.pairwise(scores)) > 1e-3, q


def test_the_cases_reach_every_part_of_a_ranking() -> None:
    """A file that never met a tie, an illegal item or a leg would hold the two paths to
    nothing there (RankTest.java checks what the rounds returned)."""
    body = json.loads(cases())
    made = body["cases"]
    texts = body["texts"]
    assert body["entries"] > FACTS // 2
    assert any("$identified" in texts[c["cypher"]["text"]] for c in made), "an exact leg"
    assert any("$vector" in texts[c["cypher"]["text"]] for c in made), "a semantic leg"
    assert any("$text" in texts[c["cypher"]["text"]] and "$vector" in texts[c["cypher"]["text"]]
               for c in made), "all legs at once"
    assert any(not c["plugin"]["params"]["request"]["counted"] for c in made), "a deeper round"
    assert min(len(c["illegal"]) for c in made) > 0
    assert len({c["legal"] for c in made}) > 5, "legal sets of many sizes"
