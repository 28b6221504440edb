"""Number literals read exactly as written, or refused.

Python's ``float`` (and every JSON parser built on it) turns ``1e-400`` into ``0.0`` and
``1e400`` into infinity without a word: a value nobody gave. A literal whose digits are not all
zero but that reads as zero has underflowed, and one that reads as infinite has overflowed;
both are refused with the literal's own bound, as an out-of-range integer is
(``vintage.graph.core.limits``). NaN and infinity spelled out are refused by ``check_value``.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from vintage.graph.core.errors import InvalidArgument

_MANTISSA = re.compile(r"^[+-]?([0-9]*)\.?([0-9]*)")


class NumberOutOfRange(InvalidArgument, ValueError):
    """A number literal that a 64-bit float cannot hold: it would underflow to 0 or overflow."""


def strict_float(text: str) -> float:
    """``float(text)``, refusing a literal that underflows to zero or overflows to infinity."""
    value = float(text)
    if math.isinf(value) and not _spelled_infinite(text):
        raise NumberOutOfRange(f"number {_short(text)} is too large for a 64-bit float "
                               "(at most about 1.8e308)")
    if value == 0.0 and _nonzero_digits(text):
        raise NumberOutOfRange(f"number {_short(text)} is too small for a 64-bit float: it "
                               "would be stored as 0 (the smallest is about 4.9e-324)")
    return value


def loads(text: str | bytes) -> Any:
    """``json.loads`` with every fraction or exponent read by ``strict_float``."""
    return json.loads(text, parse_float=strict_float)


def _nonzero_digits(text: str) -> bool:
    found = _MANTISSA.match(text.strip())
    return found is not None and any(d in "123456789" for d in "".join(found.groups()))


def _spelled_infinite(text: str) -> bool:
    return text.strip().lstrip("+-").lower() in ("inf", "infinity")


def _short(text: str) -> str:
    # The literal is the caller's own number, not content: shown, but bounded.
    return text if len(text) <= 40 else text[:37] + "..."
