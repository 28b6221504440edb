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
FLOORS: Mapping[str, Mapping[Mode, float]] = {
    "all-MiniLM-L6-v2-int8": {Mode.SEMANTIC: 0.207054, Mode.HYBRID: 0.184124},
}
# The keyword mode's floor, on the share of the query's terms an item carries, chosen by the
# same script the same way. The keyword leg never embeds, so it holds whatever the embedder (a
# change to the keyword terms, such as Chinese segmentation, is a reason to choose it again).
# Exact mode needs none: an identifier carried is a match.
KEYWORD_FLOOR = 0.2
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

    @property
    def judged(self) -> bool:
        return self.floor is not None or self.mode is Mode.EXACT

    def document(self) -> dict[str, Any]:
        """As a trace and a JSON answer carry it."""
        return {"relevant": self.relevant, "mode": self.mode.value, "embedder": self.embedder,
                "floor": self.floor, "best": None if self.best is None else round(self.best, 6),
                "exact": self.exact, "judged": self.judged, "reason": self.reason}

    @classmethod
    def of(cls, doc: Mapping[str, Any]) -> Verdict:
        """Read back from ``document`` (the CLI's client reads an HTTP answer)."""
        return cls(bool(doc["relevant"]), Mode(doc["mode"]), doc.get("embedder"),
                   doc.get("floor"), doc.get("best"), float(doc.get("exact", 0.0)),
                   str(doc.get("reason", "")))


def floor_of(mode: Mode, embedder: str) -> float | None:
    """The mode's floor for this embedder; None where none was chosen for it. Exact: none."""
    if mode is Mode.EXACT:
        return None
    if mode is Mode.KEYWORD:
        return KEYWORD_FLOOR
    row = FLOORS.get(embedder)
    return None if row is None else row.get(mode)


def judge(mode: Mode, embedder: str, answers: list[tuple[float, float]],
          floors: Mapping[Mode, float | None] | None = None) -> Verdict:
    """The verdict on a search's answers, each ``(exact count, relevance)``, best first;
    ``floors`` overrides the table (the floor-choosing script reads scores under none)."""
    floor = floors.get(mode) if floors is not None else floor_of(mode, embedder)
    model = None if mode in TEXT_ONLY else embedder
    if not answers:
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
