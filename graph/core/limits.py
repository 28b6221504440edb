"""Bounds on what Vintage stores, in one place: every backend must hold the same values.

Integers are Neo4j's (signed 64 bits): a value outside them is refused, never rounded, so that
the embedded store cannot hold what Neo4j would reject. Every text a caller can give is bounded
(docs/semantics.md, "Limits"): ids and other names, the short texts that describe a record (a
subject's name, a filing's form, a source's title), a source's URL, and free text (values,
reasons, formulas). A text over its bound is refused, never cut: a cut value would be a value
nobody gave."""

from __future__ import annotations

import math
from typing import Final

INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1
MAX_TEXT_BYTES: Final = 16 * 1024  # a value, reason, formula or other free text, UTF-8 encoded
MAX_NAME_CHARS: Final = 512  # an id, key, predicate, unit, or a short text: a name, a form
MAX_URI_CHARS: Final = 2048  # a source's URL (what browsers and servers commonly take)

Value = bool | int | float | str


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
