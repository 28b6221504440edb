"""How a search orders its legal candidates: a convex combination of its legs' calibrated
scores, a few declared signals, and exact matches first (docs/retrieval.md, "Search: the legal
set first").

Every item here is already legal: the store ranked each leg inside the legal set
(``vintage.graph.retrieval.index.SearchStore.rank``), and the search re-read the ids through the
whole as-of predicate. This module only orders them, and keeps each signal's value per item.

The rule, for an item ``d``::

    sim(d)   = Σ over the mode's similarity legs L   share_L · norm_L(d)
    boost(d) = SIGNAL · (K + 1) · (1 / (K + recency(d)) + 1 / (K + authority(d)))
    fused(d) = (sim(d) + boost(d)) · weight(d) / SCALE
    score(d) = exact(d) + fused(d)

The similarity legs are keyword (BM25) and semantic (cosine); each raw score is **calibrated**
on a fixed scale, never as a share of the leg's best, so that a score means the same whatever
else the legal set holds (docs/retrieval.md, "Calibrated scores and abstention"):
``cal(d) = max(0, cos(d))`` for the semantic leg (a cosine is a property of the query and the
item alone: 0.03 is no match whatever the best is) and ``cal(d) = bm25(d) / (bm25(d) +
BM25_HALF)`` for the keyword leg (bounded in [0, 1), monotone, so the keyword leg orders as BM25
does; half way at ``BM25_HALF``); 0 where the leg gave the item no score (it did not return it,
nor score it when asked by id: ``Rescored``). ``sim(d)`` is the item's **relevance**, the number
the relevance floors are read against (``vintage.queries.search.abstain``). ``share_L`` is 1 in a
mode with one similarity leg; in hybrid mode the semantic leg's is ``SEMANTIC_SHARE = 0.9`` and
the keyword leg's 0.1. Why scores and not ranks (the reciprocal-rank fusion used before
2026-12-02): a rank says nothing of how good a match is, so a note that shares one common word
with the question ("like") ranked first by BM25 counted as much as a keyword match on every
word; scores keep the size of each match (the convex combination that Bruch et al.,
"An Analysis of Fusion Functions for Hybrid Retrieval", 2023, found ahead of RRF). The share was
chosen on one half of the bench's queries and read on the other (docs/retrieval.md).

The two signals are ranks on fixed scales, so an item's boost does not depend on which other
items are candidates: ``recency(d) = 1 + floor(log2(1 + age in days))``, its age being the time
from its knowledge start to the cutoff (known that day: 1; a week before: 4; a year: 9);
``authority(d) = 6 - its authority`` (``vintage.graph.core.kinds.Authority``: a user's statement 1,
an authoritative filing 2, text of unknown origin 6); ``K = 60``, and ``SIGNAL = 0.0025``, so each
term is at most 0.0025 of a best match: signals break near-ties and never lift a weaker match over
a clearly better one. ``weight`` is the demotion weight (``vintage.graph.memory.ranking``, in [0,
1]): a multiplier. ``SCALE = 1.1`` keeps ``fused`` below 1, so that ``exact(d)``, how many of the
query's identifiers the item carries (in the modes that run the exact leg), orders first: every item
carrying an identifier ranks before every item carrying none, and carrying more ranks first.
Ties go by fact id.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from vintage.graph.core.kinds import Authority
from vintage.graph.core.model import Fact
from vintage.graph.retrieval.index import Hits

K = 60
SEMANTIC_SHARE = 0.9
# The BM25 at which the keyword leg's calibrated score is one half: about one rare word of the
# query matched in a short text of a tenant of thousands (docs/retrieval.md).
BM25_HALF = 5.0
SIGNAL = 0.0025
SCALE = 1.1
MIN_PER_LEG = 50
Ranked = tuple[tuple[str, float], ...]


class Mode(StrEnum):
    EXACT = "exact"
    KEYWORD = "keyword"
    SEMANTIC = "semantic"
    HYBRID = "hybrid"


LEGS: dict[Mode, tuple[str, ...]] = {
    Mode.EXACT: ("exact",),
    Mode.KEYWORD: ("exact", "keyword"),
    Mode.SEMANTIC: ("semantic",),
    Mode.HYBRID: ("exact", "keyword", "semantic"),
}


def shares(legs: Collection[str]) -> dict[str, float]:
    """Each similarity leg's share of ``sim``: the semantic leg's ``SEMANTIC_SHARE`` beside the
    keyword leg (hybrid), else the one leg's whole."""
    similar = [leg for leg in ("keyword", "semantic") if leg in legs]
    if len(similar) == 2:
        return {"keyword": 1 - SEMANTIC_SHARE, "semantic": SEMANTIC_SHARE}
    return dict.fromkeys(similar, 1.0)


