"""What a pack's text says of the items the cascade closed (docs/semantics.md, "Staleness"): a
closed item that the read would have matched, and that no evidence item of the pack answers for
(same subject and key), is said in the text after the evidence, naming the premise, when and by
what, so an agent handed the text alone learns why nothing answers. Never the closed value: a
notice is not evidence. Said only within the budget: the notices that fit, first ones first
(the trace lists every one either way)."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence

from vintage.queries.lineage.staleness import Stale
from vintage.queries.search.items import Counter, Format, one_line

TITLE = "## Closed (a premise changed; not evidence)"


def unanswered(closed: Sequence[Stale], answered: Collection[tuple[str, str]]) -> list[Stale]:
    """The closed items no handed item answers for (by subject and key)."""
    return [c for c in closed if (c.item_subject, c.item_key) not in answered]


def said(text: str, fmt: Format, notices: Sequence[Stale], counter: Counter,
         budget: int) -> tuple[str, tuple[str, ...]]:
    """``text`` with as many of ``notices`` as fit in ``budget``, and the ids said."""
    for n in range(len(notices), 0, -1):
        longer = _with(text, fmt, notices[:n])
        if counter.count(longer) <= budget:
            return longer, tuple(c.item for c in notices[:n])
    return text, ()


def _with(text: str, fmt: Format, notices: Sequence[Stale]) -> str:
    if fmt is Format.MARKDOWN:
        lines = [one_line(f"- {c.item_subject} {c.item_key}: closed; {c.phrase()} | explain "
                          f"{c.item}") for c in notices]
        return "\n".join([text, TITLE, *lines])
    # The JSON pack ends its evidence list and the document with "]}": the list goes between.
    docs = ",\n".join(one_line(json.dumps(c.document(), ensure_ascii=False,
                                          separators=(",", ":"))) for c in notices)
    return text[:-1] + ',\n"closed":[\n' + docs + "]}"
