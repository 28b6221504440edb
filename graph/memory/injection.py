"""Content that reads as instructions to the model: held as a candidate, never handed over.

A memory ends up in an agent's context (``vintage.queries.search.context``), so text that talks to
the model ("ignore all previous instructions", "you are now ...", "note to any AI reading
this", "AI助手请忽略...", a chat-template role tag) is a prompt-injection path, whoever wrote it,
a registered document included. The detector reads every view of the text that
``vintage.graph.memory.fold`` makes (NFKC, invisible characters dropped, look-alike letters
folded, leetspeak read, letter-spaced words joined) and matches a few families of patterns,
each in English and Chinese, over the *structure* of an instruction rather than a list of
phrases: an order to drop earlier instructions; a new role for the model; talk of its system
prompt or safeguards; a request to reveal them; new instructions; address to the assistant,
AI or model ("the assistant should always ...", "note to any AI reading this", "如果你是AI");
chat-template role tags. A hit names the family and the field, never the text, so the
decision event carries no content.

It is a heuristic, measured on a labelled set (``bench.gates``: precision and recall per
language on a held-out part, docs/memory.md); a hit costs a review (the memory is a
candidate), never data.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from vintage.graph.memory.addressing import ADDRESS_FAMILIES
from vintage.graph.memory.fold import views
from vintage.graph.memory.instructing import ORDER_FAMILIES

# (label, pattern): the label is what a hold says; each pattern is searched in every view.
FAMILIES: tuple[tuple[str, str], ...] = (*ORDER_FAMILIES, *ADDRESS_FAMILIES)
# ASCII: an English word ends where Chinese begins ("system prompt给"), which Unicode's \b
# does not see (a Chinese character is a word character to it).
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(p, re.MULTILINE | re.ASCII)) for label, p in FAMILIES)

# Letter-spaced text joined without any space (``ignoreallpreviousinstructions``): word
# boundaries are gone, so only long, unambiguous shapes are matched there.
COMPACT: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(p)) for label, p in (
        ("an order to ignore earlier instructions",
         r"(?:ignore|disregard|forget|override)(?:all|any|the|your|every|of|these|those)*"
         r"(?:previous|prior|above|earlier|preceding|foregoing)(?:instructions?|rules|prompts?|"
         r"directions|guidelines|context|messages?)"
         r"|(?:ignore|disregard|forget|drop)(?:all|your)+"
         r"(?:instructions?|rules|prompts?|guidelines|guidance)"),
        ("a new role for the model", r"youarenow|fromnowonyou|pretendtobe|pretendyouare"),
        ("a system prompt", r"systemprompt|developermode"),
        ("an order to bypass safeguards", r"jailbreak|bypass(?:the|your|all)*(?:safety|filters?)"),
    ))


# The words the patterns look for: a leet word that reads two ways takes the one found here.
VOCABULARY = frozenset(w for _, p in FAMILIES for w in re.findall(r"[a-z]{3,}", p))


def instructions_in(text: str) -> str | None:
    """The label of the first family ``text`` matches, in any view (None: it reads as data)."""
    seen, compact = views(text, VOCABULARY)
    for label, pattern in PATTERNS:
        if any(pattern.search(view) for view in seen):
            return label
    if compact is not None:
        for label, pattern in COMPACT:
            if pattern.search(compact):
                return label
    return None


def scan(fields: Iterable[tuple[str, object]]) -> str | None:
    """Why a write is held back: the first field whose text reads as instructions to the
    model, named with the family's label (never the text), or None."""
    for name, value in fields:
        if isinstance(value, str):
            label = instructions_in(value)
            if label is not None:
                return f"its {name} reads as instructions to the model ({label})"
    return None


def scan_write(*, key: str, value: object, subject: str, owner: str | None,
               retention_reason: str | None, source_version: str | None = None) -> str | None:
    """``scan`` over the fields of a memory write (or of a stored version, to promote it)."""
    return scan((("key", key), ("value", value), ("subject", subject), ("owner", owner),
                 ("retention reason", retention_reason), ("source version", source_version)))
