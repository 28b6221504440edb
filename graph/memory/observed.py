"""When a memory was observed must be a time that could be true: not in the future beyond a
small clock skew, and not before a sane floor.

An observed time starts the memory's knowledge interval. One far in the future (2099, 9999)
would make the value invisible now and refuse every real correction as out of order; one in
year 1 would be before any message was ever sent. Both are refused before anything is
written, naming the field and the bound.

The skew is the store clock's tolerance for a writer whose clock runs a little ahead: five
minutes unless the caller gives ``clock_skew`` or ``VINTAGE_CLOCK_SKEW`` says so (seconds).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

from vintage.graph.core.errors import InvalidArgument

FLOOR = datetime(1900, 1, 1, tzinfo=UTC)
DEFAULT_SKEW = timedelta(minutes=5)
SKEW_VARIABLE = "VINTAGE_CLOCK_SKEW"


class ObservedOutOfRange(InvalidArgument):
    """An observed time in the future (beyond the clock skew) or before ``FLOOR``."""


def clock_skew(given: timedelta | None = None) -> timedelta:
    """The skew allowed into the future: ``given``, else ``VINTAGE_CLOCK_SKEW`` (seconds), else
    five minutes."""
    if given is not None:
        if given < timedelta(0):
            raise InvalidArgument(f"clock_skew: {given} is negative")
        return given
    raw = os.environ.get(SKEW_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_SKEW
    try:
        seconds = float(raw)
    except ValueError:
        raise InvalidArgument(f"{SKEW_VARIABLE}: {raw!r} is not a number of seconds") from None
    if not 0 <= seconds <= 86_400:
        raise InvalidArgument(f"{SKEW_VARIABLE}: {raw} is not between 0 and 86400 seconds")
    return timedelta(seconds=seconds)


def check_observed(at: datetime | None, now: datetime, *, field: str = "observed_at",
                   skew: timedelta | None = None) -> None:
    """Refuse ``at`` outside ``[FLOOR, now + skew]``; ``None`` passes (the gate names it)."""
    if at is None:
        return
    if at < FLOOR:
        raise ObservedOutOfRange(f"{field} {at.isoformat()} is before {FLOOR.date()}, the "
                                 f"earliest observed time accepted")
    allowed = clock_skew(skew)
    if at > now + allowed:
        raise ObservedOutOfRange(
            f"{field} {at.isoformat()} is in the future: later than now "
            f"({now.isoformat()}) plus the allowed clock skew of {allowed.total_seconds():g} s "
            f"({SKEW_VARIABLE})")
