"""The deterministic answer step: what an agent answers from what it was handed.

The rule (docs/eval.md, "The answer rule"), so that the ladder measures memory, not a model:

1. If the context says that nothing relevant is known, the answer is a refusal.
2. The candidates are the handed items about the asked subject and key (and, for a financial
   figure, whose valid window is the asked period), in the order shown.
3. None: a refusal. Two or more sides of an open conflict with different values: the answer is
   the conflict (no side picked). Otherwise: the value of the first.

The outcome compares it with the expectation: ``right``, ``wrong``, ``refused`` (a value was
expected), ``refused-right`` (nothing was known and the answer said so), ``should-have-refused``
(a value was given where the right answer was a refusal), ``unscored`` (the ask expects no
answer, only retrieval and context checks).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from vintage.queries.eval import scenario as sc
from vintage.queries.eval.rungs import Handed


class Outcome(StrEnum):
    RIGHT = "right"
    WRONG = "wrong"
    REFUSED = "refused"
    REFUSED_RIGHT = "refused-right"
    SHOULD_HAVE_REFUSED = "should-have-refused"
    UNSCORED = "unscored"


GOOD = frozenset({Outcome.RIGHT, Outcome.REFUSED_RIGHT})


@dataclass(frozen=True)
class Answer:
    kind: str  # "value", "refused" or "conflict"
    values: tuple[Any, ...] = ()


# What answers from a context: the rule below, or an opt-in model (vintage.queries.eval.chat).
Answerer = Callable[[Handed, sc.Ask], "Answer"]


def answer(handed: Handed, a: sc.Ask) -> Answer:
    if handed.nothing_relevant:
        return Answer("refused")
    period = None if a.period is None else tuple(sc._utc(x) for x in a.period)
    targets = [i for i in handed.items
               if (a.subject is None or i.subject == a.subject)
               and (a.key is None or i.key == a.key)
               and (period is None or i.valid == period)]
    if not targets:
        return Answer("refused")
    # Keyed by repr: values of any JSON type, and 1 and True stay two sides.
    sides = {repr(t.value): t.value for t in targets if t.status == "conflicted"}
    if len(sides) > 1:
        return Answer("conflict", tuple(sides.values()))
    return Answer("value", (targets[0].value,))


def outcome(given: Answer, a: sc.Ask) -> Outcome:
    want = a.expect
    if want.refusal:
        return Outcome.REFUSED_RIGHT if given.kind == "refused" else Outcome.SHOULD_HAVE_REFUSED
    if given.kind == "refused":
        return (Outcome.REFUSED if want.conflict or want.answers() is not None
                else Outcome.UNSCORED)
    if want.conflict:
        return Outcome.RIGHT if given.kind == "conflict" else Outcome.WRONG
    accepted = want.answers()
    if accepted is None:
        return Outcome.UNSCORED
    if given.kind == "value" and any(same(given.values[0], x) for x in accepted):
        return Outcome.RIGHT
    return Outcome.WRONG


def same(got: Any, want: Any) -> bool:
    """Equal as a reader means it: numbers to nine significant digits, text trimmed."""
    if isinstance(got, bool) or isinstance(want, bool):
        return got is want
    if isinstance(got, int | float) and isinstance(want, int | float):
        return math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(got, str) and isinstance(want, str):
        return got.strip() == want.strip()
    return bool(got == want)
