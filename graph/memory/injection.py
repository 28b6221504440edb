"""Content that reads as instructions to the model: held as a candidate, never handed over.

A memory ends up in an agent's context (``vintage.queries.search.context``), so text that talks to
the model ("ignore all previous instructions", "you are now ...", a chat-template role tag) is a
prompt-injection path, whoever wrote it. The detector is a documented list of imperative
patterns, each with a label; it scans the key, the value and the free-text fields of a write
(subject, owner, retention reason, source version) after normalising the text (Unicode NFKC, so
full-width and compatibility letters read as plain ones; zero-width characters dropped;
whitespace runs collapsed). A hit names the pattern's label and the field, never the text, so
the decision event carries no content.

It is a heuristic, tuned to miss nothing from the list in docs/memory.md ("Instructions to the
model") and to stay quiet on ordinary preferences and facts; a hit costs a review (the memory is
a candidate), never data.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))
_TARGET = r"(?:instructions?|prompts?|rules|directions|guidelines|directives|context|messages?)"

# (label, pattern): the label is what a hold says; the pattern is searched case-insensitively
# in normalised text, ``^`` at the start of any line.
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(pattern, re.IGNORECASE | re.MULTILINE)) for label, pattern in (
        ("an order to ignore earlier instructions",
         r"\b(?:ignore|disregard|forget|override|skip|drop|abandon)\b[^.!?\n]{0,40}?"
         r"\b(?:previous|prior|above|earlier|preceding|former|all|any|your|the|these|those)\b"
         r"[^.!?\n]{0,30}?\b" + _TARGET + r"\b"),
        ("an order to disregard", r"\bdisregard\b"),
        ("a new role for the model",
         r"\byou\s+are\s+(?:now|no\s+longer)\b|\bfrom\s+now\s+on,?\s+you\b"
         r"|\bpretend\s+(?:to\s+be|you\s+are)\b|\bact\s+as\s+(?:an?\s+)?(?:unrestricted|"
         r"jailbroken|different|new)\b"),
        ("a system prompt", r"\bsystem\s+prompt\b|\bsystem\s+message\b|\bdeveloper\s+mode\b"),
        ("new instructions",
         r"\b(?:new|updated|real|actual)\s+instructions?\s*:|\bhere\s+are\s+(?:your|the|my)\s+"
         r"(?:new\s+)?instructions\b|\binstructions?\s+(?:for|to)\s+the\s+(?:model|assistant|"
         r"ai|agent|llm)\b"),
        ("a request to reveal the prompt",
         r"\b(?:reveal|print|show|repeat|output|leak)\b[^.!?\n]{0,20}\b(?:system|hidden|"
         r"initial|original)\s+(?:prompt|instructions?)\b"),
        ("an order to bypass safeguards",
         r"\b(?:bypass|disable|circumvent|turn\s+off)\b[^.!?\n]{0,20}\b(?:safety|guardrails?|"
         r"filters?|restrictions?|moderation)\b|\bjailbreak"),
        ("a chat-template role tag",
         r"<\|[a-z_]{2,20}\|>|\[/?INST\]|<</?SYS>>|</?(?:system|assistant|user|tool)>"
         r"|^\s*#{2,}\s*(?:system|instruction)s?\b|^\s*(?:system|assistant)\s*:"),
    ))


def normalised(text: str) -> str:
    """The text as the detector reads it: NFKC, no zero-width characters, one space per run
    of spaces and tabs (line breaks kept: a role tag at the start of a line counts)."""
    text = unicodedata.normalize("NFKC", text).translate(_ZERO_WIDTH)
    return re.sub(r"[ \t\f\v]+", " ", text)


def instructions_in(text: str) -> str | None:
    """The label of the first pattern ``text`` matches (None: it reads as data)."""
    plain = normalised(text)
    for label, pattern in PATTERNS:
        if pattern.search(plain):
            return label
    return None


def scan(fields: Iterable[tuple[str, object]]) -> str | None:
    """Why a write is held back: the first field whose text reads as instructions to the
    model, named with the pattern's label (never the text), or None."""
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
