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

_INT64_DIGITS = len(str(2**63))  # 19: a longer literal is outside -2**63..2**63-1 for sure
_MANTISSA = re.compile(r"^[+-]?([0-9]*)\.?([0-9]*)")


class Refused(InvalidArgument, ValueError):
    """A JSON text well formed but not taken: said in one line, nothing of it kept."""


class NumberOutOfRange(Refused):
    """A number literal that a 64-bit float cannot hold: it would underflow to 0 or overflow."""


class NestedTooDeep(Refused):
    """Arrays or objects nested deeper than the parser's recursion reaches."""


class NamedTwice(Refused):
    """An object naming one member twice: ``json`` keeps the last, a silent choice."""

    def __init__(self, name: str) -> None:
        super().__init__(f"a JSON object names {_short(name)!r} twice: give it once")
        self.name = name


def once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json``'s ``object_pairs_hook``: an object whose members are each named once, else
    ``NamedTwice``."""
    found: dict[str, Any] = {}
    for name, value in pairs:
        if name in found:
            raise NamedTwice(name)
        found[name] = value
    return found


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


def strict_int(text: str) -> int:
    """``int(text)``, refusing a literal longer than any 64-bit integer before converting it:
    Python refuses over 4,300 digits with its own ValueError, and a long one costs quadratic
    time to convert."""
    if len(text.lstrip("+-")) > _INT64_DIGITS:
        raise NumberOutOfRange(f"integer {_short(text)} is outside the 64-bit range "
                               f"(at most {_INT64_DIGITS} digits)")
    return int(text)


def loads(text: str | bytes) -> Any:
    """``json.loads`` with every fraction or exponent read by ``strict_float``, and every
    integer by ``strict_int``; an object naming a member twice, and nesting deeper than the
    parser can follow, are refused (not the last member kept, not a RecursionError)."""
    try:
        return json.loads(text, parse_float=strict_float, parse_int=strict_int,
                          object_pairs_hook=once_each)
    except RecursionError:
        raise NestedTooDeep("JSON nested too deeply to read (arrays or objects inside one "
                            "another by the thousand)") from None


def _nonzero_digits(text: str) -> bool:
    found = _MANTISSA.match(text.strip())
    return found is not None and any(d in "123456789" for d in "".join(found.groups()))


def _spelled_infinite(text: str) -> bool:
    return text.strip().lstrip("+-").lower() in ("inf", "infinity")


def _short(text: str) -> str:
    # The literal is the caller's own number, not content: shown, but bounded.
    return text if len(text) <= 40 else text[:37] + "..."
