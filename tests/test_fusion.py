"""The fusion rule of search (docs/retrieval.md, "Search: the legal set first"), on hand-built
legs: scores calibrated on a fixed scale (issue 40), ties in a leg add nothing, exact matches
rank first, demotion multiplies, and the depth check never lets an item that no leg returned
belong among the results."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vintage.graph.core.kinds import FactKind, Status
from vintage.graph.core.model import Fact
from vintage.queries.search.fusion import (
    BM25_HALF,
    SCALE,
    SIGNAL,
    Ranked,
    Rescored,
    Scored,
    calibrated,
    deep_enough,
    fuse,
    heads,
    recency_rank,
    unscored,
)

AT = datetime(2026, 6, 1, tzinfo=UTC)
LEGS = ("exact", "keyword", "semantic")


def item(n: int, *, age_days: float = 0.0, authority: int = 5) -> Fact:
    known = AT - timedelta(days=age_days)
    return Fact(id=f"f{n:04}", key=f"k{n}", revision=1, tenant="t", scope=("user=1",),
                kind=FactKind.PREFERENCE, status=Status.ACTIVE, subject="user:1",
                predicate=f"note.{n}", value=f"note {n}", unit=None, valid_from=known,
                valid_to=None, available_at=known, superseded_at=None,
                superseded_recorded_at=None, recorded_at=known, invalidated_at=None,
                authority=authority, owner=None, retention_reason=None, content_hash="h",
                event_id="e")


def ranked(scores: dict[str, float]) -> Ranked:
    return tuple(sorted(scores.items(), key=lambda kv: (-kv[1], kv[0])))


def test_items_a_leg_scores_equally_score_equally_so_the_order_of_their_ids_adds_nothing() -> None:
    facts = {f.id: f for f in (item(1), item(2))}
    scored = fuse({"keyword": ranked({"f0001": 2.0, "f0002": 2.0})}, facts, {}, AT)
    assert scored[0].score == scored[1].score == (calibrated("keyword", 2.0)
                                                  + 2 * SIGNAL) / SCALE


def test_a_leg_scores_how_good_a_match_is_on_a_fixed_scale_not_as_a_share_of_its_best() -> None:
    facts = {f.id: f for f in (item(1), item(2), item(3))}
    # The same raw scores score the same whatever else the legal set holds (issue 40: a lone
    # poor match was scored as a share of itself, 0.913 for a cosine of 0.03).
    alone = fuse({"semantic": ranked({"f0003": 0.03})}, facts, {}, AT)
    beside = fuse({"semantic": ranked({"f0001": 0.9, "f0003": 0.03})}, facts, {}, AT)
    assert alone[0].signals["relevance"] == beside[1].signals["relevance"] == 0.03
    assert alone[0].score < 0.04 and beside[1].score == alone[0].score
    # A cosine at or below 0 is no match; BM25 saturates, half way at BM25_HALF.
    cos = fuse({"semantic": ranked({"f0001": 1.0, "f0002": 0.0, "f0003": -1.0})}, facts, {}, AT)
    assert [s.signals["relevance"] for s in cos] == [1, 0, 0]
    kw = {s.id: s.signals["relevance"] for s in fuse(
        {"keyword": ranked({"f0001": 3 * BM25_HALF, "f0002": BM25_HALF, "f0003": 0.1})},
        facts, {}, AT)}
    assert kw == pytest.approx({"f0001": 0.75, "f0002": 0.5, "f0003": 0.1 / (0.1 + BM25_HALF)})


def test_an_item_carrying_an_identifier_ranks_before_every_item_carrying_none() -> None:
    facts = {f.id: f for f in (item(n) for n in range(1, 4))}
    legs = {"exact": ranked({"f0003": 1.0}),
            "keyword": ranked({"f0001": 9.0, "f0002": 8.0, "f0003": 0.5}),
            "semantic": ranked({"f0001": 0.9, "f0002": 0.8, "f0003": 0.1})}
    assert [s.id for s in fuse(legs, facts, {}, AT)] == ["f0003", "f0001", "f0002"]


def test_an_item_the_exact_leg_cut_among_its_ties_keeps_the_count_it_carries() -> None:
    # Every Q1 2018 figure carries "2018" and "q1": the exact leg, cut at its depth, returned
    # f0001 only (ties go by id). f0002, found by words, carries both identifiers too: counted
    # on every candidate, it ranks as if the leg had returned it, and its words win.
    facts = {f.id: f for f in (item(1), item(2))}
    legs = {"exact": ranked({"f0001": 2.0}),
            "keyword": ranked({"f0002": 9.0, "f0001": 1.0}),
            "semantic": ranked({"f0002": 0.9, "f0001": 0.1})}
    cut = fuse(legs, facts, {}, AT)
    assert [s.id for s in cut] == ["f0001", "f0002"]  # scored on the legs that returned it
    counted = fuse(legs, facts, {}, AT, exact={"f0001": 2.0, "f0002": 2.0})
    assert [s.id for s in counted] == ["f0002", "f0001"]
    assert counted[0].signals["exact"] == 2.0


def test_in_hybrid_one_shared_word_does_not_outrank_the_semantic_legs_best_match() -> None:
    # "who gets paged when production breaks": BM25 ranks a "payment page" note first for the
    # one stem it shares; the on-call note, the semantic leg's first, shares no word.
    facts = {f.id: f for f in (item(1), item(2))}
    legs = {"exact": (), "keyword": ranked({"f0001": 3.2}),
            "semantic": ranked({"f0002": 0.61, **{f"f{n:04}": 0.5 - n / 1000
                                                  for n in range(3, 31)}, "f0001": 0.2})}
    assert [s.id for s in fuse(legs, facts, {}, AT)] == ["f0002", "f0001"]
    # Without the semantic leg (keyword mode) the keyword leg's share is whole.
    alone = fuse({"exact": (), "keyword": legs["keyword"]}, facts, {}, AT)
    assert alone[0].signals["fused"] == (calibrated("keyword", 3.2) + 2 * SIGNAL) / SCALE


def test_demotion_multiplies_the_fused_score_and_signals_reorder_only_near_equals() -> None:
    facts = {"f0001": item(1, age_days=400), "f0002": item(2), "f0003": item(3)}
    legs = {"keyword": ranked({"f0001": 3.0, "f0002": 3.0, "f0003": 2.9})}
    order = fuse(legs, facts, {"f0002": 0.5}, AT)
    assert [s.id for s in order] == ["f0001", "f0003", "f0002"]  # old, but the legs prefer it
    assert order[2].signals["weight"] == 0.5
    assert order[2].signals["fused"] == order[2].score


def test_recency_counts_doublings_of_age() -> None:
    assert [recency_rank(AT - timedelta(days=d), AT) for d in (0, 1, 3, 7, 365)] == [1, 2, 3, 4, 9]


def answers(scored: list[Scored]) -> list[tuple[str, float, float]]:
    return [(s.id, s.score, s.signals["weight"]) for s in scored]


def test_the_depth_is_not_enough_while_the_last_answer_could_be_outscored_from_below() -> None:
    # The leg's last has cosine 0.51: an item below it scores at most (0.51 + 0.005) / 1.1.
    weak = {"semantic": ranked({f"f{n:04}": 1 - n / 100 for n in range(50)})}

    def tenth(score: float, n: int = 10) -> list[tuple[str, float, float]]:
        return [(f"f{k:04}", score, 1.0) for k in range(n)]

    assert not deep_enough(weak, 50, 1000, tenth(0.46), 10)  # a cut leg, a weak 10th answer
    assert deep_enough(weak, 50, 1000, tenth(0.47), 10)  # above 0.4682
    assert deep_enough(weak, 50, 50, tenth(0.0), 10)  # nothing was cut: every item is there
    assert not deep_enough(weak, 50, 1000, tenth(0.05, 3), 10)  # fewer answers than asked for


def missed_by_the_semantic_leg() -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """BM25's best, f0100, has a cosine (0.499) just below the semantic leg's 50th (0.50): the
    keyword leg, the semantic leg cut at 50, and the semantic leg at full depth."""
    semantic = {f"f{n:04}": 0.52 - n * 0.02 / 49 for n in range(50)}
    full_semantic = {**semantic, "f0100": 0.499, **{f"f{n:04}": 0.3 for n in range(101, 140)}}
    keyword = {"f0100": 10.0, **{f"f{n:04}": 1.0 for n in range(101, 140)}}
    return keyword, semantic, full_semantic


def test_an_item_one_leg_found_and_another_cut_is_not_left_below_the_results() -> None:
    # BM25 ranks f0100 first; its cosine (0.499) is just below the semantic leg's 50th (0.50),
    # so at this depth it is scored on keywords alone and ranks 51st. At full depth it is first:
    # the depth must not be called enough.
    keyword, semantic, full_semantic = missed_by_the_semantic_leg()
    facts = {i: item(int(i[1:])) for i in full_semantic}
    legs = {"keyword": ranked(keyword), "semantic": ranked(semantic)}
    head = fuse(legs, {i: facts[i] for i in {*keyword, *semantic}}, {}, AT)
    full = fuse({"keyword": ranked(keyword), "semantic": ranked(full_semantic)}, facts, {}, AT)
    assert full[0].id == "f0100" != head[0].id  # what a premature stop would show
    assert not deep_enough(legs, 50, len(facts), answers(head), 10)


def test_asking_a_cut_leg_for_the_candidates_it_missed_settles_the_order_at_that_depth() -> None:
    # The case above: the semantic leg, asked by id for the candidates it did not return, gives
    # f0100's cosine (and f0101.. theirs); every candidate's score is then final, f0100 ranks
    # first as at full depth, and the depth is enough without going deeper.
    keyword, semantic, full_semantic = missed_by_the_semantic_leg()
    facts = {i: item(int(i[1:])) for i in full_semantic}
    legs = {"keyword": ranked(keyword), "semantic": ranked(semantic)}
    missing = unscored(legs, 50, len(facts))
    assert list(missing) == ["semantic"]  # the keyword leg returned fewer than 50: not cut
    assert missing["semantic"] == sorted(keyword)
    asked = {"semantic": Rescored(frozenset(missing["semantic"]),
                                  {i: full_semantic[i] for i in missing["semantic"]})}
    head = fuse(legs, {i: facts[i] for i in {*keyword, *semantic}}, {}, AT, rescored=asked)
    full = fuse({"keyword": ranked(keyword), "semantic": ranked(full_semantic)}, facts, {}, AT)
    assert [s.id for s in head[:10]] == [s.id for s in full[:10]]
    assert head[0].signals["semantic"] == 0.499
    assert deep_enough(legs, 50, len(facts), answers(head), 10, asked)


def test_a_candidate_the_asked_leg_does_not_score_at_all_is_final_with_nothing_from_it() -> None:
    # f0001 carries the query's identifier and has no vector of the query's model. Until the
    # semantic leg (cut at 50) is asked for it, its cosine might lie below the leg's last, so
    # the depth is not enough; asked, the leg gives nothing, as it would at any depth.
    semantic = {f"f{n:04}": 0.9 - n / 100 for n in range(2, 52)}
    legs = {"exact": ranked({"f0001": 1.0}), "keyword": ranked({"f0001": 5.0}),
            "semantic": ranked(semantic)}
    facts = {i: item(int(i[1:])) for i in {"f0001", *semantic}}
    assert unscored(legs, 50, 1000) == {"semantic": ["f0001"]}
    asked = {"semantic": Rescored(frozenset({"f0001"}), {})}
    head = fuse(legs, facts, {}, AT, rescored=asked)
    assert head[0].id == "f0001" and head[0].signals["semantic"] == 0.0
    assert not deep_enough(legs, 50, 1000, answers(head), 1)
    assert deep_enough(legs, 50, 1000, answers(head), 1, asked)


def test_candidates_tied_with_the_last_answer_do_not_send_the_search_deeper() -> None:
    # Ten figures carry both identifiers, forty one of them; the exact leg was cut at 50. The
    # 6th to 10th tie with the 5th answer, but they have nothing left to gain: ties go by id at
    # any depth, so the depth is enough (and an unreturned item carries one identifier at most).
    facts = {f.id: f for f in (item(n) for n in range(50))}
    legs = {"exact": ranked({f"f{n:04}": 2.0 if n < 10 else 1.0 for n in range(50)})}
    head = fuse(legs, facts, {}, AT)
    assert head[4].score == head[9].score
    assert deep_enough(legs, 50, 1000, answers(head), 5)


def test_an_item_returned_below_the_candidates_may_carry_the_cut_exact_legs_last_count(
) -> None:
    # The exact leg ties six items at one identifier and was returned to three: f0005, its
    # fifth, is not there. Both similarity legs returned f0005 second, below their one
    # candidate each. At full depth it carries its identifier and two near-best matches, and
    # beats f0001 (the identifier, the best keyword match, a weak cosine): the depth is not
    # enough while f0005 is bounded as if it carried none.
    full = {"exact": ranked({f"f{n:04}": 1.0 for n in range(1, 7)}),
            "keyword": ranked({"f0001": 10.0, "f0005": 9.5, "f0020": 0.1}),
            "semantic": ranked({"f0030": 1.0, "f0005": 0.99, "f0001": 0.5})}
    facts = {f.id: f for f in (item(n) for n in (*range(1, 7), 20, 30))}
    counts = dict(full["exact"])
    cut = {leg: r[:3] for leg, r in full.items()}
    candidates = {i for r in heads(cut, 1).values() for i, _ in r}
    head = fuse(cut, {i: facts[i] for i in candidates}, {}, AT,
                exact={i: counts.get(i, 0.0) for i in candidates})
    whole = fuse(full, facts, {}, AT, exact={i: counts.get(i, 0.0) for i in facts})
    assert (whole[0].id, head[0].id) == ("f0005", "f0001")
    assert not deep_enough(cut, 1, len(facts), answers(head), 1, reach=3)


# Legs of 20 to 60 items cut at 1 to 40, so most are cut; identifiers are rare (an item
# carrying one ranks first), so the similarity legs decide most orders, as in most searches.
leg_scores = st.dictionaries(st.integers(0, 59), st.integers(1, 6), min_size=20, max_size=60)
exact_scores = st.dictionaries(st.integers(0, 59), st.integers(1, 3), max_size=8)


@settings(max_examples=300, deadline=None)
@given(st.fixed_dictionaries({"exact": exact_scores, "keyword": leg_scores,
                             "semantic": leg_scores}),
       st.dictionaries(st.integers(0, 59), st.floats(0, 1), max_size=20),
       st.lists(st.tuples(st.floats(0, 4000), st.integers(0, 5)), min_size=60, max_size=60),
       st.integers(1, 40), st.integers(1, 12), st.integers(0, 40))
def test_when_the_depth_is_enough_the_results_are_those_of_fusion_at_full_depth(
    scores: dict[str, dict[int, int]], demoted: dict[int, float],
    shape: list[tuple[float, int]], depth: int, limit: int, further: int,
) -> None:
    # The store returned each leg to ``reach``; the candidates are the first ``depth`` of each.
    reach = depth + further
    facts = {f.id: f for f in (item(n, age_days=a, authority=p) for n, (a, p) in
                               enumerate(shape))}
    weights = {f"f{n:04}": w for n, w in demoted.items()}
    full = {leg: ranked({f"f{n:04}": float(s) for n, s in by.items()})
            for leg, by in scores.items()}
    cut = {leg: r[:reach] for leg, r in full.items()}
    candidates = {i for r in heads(cut, depth).values() for i, _ in r}
    # As the search does: identifiers counted on every candidate, whatever the exact leg's depth.
    counts = dict(full["exact"])
    head = fuse(cut, {i: facts[i] for i in candidates}, weights, AT,
                exact={i: counts.get(i, 0.0) for i in candidates})
    if not deep_enough(cut, depth, len(facts), answers(head), limit, reach=reach):
        # As the search does next: each cut leg asked by id for the candidates it missed.
        missing = unscored(cut, depth, len(facts), reach)
        asked = {leg: Rescored(frozenset(ids), {i: s for i, s in full[leg] if i in ids})
                 for leg, ids in missing.items()}
        head = fuse(cut, {i: facts[i] for i in candidates}, weights, AT,
                    exact={i: counts.get(i, 0.0) for i in candidates}, rescored=asked)
        if not deep_enough(cut, depth, len(facts), answers(head), limit, asked, reach):
            return
    found = {i for r in full.values() for i, _ in r}  # a search shows only what a leg found
    whole = fuse(full, {i: facts[i] for i in found}, weights, AT,
                 exact={i: counts.get(i, 0.0) for i in found})
    assert [s.id for s in whole[:limit]] == [s.id for s in head[:limit]]


def test_a_cosine_counts_from_the_embedders_floor() -> None:
    # E5 puts every text above ~0.7: counted from 0, 0.80 and 0.85 are near-equal and the one
    # word BM25 matched decides; counted from its floor 0.7 they are a third and a half of a
    # full match, and meaning does.
    facts = {f.id: f for f in (item(1), item(2))}
    legs = {"exact": (), "keyword": ranked({"f0002": 4.0}),
            "semantic": ranked({"f0001": 0.85, "f0002": 0.80})}
    floored = fuse(legs, facts, {}, AT, floor=0.7)
    assert [s.id for s in floored] == ["f0001", "f0002"]
    semantic = fuse({"semantic": ranked({"f0001": 0.85, "f0002": 0.80, "f0003": 0.5})},
                    {f.id: f for f in (item(1), item(2), item(3))}, {}, AT, floor=0.7)
    # at or below the floor is no match at all, never a negative score
    assert [s.signals["fused"] * SCALE - 2 * SIGNAL for s in semantic] == pytest.approx(
        [0.5, 1 / 3, 0])