def calibrated(leg: str, score: float, floor: float = 0.0) -> float:
    """A leg's raw score on a fixed scale in [0, 1], the same whatever else is legal: a cosine
    at or below the embedder's floor is no match (``cosine_floor``, counted from 0 at least:
    E5 puts every text's cosine above 0.7, where the range below would leave the best and the
    worst match a few hundredths apart); BM25 saturates, half way at ``BM25_HALF``."""
    if leg == "semantic":
        low = max(0.0, floor)
        return min(1.0, max(0.0, (score - low) / (1.0 - low)))
    return score / (score + BM25_HALF) if score > 0 else 0.0


# How much further than the candidates (``per_leg``) the store returns each leg: the scores
# below them bound what they hide (``deep_enough``) at the cost of a longer answer, so that a
# search seldom ranks a second time, and only the candidates are read again.
REACH = 4


def per_leg(limit: int) -> int:
    """How many of each leg's best a search fuses first (its candidates; the store returns
    ``REACH`` times as many): enough that the fusion of the legs' heads holds the ``limit``
    best of every leg many times over."""
    return max(MIN_PER_LEG, 5 * limit)


def cut_legs(legs: Mapping[str, Ranked], depth: int, legal: int) -> list[str]:
    """The legs that returned ``depth`` items out of a larger legal set: items may lie below."""
    return [leg for leg, ranked in legs.items() if len(ranked) >= depth and depth < legal]


def heads(legs: Mapping[str, Ranked], depth: int) -> dict[str, Ranked]:
    """Each leg's first ``depth``: whose items are a search's candidates."""
    return {leg: ranked[:depth] for leg, ranked in legs.items()}


@dataclass(frozen=True)
class Rescored:
    """What a cut similarity leg says, asked by id, of candidates it did not return: the
    scores of those it scores (a BM25 above 0; a cosine by the query's model); the rest of
    ``asked`` it does not score at any depth. Either way the candidate's score is final."""

    asked: frozenset[str]
    scores: Mapping[str, float]


def unscored(legs: Mapping[str, Ranked], depth: int, legal: int,
             reach: int | None = None) -> dict[str, list[str]]:
    """For each similarity leg cut at ``reach`` (default ``depth``: how far the store returned
    each leg), the candidates (the legs' first ``depth``) it did not return, by id: what to ask
    it for (``Rescored``) so that every candidate's score is final."""
    found = sorted({i for ranked in heads(legs, depth).values() for i, _ in ranked})
    missing = {}
    for leg in cut_legs(legs, reach or depth, legal):
        if leg in ("keyword", "semantic"):
            returned = {i for i, _ in legs[leg]}
            missing[leg] = [i for i in found if i not in returned]
    return {leg: ids for leg, ids in missing.items() if ids}


def deep_enough(legs: Mapping[str, Ranked], depth: int, legal: int,
                answers: Sequence[tuple[str, float, float]], limit: int,
                rescored: Mapping[str, Rescored] | None = None,
                reach: int | None = None, cos_floor: float = -1.0) -> bool:
    """Whether the first ``limit`` answers (``answers``: each answer's id, score and demotion
    weight, best first, fused from the candidates: the legs' first ``depth``) are those, in
    that order, that fusing the legs at full depth would give. ``legs`` are as the store
    returned them, to ``reach`` items each (default ``depth``); a leg that returned ``reach``
    items out of a larger legal set is cut. A candidate's score is a lower bound unless every
    cut leg returned it or was asked for it (``rescored``): a cut leg that did not may hold it
    below its last item, worth up to the leg's share of that item's score (times its weight).
    An item no leg returned scores at most every cut leg's share of its last item, the best
    signals, weight 1, and, when the exact leg was cut, as many identifiers as its last item;
    an item a leg returned below the candidates' depth, at most what the legs say of it and
    that bound for the cut legs that do not. So: each of the first ``limit`` answers must have
    a final score, and the ``limit``-th must score above the most any other candidate, or any
    item that is not one, could reach. ``cos_floor``: the embedder's (``calibrated``)."""
    reach = reach or depth
    cut = cut_legs(legs, reach, legal)
    candidates = {i for ranked in heads(legs, depth).values() for i, _ in ranked}
    below_depth = {i for ranked in legs.values() for i, _ in ranked} - candidates
    if not cut and not below_depth:
        return True
    if len(answers) < limit:
        return False
    share = shares(legs)
    asked = rescored or {}
    below = {leg: share[leg] * calibrated(leg, legs[leg][-1][1], cos_floor) / SCALE
             for leg in cut if leg in share}
    known = {leg: {i for i, _ in legs[leg]} | set(asked[leg].asked if leg in asked else ())
             for leg in below}

    def unknown(i: str, weight: float) -> float:  # what the cut legs may still add to i
        return weight * sum(v for leg, v in below.items() if i not in known[leg])

    if any(unknown(i, w) > 0 for i, _, w in answers[:limit]):
        return False
    floor = answers[limit - 1][1]
    signals = 2 * SIGNAL / SCALE
    last_exact = legs["exact"][-1][1] if "exact" in cut else 0.0
    # Items no leg returned: none is found at any depth unless a leg was cut.
    bound = sum(below.values()) + signals + last_exact if cut else -math.inf
    scores = {leg: dict(ranked) for leg, ranked in legs.items()}

    def most(i: str) -> float:  # the most an item below the candidates' depth could score
        sim = sum(share[leg] * calibrated(leg, scores[leg][i], cos_floor) for leg in share
                  if i in scores[leg])
        exact = scores["exact"].get(i, last_exact) if "exact" in legs else 0.0
        return exact + sim / SCALE + unknown(i, 1.0) + signals

    # A candidate with nothing left to add keeps its place: ties go by id at any depth.
    gains = ((s, unknown(i, w)) for i, s, w in answers[limit:])
    return (floor > bound and all(s + gain < floor for s, gain in gains if gain > 0)
            and all(most(i) < floor for i in below_depth))


