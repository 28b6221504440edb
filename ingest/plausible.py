"""Implausible rows, refused before anything of their file is written (docs/semantics.md,
"Implausible sources").

An observation from a filing, an earnings release or a KPI table says what a source reported
about a period. Three things are impossible for such a report, whatever the figure:

* **Public long before its period.** A source cannot report on a period more than ``LEAD``
  (92 days) before the period begins. Results of a period are known after it starts, but real
  filings carry a few forward-dated figures: NVIDIA's 10-Q filed 2013-05-22 states an
  accelerated share repurchase settling on 2013-07-28 (67 days later), the longest lead in the
  six bundled companyfacts files (82,000 rows, two such rows). One quarter keeps those, and the
  guidance a company gives the quarter before, and refuses a date off by a year or a century.
  Forecasts as such are not observations: Vintage has no kind for them.
* **Public in the future.** Nothing is known later than now: a source public after the store's
  clock plus ``CLOCK_SKEW`` (5 minutes, for clocks that disagree a little) is refused, for the
  rows a run would write (a replay window that leaves a later filing out does not trip it).
* **Two values for one assertion.** One source saying two values for the same subject, concept,
  unit and period leaves nobody able to say which it reported; taking the later row would be a
  silent choice (and companyfacts would call the difference a revision). Both rows are named.
  The same value twice is a harmless repeat. Values are compared as the engine does (``7001``
  and ``7001.0`` differ).
"""

from __future__ import annotations

from collections.abc import Hashable
from datetime import datetime, timedelta

from vintage.graph.core.model import Value

LEAD = timedelta(days=92)
CLOCK_SKEW = timedelta(minutes=5)


def too_early(available_at: datetime, valid_from: datetime) -> str | None:
    """Why a source public at ``available_at`` cannot report on a period starting at
    ``valid_from`` (None: it can)."""
    if available_at - valid_from >= -LEAD:  # (not valid_from - LEAD: year 1 has no day before)
        return None
    return (f"public on {available_at.date()}, more than {LEAD.days} days before the period "
            f"it reports on starts ({valid_from.date()}): implausible")


def from_the_future(available_at: datetime, now: datetime,
                    skew: timedelta = CLOCK_SKEW) -> str | None:
    """Why a source public at ``available_at`` cannot be known at ``now`` (None: it can)."""
    if available_at <= now + skew:
        return None
    return (f"public at {available_at.isoformat()}, later than now ({now.isoformat()}) "
            f"plus {int(skew.total_seconds())} seconds of clock skew: implausible")


class OneValue:
    """Remembers what each source said for each assertion; names the clash of a second value."""

    def __init__(self) -> None:
        self._said: dict[Hashable, tuple[int, str, Value]] = {}

    def clash(self, assertion: Hashable, source: str, row: int, value: Value) -> str | None:
        """Record ``value`` at ``row``; why it contradicts the source's earlier row, if it does."""
        earlier = self._said.setdefault((assertion, source), (row, type(value).__name__, value))
        first_row, kind, said = earlier
        if (kind, said) == (type(value).__name__, value):
            return None
        return (f"source {source} already gave {said!r} for this subject, concept, unit and "
                f"period at row {first_row}, and gives {value!r} here: one source, one value")
