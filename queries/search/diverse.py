"""Diversity: a memory whose key an answer above it already has steps down (docs/retrieval.md,
"Search: the legal set first", its paragraph "Diversity").

Why: in a shared scope (a project read with its members' notes) one kind of note is said by many
people. Each "Wants the status summary on Wednesdays" of the project's members scores the same
for "current incident responder" (a cosine of 0.15-0.22 with all-MiniLM-L6-v2), and five of them
filled the first five places above the project's own on-call note (0.12-0.16): the agent got five
copies of one fact about five people, and not the note asked about (bench/notes/
issue40-recall.md). Maximal marginal relevance (Carbonell and Goldstein, SIGIR 1998) orders by
relevance less a redundancy term; here the redundancy is structural and exact, the memory key
(``report.day``, ``shipping.address``), not a second similarity: it costs nothing to compute, the
same on both stores, and says why an item moved.

The rule, over the answers in fused order (an answer: an item, or a conflict set with its sides,
which moves as one): an answer is taken greedily, best **diversified score** first, where

    diversified(d) = exact(d) + max(0, fused(d) − DIVERSITY)   if d is a memory whose key an
                                                                answer already taken has,
    diversified(d) = score(d) = exact(d) + fused(d)             otherwise;

ties keep the fused order. The penalty applies once, however many answers share the key, and only
to the fused part, so an item carrying more of the query's identifiers still ranks first (the
exact tiers never cross). Only memories (a user, project or thread scope:
``vintage.graph.retrieval.documents.is_memory``): a business fact's concept repeats over its
periods, and the question names the period (two quarters of one figure are two answers, as
``checks.collapse`` keeps them). ``signals["diversity"]`` records what was subtracted.

``DIVERSITY = 0.07`` is in fused units (a cosine difference of about 0.085 in hybrid mode): the
smallest value of the grid 0.01-0.5 that reached the best recall@5 and MRR on the tuning half of
the bench's queries (``bench.retrieval.queries.half``), read on the held-out half
(bench/notes/issue40-recall.md). The diversified scores are non-increasing in the order taken (a
penalty only lowers a score), so the search's depth check (``fusion.deep_enough``) reads the
limit-th answer's diversified score as its floor: an item no leg returned, scored at most without
a penalty, still cannot reach the results.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import replace

from vintage.graph.core.model import Fact
from vintage.graph.retrieval.documents import is_memory
from vintage.queries.search.checks import Checked
from vintage.queries.search.fusion import Scored

DIVERSITY = 0.07


def diversified(c: Checked) -> float:
    """The score an answer was taken at: its fused score less the penalty it carries."""
    return c.scored.score - c.scored.signals.get("diversity", 0.0)


def diversify(considered: Sequence[Checked],
              memory: Callable[[Fact], bool] = is_memory) -> list[Checked]:
    """``considered`` (``checks.arrange``'s order: each conflict set's sides together, first side
    first) ordered by the rule above; a penalised answer's first item carries
    ``signals["diversity"]``."""
    groups = _groups(considered)
    keys = [g[0].fact.predicate if memory(g[0].fact) else None for g in groups]
    # A lazy heap: an entry pushed before its key was taken is pushed again, penalised, when it
    # comes up; a penalty only lowers a score, so nothing else can have overtaken it.
    heap = [(-g[0].scored.score, n, 0.0) for n, g in enumerate(groups)]
    heapq.heapify(heap)
    taken: set[str] = set()
    out: list[Checked] = []
    while heap:
        _, n, penalty = heapq.heappop(heap)
        head, key = groups[n][0], keys[n]
        if key is not None and key in taken and not penalty:
            fused = head.scored.signals.get("fused", 0.0)
            cut = fused - max(0.0, fused - DIVERSITY)
            if cut > 0:
                heapq.heappush(heap, (-(head.scored.score - cut), n, cut))
                continue
        if key is not None:
            taken.add(key)
        out += _penalised(groups[n], penalty)
    return out


def _groups(considered: Sequence[Checked]) -> list[list[Checked]]:
    """Each answer with the later sides of its conflict set (they follow it: ``arrange``)."""
    groups: list[list[Checked]] = []
    for c in considered:
        if groups and c.fact.id in groups[-1][0].conflicts_with:
            groups[-1].append(c)
        else:
            groups.append([c])
    return groups


def _penalised(group: list[Checked], penalty: float) -> list[Checked]:
    if not penalty:
        return group
    head = group[0]
    signals = {**head.scored.signals, "diversity": penalty}
    return [replace(head, scored=Scored(head.scored.id, head.scored.score, signals)), *group[1:]]
