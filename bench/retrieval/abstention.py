"""How well a search says "nothing relevant" (docs/retrieval.md, "Calibrated scores and
abstention"): over the query set's answerable questions and the unanswerable ones
(``bench.retrieval.unanswerable``, English and Chinese), per mode.

* **verdict precision**: of the searches that said nothing relevant, the share asked a question
  with no legal answer (refusing an answerable question is the error it counts);
* **abstention recall**: of the questions with no legal answer, the share that said so;
* **answerable recall@5**: recall@5 of the answerable questions as answered (a refusal finds
  nothing) beside the same searches' recall@5 without the verdict (their ranked candidates,
  of which the results are the head): what the verdict costs. Refusing everything has precision
  1 and answerable recall 0: both are reported.

A question has no legal answer when its expected ids are empty: the unanswerable set's, and the
query set's own whose answer is not legal for it (a candidate not asked for, an expired memory).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from bench.retrieval.queries import Query, half

Result = dict[str, Any]
# [query id, half, answerable, best relevance (None: no answer), identifier count, category]
Record = list[Any]


def unanswerable(q: Query) -> bool:
    """A question of the unanswerable set (not of the query set)."""
    return q.category.startswith("unanswerable")


def _recall5(q: Query, ids: Sequence[str]) -> float:
    want = set(q.expected)
    return len(want & set(ids[:5])) / min(5, len(want))


def measure(rows: Sequence[tuple[Query, Any]], refused: Sequence[bool]) -> Result:
    """The figures above for answers ``rows`` (query, answer with ``ids`` and ``considered``)
    whose verdicts said nothing relevant where ``refused``."""
    answerable = [(q, a, r) for (q, a), r in zip(rows, refused, strict=True) if q.expected]
    empty = [r for (q, _), r in zip(rows, refused, strict=True) if not q.expected]
    said = sum(refused)
    right = sum(empty)
    n = len(answerable)
    return {
        "answerable": n, "unanswerable": len(empty), "said_nothing_relevant": said,
        "verdict_precision": right / said if said else None,
        "abstention_recall": right / len(empty) if empty else None,
        "answerable_refused": sum(r for _, _, r in answerable),
        "answerable_recall@5": sum(0.0 if r else _recall5(q, a.considered)
                                   for q, a, r in answerable) / n if n else None,
        "answerable_recall@5_without_verdict": sum(_recall5(q, a.considered)
                                                   for q, a, _ in answerable) / n if n else None,
    }


def abstention(rows: Sequence[tuple[Query, Any]]) -> Result:
    """The figures for the searches as the product answered them, whole, by half and by the
    unanswerable set's category, and each search's record (what ``bench.retrieval.floors``
    chooses floors on)."""
    refused = [not a.relevant and a.error is None for _, a in rows]
    out: Result = measure(rows, refused)
    halves: dict[str, list[int]] = defaultdict(list)
    cats: dict[str, list[int]] = defaultdict(list)
    for n, (q, _) in enumerate(rows):
        halves[half(q)].append(n)
        if not q.expected:
            cats[q.category].append(n)
    out["by_half"] = {h: measure([rows[i] for i in ns], [refused[i] for i in ns])
                      for h, ns in sorted(halves.items())}
    out["by_category"] = {c: {"questions": len(ns), "said_nothing_relevant": sum(
        refused[i] for i in ns)} for c, ns in sorted(cats.items())}
    out["records"] = [[q.id, half(q), bool(q.expected), a.best, a.exact, q.category]
                      for q, a in rows if a.error is None]
    return out
