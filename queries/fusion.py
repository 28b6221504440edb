"""How a search orders its legal candidates: reciprocal-rank fusion of its legs, a few declared
signals, and exact matches first (docs/retrieval.md, "Search: the legal set first").

Every item here is already legal: the store ranked each leg inside the legal set
(``graph.retrieval.index.SearchStore.rank``), and the search re-read the ids through the whole
as-of predicate. This module only orders them, and keeps each signal's value per item.

The rule, for an item ``d``::

    rrf(d)   = Σ over the mode's legs L holding d   vote_L / (K + rank_L(d))
    boost(d) = SIGNAL · (1 / (K + recency(d)) + 1 / (K + authority(d)))
    fused(d) = (rrf(d) + boost(d)) · weight(d)
    score(d) = exact(d) + fused(d)

with ``K = 60`` (the usual constant of reciprocal-rank fusion), ranks counted from 1 (items a
leg scores equally share the rank of the first of them: its order among them is only by id),
``vote_L = 1`` except the keyword leg's in hybrid mode, ``KEYWORD_VOTE = 0.25`` (BM25 on short
texts rewards one shared word, "paged" in a question about who is paged matching every "payment
page" note, as much as the semantic leg's best match: chosen on one half of the bench's queries,
checked on the other, docs/retrieval.md), and ``SIGNAL = 0.1``, so that a signal reorders items
the legs found about equally relevant and never lifts a weak match over a strong one (a tenth of
a whole vote: beside the keyword leg's quarter vote it can swap items a few ranks apart). The two
signals are ranks on fixed scales, so an item's boost does not depend on which other items are
candidates: ``recency(d) = 1 + floor(log2(1 + age in days))``, its age being the time from its
knowledge start to the cutoff (known that day: 1; a week before: 4; a year: 9); ``authority(d) =
6 - its authority`` (``graph.kinds.Authority``: a user's statement 1, an authoritative filing 2,
text of unknown origin 6). ``weight`` is the demotion weight (``graph.memory.ranking``, in [0,
1]): a multiplier. ``exact(d)`` is how many of the query's identifiers the item carries, in the
modes that run the exact leg: since ``fused`` stays below 1 (at most 3 legs and 2 signals, each
below 1/61), every item carrying an identifier ranks before every item carrying none, and
carrying more ranks first. Ties go by fact id.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from graph.kinds import Authority
from graph.model import Fact
from graph.retrieval.index import Hits

RRF_K = 60
KEYWORD_VOTE = 0.25
SIGNAL = 0.1
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


def vote(leg: str, legs: Collection[str]) -> float:
    """How much a rank in ``leg`` counts when ``legs`` are fused: the keyword leg's beside the
    semantic leg (hybrid) counts ``KEYWORD_VOTE``, every other 1."""
    return KEYWORD_VOTE if leg == "keyword" and "semantic" in legs else 1.0


def per_leg(limit: int) -> int:
    """How many of each leg's best the store returns: enough that the fusion of the legs'
    heads holds the ``limit`` best of every leg many times over."""
    return max(MIN_PER_LEG, 5 * limit)


def deep_enough(legs: Mapping[str, Ranked], depth: int, legal: int,
                leaders: Sequence[float], limit: int) -> bool:
    """Whether the first ``limit`` answers (``leaders``: each answer's score, best first) are
    those that fusing the legs at full depth would give: true when no leg was cut at ``depth``,
    or when the ``limit``-th answer scores above the most an item no leg returned could score
    (in each cut leg, the leg's vote over K plus the rank of its last item, which an item tied
    with it shares; the best signals; weight 1; and, when the exact leg was cut, as many
    identifiers as its last item)."""
    cut = [leg for leg, ranked in legs.items() if len(ranked) >= depth and depth < legal]
    if not cut:
        return True
    if len(leaders) < limit:
        return False
    # An item below the cut scores no more than the leg's last, so shares its rank at best.
    bound = sum(vote(leg, legs) / (RRF_K + _tied_ranks(legs[leg])[legs[leg][-1][0]])
                for leg in cut)
    bound += 2 * SIGNAL / (RRF_K + 1)
    if "exact" in cut:
        bound += legs["exact"][-1][1]
    return leaders[limit - 1] > bound


def legs_of(mode: Mode, hits: Hits) -> dict[str, Ranked]:
    """The legs the mode fuses, by name, each best first."""
    return {leg: getattr(hits, leg) for leg in LEGS[mode]}


@dataclass(frozen=True)
class Scored:
    id: str
    score: float
    signals: dict[str, float]


def fuse(legs: Mapping[str, Ranked], facts: Mapping[str, Fact], weights: Mapping[str, float],
         at: datetime, exact: Mapping[str, float] | None = None) -> list[Scored]:
    """The items of ``facts`` (the legs' legal candidates) scored by the rule above as of the
    cutoff ``at``, best first. An id the legs found that ``facts`` lacks (no longer legal at the
    re-read) is left out. ``exact``: each candidate's identifier count, when the caller counted
    it on every candidate (else the exact leg's score, 0 for an item it did not return)."""
    positions = {leg: _tied_ranks(ranked) for leg, ranked in legs.items()}
    scores = {leg: dict(ranked) for leg, ranked in legs.items()}
    if exact is not None and "exact" in legs:
        # An item the exact leg cut among its ties has the rank its count shares in that leg.
        by_count = {score: positions["exact"][i] for i, score in reversed(legs["exact"])}
        positions["exact"] = {i: by_count[n] for i, n in exact.items() if n in by_count}
    votes = {leg: vote(leg, legs) for leg in legs}
    found = []
    for i, fact in sorted(facts.items()):
        signals = {leg: scores[leg].get(i, 0.0) for leg in legs}
        if exact is not None and "exact" in legs:
            signals["exact"] = exact.get(i, 0.0)
        rrf = sum(votes[leg] / (RRF_K + pos[i]) for leg, pos in positions.items() if i in pos)
        signals["recency"] = SIGNAL / (RRF_K + recency_rank(fact.available_at, at))
        signals["authority"] = SIGNAL / (RRF_K + max(1, 1 + Authority.USER_STATEMENT
                                                     - fact.authority))
        signals["weight"] = weights.get(i, 1.0)
        fused = (rrf + signals["recency"] + signals["authority"]) * signals["weight"]
        signals["fused"] = fused
        found.append(Scored(i, signals.get("exact", 0.0) + fused, signals))
    return sorted(found, key=lambda s: (-s.score, s.id))


def recency_rank(known_from: datetime, at: datetime) -> int:
    """1 for what became known on the day of ``at``, one more for each doubling of the age."""
    days = max(0.0, (at - known_from).total_seconds() / 86400)
    return 1 + math.floor(math.log2(1 + days))


def _tied_ranks(ranked: Ranked) -> dict[str, int]:
    """Each id's rank in its leg, from 1; equal scores share the rank of the first of them, so
    that the order a leg breaks its ties in (by id) adds nothing."""
    found: dict[str, int] = {}
    previous: tuple[float, int] | None = None
    for n, (i, score) in enumerate(ranked, start=1):
        rank = previous[1] if previous is not None and previous[0] == score else n
        found[i] = rank
        previous = (score, rank)
    return found