def legs_of(mode: Mode, hits: Hits) -> dict[str, Ranked]:
    """The legs the mode fuses, by name, each best first."""
    return {leg: getattr(hits, leg) for leg in LEGS[mode]}


@dataclass(frozen=True)
class Scored:
    id: str
    score: float
    signals: dict[str, float]


def fuse(legs: Mapping[str, Ranked], facts: Mapping[str, Fact], weights: Mapping[str, float],
         at: datetime, exact: Mapping[str, float] | None = None,
         rescored: Mapping[str, Rescored] | None = None,
         floor: float = -1.0,
         coverage: Mapping[str, float] | None = None) -> list[Scored]:
    """The items of ``facts`` (the legs' legal candidates) scored by the rule above as of the
    cutoff ``at``, best first. An id the legs found that ``facts`` lacks (no longer legal at the
    re-read) is left out. ``exact``: each candidate's identifier count, when the caller counted
    it on every candidate (else the exact leg's score, 0 for an item it did not return).
    ``rescored``: what cut legs scored of candidates they did not return, asked by id.
    ``floor``: the embedder's cosine floor (``calibrated``). ``coverage``: the share of the
    query's terms each candidate carries (the keyword leg's relevance; without it, its
    calibrated BM25)."""
    asked = rescored or {}
    scores = {leg: {**(asked[leg].scores if leg in asked else {}), **dict(ranked)}
              for leg, ranked in legs.items()}
    share = shares(legs)
    found = []
    for i, fact in sorted(facts.items()):
        signals = {leg: scores[leg].get(i, 0.0) for leg in legs}
        if exact is not None and "exact" in legs:
            signals["exact"] = exact.get(i, 0.0)
        sim = sum(share[leg] * calibrated(leg, scores[leg][i], floor)
                  for leg in share if i in scores[leg])
        if coverage is not None and "keyword" in share:
            signals["coverage"] = coverage.get(i, 0.0)
        signals["relevance"] = sum(share[leg] * (
            signals["coverage"] if leg == "keyword" and "coverage" in signals
            else calibrated(leg, scores[leg].get(i, 0.0), floor)) for leg in share)
        signals["recency"] = SIGNAL * (K + 1) / (K + recency_rank(fact.available_at, at))
        signals["authority"] = SIGNAL * (K + 1) / (K + max(1, 1 + Authority.USER_STATEMENT
                                                           - fact.authority))
        signals["weight"] = weights.get(i, 1.0)
        fused = (sim + signals["recency"] + signals["authority"]) * signals["weight"] / SCALE
        signals["fused"] = fused
        found.append(Scored(i, signals.get("exact", 0.0) + fused, signals))
    return sorted(found, key=lambda s: (-s.score, s.id))


def recency_rank(known_from: datetime, at: datetime) -> int:
    """1 for what became known on the day of ``at``, one more for each doubling of the age."""
    days = max(0.0, (at - known_from).total_seconds() / 86400)
    return 1 + math.floor(math.log2(1 + days))
