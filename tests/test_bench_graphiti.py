"""bench/graphiti: the retrieval benchmark's truth as a Graphiti graph, its questions as
Graphiti's searches, and one scoring rule for both systems (bench/README.md, "bench.graphiti").

Server-free: the mapping and the scorer (which must count each kind of illegal item). On a real
Neo4j with the real graphiti-core: the quick corpus written into Graphiti and asked the quick
questions, at small size, with no illegal item returned.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bench.graphiti import graph
from bench.graphiti.run import side_by_side, why_illegal
from bench.retrieval import sec as retrieval_sec
from bench.retrieval.corpus import Version
from bench.retrieval.main import QUICK_SEC, quick_corpus, quick_queries
from bench.retrieval.queries import Query, load
from bench.retrieval.run import Answer
from tests.neo4j_server import Neo4jTarget
from vintage.graph.core.kinds import Status

T0 = datetime(2025, 3, 1, tzinfo=UTC)


def version(vid: str, scope: str = "user=u1", available: datetime = T0,
            superseded: datetime | None = None, status: Status = Status.ACTIVE) -> Version:
    return Version(vid, "acme", frozenset({scope}), status, available, superseded, None,
                   T0 - timedelta(days=30), None, f"text of {vid}")


def test_a_version_becomes_an_edge_known_from_its_knowledge_time_until_replaced() -> None:
    v = version("k1.r1", superseded=T0 + timedelta(days=3))
    e, g = graph.edge(v, "user:u1", "home.city")
    assert (e.created_at, e.expired_at, e.valid_at) == (T0, T0 + timedelta(days=3),
                                                        T0 - timedelta(days=30))
    assert not g.candidates and e.group == graph.group_id("acme", {"user=u1"})
    guess, gg = graph.edge(version("k2.r1", status=Status.CANDIDATE), "user:u1", "x")
    assert gg.candidates and guess.group != e.group  # a candidate in a group of its own


def test_a_question_reads_its_scopes_groups_and_candidates_only_when_asked() -> None:
    groups = {graph.group_id("acme", s, c): graph.Group("acme", frozenset(s), c)
              for s, c in (({"user=u1"}, False), ({"user=u1", "project=p"}, False),
                           ({"user=u2"}, False), ({"user=u1"}, True))}
    mine = Query("q", "c", "t", "acme", {"user": "u1"})
    assert len(graph.readable(mine, groups)) == 2
    assert len(graph.readable(Query("q", "c", "t", "acme", {"user": "u1"}, candidates=True),
                              groups)) == 3
    assert graph.readable(Query("q", "c", "t", "globex", {"user": "u1"}), groups) == []
    tenant_wide = Query("q", "c", "t", "acme", all_scopes=True)
    assert len(graph.readable(tenant_wide, groups)) == 3


def test_a_tenant_wide_question_reads_every_valid_time_and_others_the_cutoffs() -> None:
    cutoff = T0 + timedelta(days=1)
    scoped = graph.filters(Query("q", "c", "t", "acme", {"user": "u1"}, cutoff=cutoff), T0)
    assert scoped["created_at"] == [[("<=", cutoff)]]
    assert scoped["valid_at"] == [[("<=", cutoff)]]
    wide = graph.filters(Query("q", "c", "t", "sec", all_scopes=True, cutoff=cutoff), T0)
    assert "valid_at" not in wide and "invalid_at" not in wide


def test_the_scorer_names_each_kind_of_illegal_item_and_the_legal_answers_lost() -> None:
    truth = {("acme", v.id): v for v in (
        version("ok.r1"), version("old.r1", superseded=T0 - timedelta(days=1)),
        version("late.r1", available=T0 + timedelta(days=9)),
        version("bob.r1", scope="user=u2"), version("guess.r1", status=Status.CANDIDATE))}
    q = Query("q1", "c", "t", "acme", {"user": "u1"}, expected=("ok.r1",), cutoff=T0)
    kinds = {i: why_illegal(q, i, truth, T0) for i in
             ("ok.r1", "old.r1", "late.r1", "bob.r1", "guess.r1", "made-up")}
    assert kinds == {"ok.r1": None, "old.r1": "stale", "late.r1": "not_yet_public",
                     "bob.r1": "cross_scope", "guess.r1": "other", "made-up": "unknown"}
    leaky = Answer("q1", "graphiti-bm25", ("old.r1", "late.r1", "bob.r1"),
                   ("old.r1", "late.r1", "bob.r1", "ok.r1"), 5.0, 0, 0, T0)
    right = Answer("q1", "hybrid", ("ok.r1",), (), 9.0, 0, 0, T0)
    scored = side_by_side([q], [leaky, right], truth)
    assert scored["graphiti-bm25"]["illegal"] == {"stale": 1, "not_yet_public": 1,
                                                  "cross_scope": 1, "other": 0, "unknown": 0}
    assert scored["graphiti-bm25"]["legal_lost"] == 1 and scored["hybrid"]["legal_lost"] == 0
    assert scored["hybrid"]["recall@1"] == 1.0 and scored["graphiti-bm25"]["recall@5"] == 0.0
    # A lost answer says where the search had it: fourth of what it considered, shown 3.
    assert scored["graphiti-bm25"]["lost"] == [{"query": "q1", "text": "t", "expected": "ok.r1",
                                                "shown": 3, "considered_rank": 4}]
    # Ranked fourth among what it considered: within its own top 10, lost by what came after
    # the ranking (for Graphiti, its filters after a limit), not by the ranking itself.
    assert scored["graphiti-bm25"]["lost_within_own_top"] == 1
    assert scored["hybrid"]["lost_within_own_top"] == 0
    below = Answer("q1", "keyword", (), (*(f"x{n}.r1" for n in range(10)), "ok.r1"), 1.0,
                   0, 0, T0)
    missed = side_by_side([q], [below], truth)["keyword"]
    assert (missed["legal_lost"], missed["lost_within_own_top"]) == (1, 0)
    # A conflict set is one answer: its second side shown as the 11th item is not lost.
    shown = Answer("q1", "hybrid", (*(f"x{n}.r1" for n in range(10)), "ok.r1"),
                   (*(f"x{n}.r1" for n in range(10)), "ok.r1"), 1.0, 0, 0, T0)
    assert side_by_side([q], [shown], truth)["hybrid"]["legal_lost"] == 0


@pytest.mark.neo4j
def test_graphiti_asked_at_its_best_returns_no_illegal_item_on_the_quick_corpus(
        neo4j_target: Neo4jTarget) -> None:
    from bench.graphiti.run import Graphiti, with_room
    from bench.retrieval.load import Cached
    from vintage.graph.retrieval.embedder import MiniLM

    corpus = quick_corpus(7)
    filings = [a for p in retrieval_sec.ticker_files(QUICK_SEC[0])
               for a in retrieval_sec.assertions(p, QUICK_SEC[1])]
    truth = {**corpus.truth(), **retrieval_sec.truth(*QUICK_SEC)}
    queries = quick_queries(load(), corpus, truth)[:30]
    edges, groups = graph.edges(corpus, filings)
    g = Graphiti(neo4j_target.uri, neo4j_target.auth, Cached(MiniLM()))
    try:
        g.write(edges, lambda _: None)
        answers = with_room(g, [g.ask(q, method, groups, datetime.now(UTC))
                                for method in ("bm25", "hybrid") for q in queries],
                            queries, groups, lambda: datetime.now(UTC))
    finally:
        g.loop.run_until_complete(g.client.driver.execute_query(
            "MATCH (n:Entity) WHERE n.group_id IN $g DETACH DELETE n", g=sorted(groups)))
        g.close()
    scored = side_by_side(queries, answers, truth)
    for mode in ("graphiti-bm25", "graphiti-hybrid"):
        assert scored[mode]["errors"] == 0
        assert sum(scored[mode]["illegal"].values()) == 0, scored[mode]["illegal"]
    assert scored["graphiti-hybrid"]["recall@5"] > 0.5  # it answers: no stub
    # Asked again with room, each answered question's search considers at least as much, and
    # mostly the same items (RRF over longer lists may reorder the tail).
    by_id = {q.id: q for q in queries}
    roomy = [a for a in answers if by_id[a.query].expected and a.ids]
    assert roomy and all(len(a.considered) >= len(a.ids) for a in roomy)
    kept = sum(len(set(a.ids) & set(a.considered)) for a in roomy)
    assert kept >= 0.8 * sum(len(a.ids) for a in roomy)
