"""Sensitive content a memory must not hold without explicit consent.

Each detector names a category; a refusal names the category and never echoes the text. The
detectors are deliberately conservative patterns (a missed secret is worse than a refused
sentence that merely looks like one), and they are not a substitute for a DLP service.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_SECRET = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r"|\b(?:sk|pk|rk)[-_](?:live|test|proj)?[-_]?[A-Za-z0-9]{16,}"
    r"|\bAKIA[0-9A-Z]{16}\b"
    r"|\bgh[pousr]_[A-Za-z0-9]{30,}"
    r"|\bxox[abposr]-[A-Za-z0-9-]{10,}"
    r"|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
    r"|\b(?:api[_-]?key|secret|token|password|passwd)\s*[:=]\s*\S{6,}",
    re.IGNORECASE,
)
_GOVERNMENT_ID = re.compile(
    r"\b\d{3}-\d{2}-\d{4}\b"  # US social security number
    r"|\b(?:ssn|social security|passport|national id|tax id)\b[^.\n]{0,20}\d{5,}",
    re.IGNORECASE,
)
_CARD_CANDIDATE = re.compile(r"\b(?:\d[ -]?){13,19}\b")
_HEALTH = re.compile(
    r"\b(?:diagnos(?:is|ed)|prescri(?:bed|ption)|medication|chemotherapy|hiv|cancer|diabetes|"
    r"depression|anxiety disorder|pregnan(?:t|cy)|blood pressure|therapy for|allerg(?:y|ic) to)\b",
    re.IGNORECASE,
)
_LOCATION = re.compile(
    r"-?\d{1,2}\.\d{4,}\s*,\s*-?\d{1,3}\.\d{4,}"  # latitude, longitude to ~10 m
    r"|\b\d{1,5}\s+(?:[A-Z][a-z]+\s+){1,3}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|"
    r"Lane|Ln|Drive|Dr|Court|Ct)\b",
)


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card(text: str) -> bool:
    for match in _CARD_CANDIDATE.finditer(text):
        digits = re.sub(r"\D", "", match.group())
        if 13 <= len(digits) <= 19 and _luhn(digits):
            return True
    return False


DETECTORS: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("secret (API key, token or private key)", lambda t: bool(_SECRET.search(t))),
    ("government identifier", lambda t: bool(_GOVERNMENT_ID.search(t))),
    ("payment card number", _card),
    ("health data", lambda t: bool(_HEALTH.search(t))),
    ("precise location", lambda t: bool(_LOCATION.search(t))),
)


def sensitive_categories(text: str) -> list[str]:
    """The categories of sensitive content found in ``text`` (empty: none)."""
    return [name for name, found in DETECTORS if found(text)]
