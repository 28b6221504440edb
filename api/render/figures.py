"""How every table and line shows a figure and an instant: one format for the whole command
line (``asof``, ``facts``, ``history``, ``search``, ``explain``, ``impact``, the demo), so the
same fact reads the same wherever it appears. ``--json`` and ``--format csv``
(``vintage.render.rows``) keep every digit.
"""

from __future__ import annotations

from datetime import datetime

from vintage.render.terminal import safe


def when(t: datetime | None) -> str:
    """A date when the instant is a UTC midnight, else the whole instant; ``open`` for none."""
    if t is None:
        return "open"
    return t.date().isoformat() if t.time() == datetime.min.time() else t.isoformat()


def number(value: object, unit: str | None) -> str:
    """A value and its unit for a table or a line, markup-safe (both are data): whole numbers
    of a million or more in millions (``7,001M USD``), other numbers as written, floats to two
    decimals."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 1_000_000:
        shown = f"{value / 1_000_000:,.0f}M {unit or ''}"
    elif isinstance(value, float):
        shown = f"{value:,.2f} {unit or ''}"  # display only; --json keeps every digit
    else:
        shown = f"{value} {unit or ''}"
    return safe(shown.strip(), lines=True)
