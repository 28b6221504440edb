"""Abstention: whether a search found anything relevant, read against a relevance floor per mode
(docs/retrieval.md, "Calibrated scores and abstention").

An answer is **relevant** when it carries one of the query's identifiers (an exact match: the
exact leg's count, which orders first), or its relevance (``vintage.queries.search.fusion``:
the calibrated similarity of the mode's legs, before the recency and authority signals and the
demotion weight) is at least the mode's floor. A search whose best answer is neither says
**nothing relevant**: its results are empty and its verdict names the best relevance, the floor
it fell under, the mode and the embedder. An honest "nothing known" is an answer, not an error.

The floors depend on the embedding model (a cosine of 0.3 means something else to another
model) and on the keyword terms, so they are kept per embedder name, and a model without a row
here is never judged with another model's floors: its semantic and hybrid searches are not
judged by score at all (``Verdict.judged`` is false; they answer as before floors existed, and
say so), while its exact and keyword searches keep theirs, which no embedder touches
(``KEYWORD_FLOOR``).

Two cases are not judged on the mode's floor, because the mode's own signal cannot tell:

* **No term in common.** An exact or keyword search that matched no legal item (no identifier,
  no word of the query in any item) has nothing to judge: a paraphrase shares no word with its
  answer (84 of the bench's 341 answerable questions in keyword mode), so "nothing relevant"
  would be wrong half the time. The verdict says so instead: ``matched`` is false, ``judged`` is
  false and ``relevant`` false; the answer is empty, and it does not claim that nothing relevant
  is known (``SearchResult.nothing_relevant``). A legal set that is empty is known to hold
  nothing relevant, and says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vintage.queries.search.fusion import Mode

# Relevance floors of the modes that embed, by embedder name. Chosen by ``python -m
# bench.retrieval.floors`` (docs/retrieval.md says how to rerun it) on the tuning half of
# bench/retrieval's answerable queries (queries.jsonl) and unanswerable ones (unanswerable.jsonl,
# English and Chinese), over the bench's 10k-memory corpus and the bundled filings on the
# embedded store (2026-12-06, run at dfe9e7c + this change): for each mode the highest floor
# that refuses none of the tuning half's answerable questions; read on the held-out half
# (bench/notes/issue40-abstain.md). The semantic floor is on the cosine, the hybrid floor on
# 0.9 cosine + 0.1 the share of the query's terms an item carries.
#
# multilingual-e5-small (``VINTAGE_EMBEDDER=e5``): e5 embeds about 9 texts a second on this
# project's 2-core machine, so the 10k bench (10,696 distinct texts) did not fit a session
# beside six others; its floors were chosen by the same script and rule on the languages bench
# (``python -m bench.retrieval.languages --abstention``: one user holding the 32 topics in
# English, another in Chinese, 128 answerable paraphrases and the 42 unanswerable questions
# about a user, in the same halves), where MiniLM's came out at 0.239 / 0.215 (10k: 0.207 /
# 0.184). Its cosines are calibrated from 0.7 (``cosine_floor``), so its floors are on that
# scale. They refuse little: on that set near-topic questions score as high as paraphrases
# (held-out: 3 of 20 unanswerable refused, 2 of 65 answerable; bench/notes/issue40-abstain2.md).
#
# MiniLM paired with bge-small-en (``minilm+bge``, graph/retrieval/ensemble.py): the same
# script and rule on the 10k bench, embedded store (2026-12-07, at f74127e + bge one text at a
# time): held-out hybrid precision 0.929 (26 of 65 unanswerable refused, 2 of 176 answerable),
# semantic 0.923 (bench/notes/issue40-ensemble.md). Its cosine is the mean of the two models',
# higher than MiniLM's for the same pair of texts (bge's cosines lie high): higher floors.
FLOORS: Mapping[str, Mapping[Mode, float]] = {
    "all-MiniLM-L6-v2-int8": {Mode.SEMANTIC: 0.207054, Mode.HYBRID: 0.184124},
    "all-MiniLM-L6-v2-int8+bge-small-en-int8": {Mode.SEMANTIC: 0.375047, Mode.HYBRID: 0.340265},
    "multilingual-e5-small-q4": {Mode.SEMANTIC: 0.322177, Mode.HYBRID: 0.289959},
}
# The keyword mode's floor, on the share of the query's terms an item carries, chosen by the
# same script the same way on the tuning halves of both sets: 0. The share does not separate
# (10k bench: the 55 unanswerable questions that shared a term carried 0.2-0.67 of their terms,
# the 130 answerable ones 0.12-1.0; 0.2 refused one answerable question and no unanswerable
# one), and Chinese questions, cut into 1-4 character grams, carry a small share even when
# answered (0.2 refused 20 of the languages set's 63 tuning answerable ones). So a keyword
# search that shares a term is answered, one that shares none says so (not judged), and only
# an empty legal set is "nothing relevant". The keyword leg never embeds, so this holds
# whatever the embedder. Exact mode needs none: an identifier carried is a match.
KEYWORD_FLOOR = 0.0
TEXT_ONLY = (Mode.EXACT, Mode.KEYWORD)


@dataclass(frozen=True)
class Verdict:
    """Whether anything relevant was found, and on what grounds (ids and numbers only)."""

    relevant: bool
    mode: Mode
    embedder: str | None  # the model the floor is kept for (None: the mode embeds nothing)
    floor: float | None  # None: no floor is known for this embedder (not judged by score)
    best: float | None  # the best answer's relevance (None: no answer at all)
    exact: float = 0.0  # the best answer's count of the query's identifiers
    reason: str = ""
    # False: an exact or keyword search that shared no term with any legal item (not judged).
    matched: bool = True

    @property
    def judged(self) -> bool:
        if not self.matched:
            return False
        return self.floor is not None or self.mode is Mode.EXACT

    @property
    def nothing_relevant(self) -> bool:
        """The search says nothing relevant is known (judged, and nothing relevant)."""
        return self.judged and not self.relevant

    def document(self) -> dict[str, Any]:
        """As a trace and a JSON answer carry it."""
        return {"relevant": self.relevant, "mode": self.mode.value, "embedder": self.embedder,
                "floor": self.floor, "best": None if self.best is None else round(self.best, 6),
                "exact": self.exact, "judged": self.judged, "reason": self.reason,
                "matched": self.matched}

    @classmethod
    def of(cls, doc: Mapping[str, Any]) -> Verdict:
        """Read back from ``document`` (the CLI's client reads an HTTP answer)."""
        return cls(bool(doc["relevant"]), Mode(doc["mode"]), doc.get("embedder"),
                   doc.get("floor"), doc.get("best"), float(doc.get("exact", 0.0)),
                   str(doc.get("reason", "")), bool(doc.get("matched", True)))


def floor_of(mode: Mode, embedder: str) -> float | None:
    """The mode's floor for this embedder; None where none was chosen for it. Exact: none."""
    if mode is Mode.EXACT:
        return None
    if mode is Mode.KEYWORD:
        return KEYWORD_FLOOR
    row = FLOORS.get(embedder)
    return None if row is None else row.get(mode)


NO_TERM = ("no legal item shares a term with the query: {mode} mode cannot judge relevance "
           "(a paraphrase shares no word; semantic or hybrid mode can)")


def judge(mode: Mode, embedder: str, answers: list[tuple[float, float]],
          floors: Mapping[Mode, float | None] | None = None, *, legal: int = 1) -> Verdict:
    """The verdict on a search's answers, each ``(exact count, relevance)``, best first;
    ``floors`` overrides the table (the floor-choosing script reads scores under none);
    ``legal``: how many items were legal (none: nothing relevant, whatever the mode)."""
    floor = floors.get(mode) if floors is not None else floor_of(mode, embedder)
    model = None if mode in TEXT_ONLY else embedder
    if not answers:
        if mode in TEXT_ONLY and legal > 0:
            return Verdict(False, mode, model, floor, None, 0.0,
                           NO_TERM.format(mode=mode.value), matched=False)
        return Verdict(False, mode, model, floor, None, 0.0,
                       "no legal item matched the query")
    exact = max(e for e, _ in answers)
    best = max(r for _, r in answers)
    if exact >= 1:
        return Verdict(True, mode, model, floor, best, exact, "an answer carries an identifier "
                       "the query names")
    if mode is Mode.EXACT:
        return Verdict(False, mode, model, floor, best, exact,
                       "no answer carries an identifier the query names")
    if floor is None:
        return Verdict(True, mode, model, None, best, exact,
                       f"not judged: no relevance floor is chosen for {embedder} "
                       "(python -m bench.retrieval.floors)")
    if best >= floor:
        return Verdict(True, mode, model, floor, best, exact,
                       f"best relevance {best:.3f} at or above the {mode.value} floor {floor}")
    return Verdict(False, mode, model, floor, best, exact,
                   f"best relevance {best:.3f} under the {mode.value} floor {floor}")
