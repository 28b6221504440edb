"""The time vocabulary: instants, half-open intervals and the three axes' defaults.

Rules (docs/contract.md, "Three time axes"):

* every instant is a timezone-aware UTC ``datetime``; naive datetimes are refused, other offsets
  are converted to UTC;
* every interval is half-open ``[start, end)``; ``end=None`` means open (unbounded above);
  ``start=None`` means unbounded below (only for query windows, never for stored facts);
* a date alone means the start of that day, UTC.

Query vocabulary, after XTDB's ``TemporalBounds``:

* ``as_of(t)``      the instant ``t`` (an interval ``[t, t]`` read as "contains t");
* ``from_to(a, b)`` the half-open window ``[a, b)``;
* ``between(a, b)`` the closed window ``[a, b]``, for callers who mean both ends inclusive;
* ``all_time()``    no bound at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from vintage.graph.core.errors import UserError

__all__ = [
    "UTC",
    "Interval",
    "TimeError",
    "all_time",
    "as_of",
    "between",
    "day_start",
    "from_to",
    "parse_instant",
    "require_utc",
]

_ONE_MICROSECOND = timedelta(microseconds=1)


class TimeError(UserError, ValueError):
    """A value that is not a valid Vintage instant or interval."""


def require_utc(value: datetime, field: str = "instant") -> datetime:
    """Return ``value`` in UTC; refuse naive datetimes rather than guess their zone."""
    if not isinstance(value, datetime):
        raise TimeError(f"{field}: expected a datetime, got {type(value).__name__}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise TimeError(f"{field}: naive datetime {value.isoformat()} (give a UTC offset)")
    try:
        return value.astimezone(UTC)
    except OverflowError:  # 9999-12-31T23:00-05:00 is in year 10000 in UTC
        raise TimeError(f"{field}: {value.isoformat()} is outside the years 1-9999 in UTC") \
            from None


def day_start(value: date) -> datetime:
    """A calendar date as the instant it begins, UTC (how SEC ``filed`` dates are read)."""
    return datetime(value.year, value.month, value.day, tzinfo=UTC)


def parse_instant(text: object, field: str = "instant") -> datetime:
    """Parse ``YYYY-MM-DD`` (start of day, UTC) or an ISO-8601 datetime with an offset."""
    if not isinstance(text, str):  # a JSON or YAML number is not a date, whatever it counts
        raise TimeError(f"{field}: expected an ISO 8601 date or datetime as text "
                        f"(YYYY-MM-DD, or with a time and an offset), got {_kind(text)}")
    raw = text.strip()
    if not _EXTENDED.match(raw):  # 20240501 and 1700000000 would parse as something else
        raise TimeError(f"{field}: {raw[:40]!r} is not an ISO 8601 date or datetime "
                        "(YYYY-MM-DD, or YYYY-MM-DDTHH:MM:SS with an offset)")
    try:
        if len(raw) == 10:
            return day_start(date.fromisoformat(raw))
        parsed = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError as exc:
        raise TimeError(f"{field}: {raw[:40]!r} is not an ISO 8601 date or datetime "
                        "(YYYY-MM-DD, or YYYY-MM-DDTHH:MM:SS with an offset)") from exc
    return require_utc(parsed, field)


_EXTENDED = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(?:$|[T ])")


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    return f"a {type(value).__name__}"


@dataclass(frozen=True, slots=True)
class Interval:
    """A half-open interval ``[start, end)``; ``None`` bounds are unbounded."""

    start: datetime | None = None
    end: datetime | None = None

    def __post_init__(self) -> None:
        if self.start is not None:
            object.__setattr__(self, "start", require_utc(self.start, "interval start"))
        if self.end is not None:
            object.__setattr__(self, "end", require_utc(self.end, "interval end"))
        if self.start is not None and self.end is not None and self.end < self.start:
            raise TimeError(f"interval end {self.end} is before its start {self.start}")

    @property
    def is_instant(self) -> bool:
        """True for the degenerate window produced by ``as_of``: it contains exactly one point."""
        return self.start is not None and self.end is not None and self.end == self.start

    def contains(self, t: datetime) -> bool:
        if self.is_instant:
            return t == self.start
        return (self.start is None or self.start <= t) and (self.end is None or t < self.end)

    def overlaps(self, start: datetime, end: datetime | None) -> bool:
        """Does the stored half-open interval ``[start, end)`` share a point with this window?"""
        if self.is_instant:
            assert self.start is not None
            return start <= self.start and (end is None or self.start < end)
        lower_ok = self.end is None or start < self.end
        upper_ok = self.start is None or end is None or self.start < end
        return lower_ok and upper_ok


def as_of(t: datetime) -> Interval:
    """The single instant ``t``: a stored ``[a, b)`` matches iff ``a <= t < b``."""
    t = require_utc(t)
    return Interval(t, t)


def from_to(start: datetime | None, end: datetime | None) -> Interval:
    """The half-open window ``[start, end)``."""
    return Interval(start, end)


def between(start: datetime, end: datetime) -> Interval:
    """The closed window ``[start, end]``, stored as ``[start, end + 1µs)`` (the clock's grain)."""
    return Interval(start, require_utc(end) + _ONE_MICROSECOND)


def all_time() -> Interval:
    return Interval(None, None)
