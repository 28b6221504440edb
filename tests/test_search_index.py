"""The search index beside the facts and ranking inside the legal set (issue 13), on both
backends, through the seam only (``vintage.graph.retrieval.index``): ``put_index`` and ``unindexed``
in a transaction, ``rank`` on the store.

The terms and vectors are chosen by hand (4-dimensional unit vectors, one model name): these
tests check the store's ranking primitive, not an embedder or the tokeniser, which are tested
on their own. What they pin down: the legal set is the whole as-of predicate, computed before
any score; each leg ranks exactly inside it (an illegal item never comes back, and never pushes
a legal one out of the top); each leg's best, best first, ties by id; the hard-filter counts of
what the query matched; entries erased with their facts. On Neo4j each test runs on both
ranking paths (tests/rank_paths.py): Cypher, and the launcher's columns."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from datetime import timedelta
from typing import Any

import pytest

from tests.factories import ACTOR, RANK_PATHS, batch, fact, source
from vintage.graph.core.asof import AsOf
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.exclusion import (
    EXPIRED,
    NOT_PUBLIC,
    SCOPE,
    STATUS,
    SUBJECT,
    SUPERSEDED,
)
from vintage.graph.core.kinds import Status
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import as_of, parse_instant
from vintage.graph.memory.primitives import memory_tx
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.retrieval.index import Hits, IndexEntry, SearchStore, TextQuery, index_tx
from vintage.graph.store.protocol import Erasure, Store
from vintage.graph.writes.semantics import record

MODEL = "test-4d"  # the name the hand-made vectors go under
FILED = "2018-04-24"


# conftest's store, on the three ranking paths rather than the two backends.
pytestmark = pytest.mark.parametrize("store", RANK_PATHS, indirect=True)


def unit(*xs: float) -> tuple[float, ...]:
    norm = math.sqrt(sum(x * x for x in xs))
    return tuple(x / norm for x in xs)


X, Y, Z = unit(1, 0, 0, 0), unit(0, 1, 0, 0), unit(0, 0, 1, 0)


def entry(fact_id: str, terms: str, vector: tuple[float, ...] = X,
          model: str = MODEL) -> IndexEntry:
    return IndexEntry(fact_id, tuple(terms.split()), vector, model)


def put(store: Store, tenant: str, *entries: IndexEntry) -> None:
    store.write(tenant, lambda tx: index_tx(tx).put_index(list(entries)))


def unindexed(store: Store, tenant: str, model: str = MODEL, limit: int = 100) -> list[str]:
    return [f.id for f in store.reading(tenant, lambda tx: index_tx(tx).unindexed(model, limit))]


def search(store: Store, spec: AsOf, terms: str, *, identifiers: str = "",
           vector: tuple[float, ...] | None = X, model: str = MODEL, per_leg: int = 5) -> Hits:
    assert isinstance(store, SearchStore)
    return store.rank(spec, TextQuery(tuple(terms.split()), tuple(identifiers.split()), vector,
                                      model, per_leg))


def ids(leg: Sequence[tuple[str, float]]) -> list[str]:
    return [i for i, _ in leg]


def facts(store: Store, scope: Scope, *predicates: str, available: str = FILED,
          **extra: Any) -> list[str]:
    """One fact per predicate (distinct assertions), filed at ``available``; their ids."""
    src = source(f"src-{available}", available)
    report = record(store, scope, batch(*(fact(n, src.id, predicate=p, **extra)
                                          for n, p in enumerate(predicates)), sources=(src,)),
                    actor=ACTOR)
    return report.created


def test_the_current_version_is_found_at_k1_by_every_leg_beside_500_superseded_near_twins(
    store: Store, scope: Scope,
) -> None:
    day0 = parse_instant(FILED)
    days = [(day0 + timedelta(days=i)).date().isoformat() for i in range(501)]
    sources = tuple(source(f"s{i:03d}", d) for i, d in enumerate(days))
    versions = record(store, scope, batch(*(fact(1000 + i, f"s{i:03d}") for i in range(501)),
                                          sources=sources), actor=ACTOR).created
    (other,) = facts(store, scope, "Revenues")
    assert len(versions) == 501
    current = versions[-1]
    # Every superseded version outscores the current one on each leg: more of the query's
    # terms, a shorter document, a vector nearer the query's; the exact leg ties them all, and
    # most superseded ids sort first. A global top-1 filtered afterwards finds nothing legal.
    twins = "alphabet oper incom oper incom us-gaap:operatingincomeloss"
    put(store, scope.tenant,
        *(entry(v, twins, unit(1, 0.001 * i, 0, 0)) for i, v in enumerate(versions[:-1])),
        entry(current, "alphabet oper incom us-gaap:operatingincomeloss restat first quarter "
                       "2018 figur", unit(1, 0.3, 0, 0)),
        entry(other, "alphabet revenu", Y))
    query = "alphabet oper incom us-gaap:operatingincomeloss"

    hits = search(store, AsOf(scope), query, identifiers="us-gaap:operatingincomeloss",
                  per_leg=1)

    assert (ids(hits.keyword), ids(hits.exact), ids(hits.semantic)) == ([current],) * 3
    assert (hits.legal, hits.matched) == (2, 502)
    assert hits.excluded == {SUPERSEDED: 500}
    # At a cutoff in the middle, the version public then, and not the restated one.
    then = AsOf(scope, known_at=day0 + timedelta(days=250, hours=12))
    hits = search(store, then, query, identifiers="us-gaap:operatingincomeloss", per_leg=1)
    assert (ids(hits.keyword), ids(hits.exact), ids(hits.semantic)) == ([versions[250]],) * 3
    assert hits.excluded == {SUPERSEDED: 250, NOT_PUBLIC: 250}


def test_another_users_better_match_is_neither_returned_nor_counted(
    store: Store, tenant: str,
) -> None:
    mine, theirs = (Scope(tenant=tenant, keys={"user": u}) for u in ("42", "43"))
    (my_id,) = facts(store, mine, "shipping.preference")
    (their_id,) = facts(store, theirs, "shipping.preference")
    (their_only,) = facts(store, theirs, "gift.wrap", available="2018-03-01")
    put(store, tenant, entry(my_id, "ship offic e4031 weekday", unit(1, 1, 0, 0)),
        entry(their_id, "ship offic ship offic e4031 e4032", X),
        entry(their_only, "gift wrap e4099", X))

    hits = search(store, AsOf(mine), "ship offic e4031 e4032", identifiers="e4031 e4032",
                  per_leg=1)

    assert (ids(hits.keyword), ids(hits.exact), ids(hits.semantic)) == ([my_id],) * 3
    # The scope is a boundary: what another user holds is not even counted, or a count would
    # tell this user that someone else's memories hold their words.
    assert (hits.legal, hits.matched, hits.excluded) == (1, 1, {})
    nothing = search(store, AsOf(mine), "gift wrap e4099", identifiers="e4099")
    assert (nothing.keyword, nothing.exact, nothing.matched, nothing.excluded) == ((), (), 0, {})
    # A filter inside the scope is still explained, and the scope's own reason never appears.
    early = search(store, AsOf(mine, known_at=parse_instant("2018-04-01")), "ship e4031")
    assert (early.legal, early.matched, early.excluded) == (0, 1, {NOT_PUBLIC: 1})
    assert SCOPE not in early.excluded
    # Theirs does score better: a tenant-wide read (an admin's explicit choice) ranks it first.
    wide = search(store, AsOf(Scope(tenant=tenant)), "ship offic e4031 e4032",
                  identifiers="e4031 e4032", per_leg=1)
    assert (ids(wide.keyword), ids(wide.exact), ids(wide.semantic)) == ([their_id],) * 3


def test_a_fact_not_yet_public_at_the_cutoff_is_excluded_and_counted(
    store: Store, scope: Scope,
) -> None:
    (fid,) = facts(store, scope, "OperatingIncomeLoss", available=FILED)
    put(store, scope.tenant, entry(fid, "oper incom"))
    before = search(store, AsOf(scope, known_at=parse_instant("2018-04-01")), "oper")
    assert (before.keyword, before.exact, before.semantic) == ((), (), ())
    assert (before.legal, before.matched, before.excluded) == (0, 1, {NOT_PUBLIC: 1})
    after = search(store, AsOf(scope, known_at=parse_instant("2018-05-01")), "oper")
    assert ids(after.keyword) == ids(after.semantic) == [fid]


def test_a_read_of_one_subject_counts_the_others_matches_as_another_subject_and_its_own_by_time(
    store: Store, tenant: str,
) -> None:
    mine, theirs = (Scope(tenant=tenant, keys={"user": u}) for u in ("42", "43"))
    early, late = source("src-early", FILED), source("src-late", "2019-02-01")

    def written(scope: Scope, *rows: tuple[str, str]) -> list[str]:
        made = [fact(n, src, subject=who) for n, (who, src) in enumerate(rows)]
        return record(store, scope, batch(*made, sources=(early, late),
                                          subjects=("GOOGL", "MSFT")), actor=ACTOR).created

    own, own_late, other, other_late = written(
        mine, ("GOOGL", early.id), ("GOOGL", late.id), ("MSFT", early.id), ("MSFT", late.id))
    (beyond,) = written(theirs, ("MSFT", early.id))
    put(store, tenant, *(entry(i, "oper incom") for i in (own, own_late, other, other_late,
                                                          beyond)))

    hits = search(store, AsOf(mine, known_at=parse_instant("2018-05-01"), subjects=("GOOGL",)),
                  "oper incom")

    assert ids(hits.keyword) == ids(hits.semantic) == [own]
    # The other company's two facts are another subject, the later one too (the request's
    # filters come before the instants); this company's later one is not yet public; another
    # user's fact is beyond the scope, so not counted at all.
    assert (hits.legal, hits.matched, hits.excluded) == (
        1, 4, {SUBJECT: 2, NOT_PUBLIC: 1})
    assert list(hits.excluded) == [SUBJECT, NOT_PUBLIC]  # in the order of the reasons


def test_an_expired_fact_is_excluded_and_counted(store: Store, scope: Scope) -> None:
    period = ("2026-05-01", None)
    (fid,) = facts(store, scope, "door.code", period=period,
                   expires_at=parse_instant("2026-05-15"))
    put(store, scope.tenant, entry(fid, "door code"))
    late = search(store, AsOf(scope, valid=as_of(parse_instant("2026-05-20"))), "door")
    assert (late.keyword, late.semantic, late.excluded) == ((), (), {EXPIRED: 1})
    early = search(store, AsOf(scope, valid=as_of(parse_instant("2026-05-10"))), "door")
    assert ids(early.keyword) == [fid]


def test_a_candidate_is_excluded_unless_candidates_are_admitted(
    store: Store, scope: Scope,
) -> None:
    (fid,) = facts(store, scope, "refund.policy", status=Status.CANDIDATE)
    put(store, scope.tenant, entry(fid, "refund polici"))
    plain = search(store, AsOf(scope), "refund")
    assert (plain.keyword, plain.semantic, plain.excluded) == ((), (), {STATUS: 1})
    asked = search(store, AsOf(scope, statuses=frozenset({Status.ACTIVE, Status.CANDIDATE})),
                   "refund")
    assert ids(asked.keyword) == ids(asked.semantic) == [fid]


def test_an_erased_facts_entry_is_gone_and_never_comes_back(store: Store, scope: Scope) -> None:
    gone, kept = facts(store, scope, "a.secret", "b.kept")
    put(store, scope.tenant, entry(gone, "secret plan e4031"), entry(kept, "kept plan", Y))
    store.write(scope.tenant, lambda tx: memory_tx(tx).erase_facts([Erasure(gone, store.now())]))
    put(store, scope.tenant, entry(gone, "secret plan e4031"))  # too late: skipped

    everything = AsOf(scope, statuses=frozenset(Status))
    hits = search(store, everything, "secret plan e4031", identifiers="e4031")
    assert (ids(hits.keyword), ids(hits.exact), ids(hits.semantic)) == ([kept], [], [kept])
    assert (hits.legal, hits.matched, hits.excluded) == (1, 1, {})  # no entry left to match
    assert unindexed(store, scope.tenant) == []
    assert unindexed(store, scope.tenant, "another-model") == [kept]


def test_the_semantic_leg_ignores_vectors_of_another_model(store: Store, scope: Scope) -> None:
    theirs, ours = facts(store, scope, "a.pref", "b.pref")
    put(store, scope.tenant, entry(theirs, "tea", X, model="another-model"),
        entry(ours, "tea", unit(1, 2, 0, 0)))
    hits = search(store, AsOf(scope), "tea", vector=X)
    assert ids(hits.semantic) == [ours]
    assert sorted(ids(hits.keyword)) == sorted([theirs, ours])  # terms know no model
    assert unindexed(store, scope.tenant) == [theirs]
    assert unindexed(store, scope.tenant, "another-model") == [ours]


def test_put_index_replaces_a_facts_entry(store: Store, scope: Scope) -> None:
    (fid,) = facts(store, scope, "note")
    put(store, scope.tenant, entry(fid, "old word", X))
    put(store, scope.tenant, entry(fid, "new word", Y))
    old = search(store, AsOf(scope), "old", vector=X)
    assert (old.keyword, old.matched) == ((), 0)
    new = search(store, AsOf(scope), "new", vector=Y)
    assert ids(new.keyword) == [fid]
    assert new.semantic[0][1] == pytest.approx(1.0, abs=1e-5)


def test_ties_are_broken_by_id_in_every_leg(store: Store, scope: Scope) -> None:
    same = facts(store, scope, "c.x", "a.x", "b.x")
    put(store, scope.tenant, *(entry(i, "same word e4031") for i in same))
    hits = search(store, AsOf(scope), "same word e4031", identifiers="e4031", per_leg=2)
    first_two = sorted(same)[:2]
    assert (ids(hits.keyword), ids(hits.exact), ids(hits.semantic)) == (first_two,) * 3


def test_each_leg_is_best_first_and_keyword_holds_only_items_with_a_query_term(
    store: Store, scope: Scope,
) -> None:
    once, twice, none = facts(store, scope, "a", "b", "c")
    put(store, scope.tenant, entry(once, "refund late", Y), entry(twice, "refund refund", Z),
        entry(none, "ship office", X))
    hits = search(store, AsOf(scope), "refund", vector=X)
    assert ids(hits.keyword) == [twice, once]
    assert hits.keyword[0][1] > hits.keyword[1][1] > 0
    assert (hits.exact, hits.legal, hits.matched) == ((), 3, 2)
    # The semantic leg ranks every legal item of the model, by cosine: its score is the cosine.
    assert ids(hits.semantic)[0] == none
    assert [s for _, s in hits.semantic] == pytest.approx([1.0, 0.0, 0.0], abs=1e-5)


def test_the_semantic_score_is_the_cosine_from_minus_one_to_one(
    store: Store, scope: Scope,
) -> None:
    same, across, opposite = facts(store, scope, "a", "b", "c")
    put(store, scope.tenant, entry(same, "w", X), entry(across, "w", unit(1, 1, 0, 0)),
        entry(opposite, "w", unit(-1, 0, 0, 0)))
    hits = search(store, AsOf(scope), "w", vector=X)
    assert ids(hits.semantic) == [same, across, opposite]
    assert [s for _, s in hits.semantic] == pytest.approx([1.0, math.sqrt(0.5), -1.0], abs=1e-5)


def test_unindexed_lists_facts_without_an_entry_by_id_up_to_the_limit(
    store: Store, scope: Scope,
) -> None:
    every = facts(store, scope, "e", "d", "c", "b", "a")
    done = sorted(every)[1:3]
    put(store, scope.tenant, *(entry(i, "w") for i in done))
    due = sorted(set(every) - set(done))
    assert unindexed(store, scope.tenant, limit=2) == due[:2]
    assert unindexed(store, scope.tenant) == due
    put(store, scope.tenant, entry("no-such-fact", "w"))  # a fact gone: skipped, no error
    assert unindexed(store, scope.tenant) == due


def test_a_ranking_read_says_whether_some_live_fact_has_no_entry_by_its_model(
    store: Store, scope: Scope,
) -> None:
    assert isinstance(store, SearchStore)

    def pending(model: str = MODEL) -> bool | None:
        assert isinstance(store, SearchStore)
        return store.rank(AsOf(scope), TextQuery(("w",), (), X, MODEL, 5,
                                                 indexed_by=model)).pending

    first, second, third = facts(store, scope, "a", "b", "c")
    put(store, scope.tenant, entry(first, "w"), entry(second, "w"))
    put(store, scope.tenant, entry("no-such-fact", "w"))  # a fact gone: no entry counts
    assert pending() is True
    put(store, scope.tenant, entry(third, "w", model="another-model"))
    assert pending() is True  # an entry by another model is not one by this
    store.write(scope.tenant, lambda tx: memory_tx(tx).erase_facts([Erasure(third, store.now())]))
    assert pending() is False  # the erased fact's entry is gone with it, and none is due
    assert pending("another-model") is True
    assert store.rank(AsOf(scope), TextQuery(("w",), (), X, MODEL, 5)).pending is None


def test_a_malformed_entry_or_query_is_refused_and_nothing_is_written(
    store: Store, scope: Scope,
) -> None:
    a, b = facts(store, scope, "a", "b")
    for bad in (entry(b, "w", (1.0, math.nan, 0.0, 0.0)),
                IndexEntry(b, ("two words",), X, MODEL)):
        with pytest.raises(InvalidArgument):
            put(store, scope.tenant, entry(a, "w"), bad)
    assert unindexed(store, scope.tenant) == sorted([a, b])
    with pytest.raises(InvalidArgument):
        search(store, AsOf(scope), "w", per_leg=0)


def clear(store: Store, tenant: str) -> int:
    return store.write(tenant, lambda tx: index_tx(tx).clear_index())


def test_clear_index_drops_every_entry_and_queues_every_fact_not_erased_again(
    store: Store, scope: Scope, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Neo4j's slices: one node each
    monkeypatch.setattr("vintage.graph.neo4j.search.CLEAR_BATCH", 1)
    ours, theirs, plain, gone = facts(store, scope, "a.pref", "b.pref", "c.pref", "d.secret")
    put(store, scope.tenant, entry(ours, "tea e4031"), entry(theirs, "tea", Y, "another-model"),
        entry(gone, "tea secret"))
    store.write(scope.tenant, lambda tx: memory_tx(tx).erase_facts([Erasure(gone, store.now())]))
    assert unindexed(store, scope.tenant) == sorted([theirs, plain])

    assert clear(store, scope.tenant) == 2  # one entry per model; the erased one went before

    every = sorted([ours, theirs, plain])
    assert unindexed(store, scope.tenant) == every
    assert unindexed(store, scope.tenant, "another-model") == every
    hits = search(store, AsOf(scope, statuses=frozenset(Status)), "tea e4031",
                  identifiers="e4031")
    assert (hits.keyword, hits.exact, hits.semantic) == ((), (), ())
    assert (hits.legal, hits.matched, hits.excluded) == (0, 0, {})
    assert clear(store, scope.tenant) == 0  # nothing left to drop
    # Refreshed, a fact is found again.
    put(store, scope.tenant, entry(ours, "tea e4031"))
    hits = search(store, AsOf(scope), "tea e4031", identifiers="e4031")
    assert (ids(hits.keyword), ids(hits.exact), ids(hits.semantic)) == ([ours],) * 3
    assert unindexed(store, scope.tenant) == sorted([theirs, plain])


@pytest.fixture
def other_tenant(store: Store, tenant: str) -> Iterator[str]:
    other = tenant + "-other"
    yield other
    if isinstance(store, Neo4jStore):
        store.purge_tenant(other)


def test_clear_index_leaves_other_tenants_entries_and_is_undone_with_its_transaction(
    store: Store, scope: Scope, other_tenant: str,
) -> None:
    other = Scope(tenant=other_tenant)
    (mine,) = facts(store, scope, "a.pref")
    (theirs,) = facts(store, other, "a.pref")
    put(store, scope.tenant, entry(mine, "tea"))
    put(store, other.tenant, entry(theirs, "tea"))

    def clear_then_fail(tx: Any) -> None:
        assert index_tx(tx).clear_index() == 1
        raise RuntimeError("the unit of work fails after clearing")

    with pytest.raises(RuntimeError):
        store.write(scope.tenant, clear_then_fail)
    assert ids(search(store, AsOf(scope), "tea").keyword) == [mine]
    assert clear(store, scope.tenant) == 1
    assert ids(search(store, AsOf(other), "tea").keyword) == [theirs]
    assert unindexed(store, other.tenant) == []


def test_indexing_tells_its_progress_after_each_batch_and_a_search_says_when_it_indexed_first(
    store: Store, scope: Scope,
) -> None:
    from vintage.graph.retrieval.embedder import embedder_from_env
    from vintage.graph.retrieval.indexer import refresh
    from vintage.queries.search.request import SearchRequest
    from vintage.queries.search.run import search

    sources = tuple(source(f"p{i}", FILED) for i in range(5))
    record(store, scope, batch(*(fact(10 + i, f"p{i}", predicate=f"Metric{i}")
                                 for i in range(5)), sources=sources), actor=ACTOR)
    embedder = embedder_from_env()
    heard: list[int] = []
    search(store, embedder, SearchRequest("metric", scope), progress=heard.append)
    assert heard and heard[-1] == 5  # the first search indexed all five first, and said so
    again: list[int] = []
    search(store, embedder, SearchRequest("metric", scope), progress=again.append)
    assert again == []  # nothing left to index: nothing said
    record(store, scope, batch(*(fact(20 + i, f"p{i}", predicate=f"Other{i}")
                                 for i in range(5)), sources=sources), actor=ACTOR)
    counts: list[int] = []
    assert refresh(store, scope.tenant, embedder, batch=2, progress=counts.append) == 5
    assert counts == [2, 4, 5]
