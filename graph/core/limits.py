"""Bounds on what Vintage stores, in one place: every backend must hold the same values.

Integers are Neo4j's (signed 64 bits): a value outside them is refused, never rounded, so that
the embedded store cannot hold what Neo4j would reject. Every text a caller can give is bounded
(docs/semantics.md, "Limits"): ids and other names, the short texts that describe a record (a
subject's name, a filing's form, a source's title), a source's URL, and free text (values,
reasons, formulas). A text over its bound is refused, never cut: a cut value would be a value
nobody gave."""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Final

from vintage.graph.core.errors import InvalidArgument

INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1
MAX_TEXT_BYTES: Final = 16 * 1024  # a value, reason, formula or other free text, UTF-8 encoded
MAX_NAME_CHARS: Final = 512  # an id, key, predicate, unit, or a short text: a name, a form
MAX_URI_CHARS: Final = 2048  # a source's URL (what browsers and servers commonly take)

Value = bool | int | float | str

# Control characters (C0, DEL, C1): no text of a memory write, a reason or a query holds one,
# save a tab or a line break in free text. Refused where the caller gives it, never stripped,
# and never checked on a read (a store written before holds what it holds): a NUL inside a
# card number or an instruction split it past the write gates, and one in a source id broke
# every later read of its scope.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_LINE_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def check_text(text: str, *, one_line: bool = False) -> str:
    """``text`` if it holds no control character (a tab and line breaks pass in free text, not
    in a ``one_line`` name or id), else ValueError, which names no part of the text."""
    if (_LINE_CONTROL if one_line else _CONTROL).search(text):
        what = "a control character (such as NUL, a tab or a line break)" if one_line \
            else "a control character (such as NUL)"
        raise ValueError(f"holds {what}: give it without")
    return text


def required(text: str, what: str) -> str:
    """``text``, which an operation needs (a reason it logs, a task id it counts): refused
    (``InvalidArgument``, naming ``what`` and not the text) when it is blank or holds a
    control character."""
    if blank(text):
        raise InvalidArgument(f"{what} is empty (blank, NUL or invisible characters only)")
    try:
        return check_text(text)
    except ValueError as exc:
        raise InvalidArgument(f"{what} {exc}") from None


def required_name(text: str, what: str) -> str:
    """An id or name an operation needs (a source to trust): ``required``, on one line, and at
    most ``MAX_NAME_CHARS`` long, else ``InvalidArgument`` naming ``what``, not the text."""
    required(text, what)
    try:
        check_text(text, one_line=True)
    except ValueError as exc:
        raise InvalidArgument(f"{what} {exc}") from None
    if len(text) > MAX_NAME_CHARS:
        raise InvalidArgument(f"{what} is longer than {MAX_NAME_CHARS} characters "
                              f"({len(text):,}): an id, not a text")
    return text


def blank(text: str) -> bool:
    """Whether ``text`` says nothing: only white space, control characters and invisible
    format characters (zero-width spaces and joiners, bidi marks: Unicode category Cf)."""
    return not "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cf")).strip()


def check_value(value: Value) -> Value:
    """A value within the bounds above (and a number, not NaN or infinity), or ValueError."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            raise ValueError("integer outside the 64-bit range")
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ValueError("NaN and infinity are not values")
        return value
    if len(value.encode()) > MAX_TEXT_BYTES:
        raise ValueError(f"text value larger than {MAX_TEXT_BYTES} bytes")
    return value
