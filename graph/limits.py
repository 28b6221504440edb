"""Bounds on what Vintage stores, in one place: every backend must hold the same values.

Integers are Neo4j's (signed 64 bits): a value outside them is refused, never rounded, so that
the embedded store cannot hold what Neo4j would reject."""

from __future__ import annotations

from typing import Final

INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1
MAX_TEXT_BYTES: Final = 16 * 1024  # a value, reason or other free text, UTF-8 encoded
MAX_NAME_CHARS: Final = 512  # an id, key, predicate or other name
