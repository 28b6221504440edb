"""What the command line writes is data, never markup or terminal control.

Every value a command prints (a memory's value, an id, a subject, a key, an error message that
quotes input) goes through ``safe`` (inside rich markup, the renderers' own ``[bold]`` and
``[red]`` staying theirs) or ``visible`` (plain text), and every ``--json`` document through
``print_json``. So a value ``[/]`` prints as ``[/]`` instead of crashing rich's markup parser, a
value ``[link=...]`` is not a link, and an escape sequence in an id cannot recolour, move or
clear the user's terminal: control characters are shown as ``\\x1b``-style escapes. ``--json``
keeps every value exact (JSON escapes what it must).

Consoles come from ``console``: no emoji codes (``:smile:`` in a value stays text) and soft
wrapping, so that a line holding an id is never broken by the renderer (the terminal wraps it
and a copy of it is whole). Table columns fold what does not fit (``table``) rather than cut it
with an ellipsis: every character of an id is on screen at any width.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.highlighter import JSONHighlighter
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

# C0 (but tab and newline, which ``visible`` keeps where a value may span lines), DEL, C1, and
# the Unicode controls that reorder or split text (bidirectional overrides and isolates, marks,
# line and paragraph separators): each would let a value rewrite what the terminal shows.
_CONTROLS = frozenset([*range(0x20), 0x7F, *range(0x80, 0xA0), 0x061C, 0x200E, 0x200F,
                       0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A)])


def _shown(code: int) -> str:
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_ONE_LINE = {code: _shown(code) for code in _CONTROLS}
_LINES = {code: text for code, text in _ONE_LINE.items() if code not in (0x09, 0x0A)}
# What JSON may carry raw (it escapes only U+0000-U+001F): written as \u escapes, still JSON.
_JSON = {code: f"\\u{code:04x}" for code in _CONTROLS if code >= 0x7F}


def visible(value: object, *, lines: bool = False) -> str:
    """``value`` as text with every control character written as an escape (``\\x1b``,
    ``\\u202e``); with ``lines``, tabs and newlines stay (a table cell, a multi-line summary)."""
    return str(value).translate(_LINES if lines else _ONE_LINE)


def safe(value: object, *, lines: bool = False) -> str:
    """``visible(value)`` with rich markup escaped: for a value placed inside a markup string
    or a table cell, where ``[red]`` would otherwise be a style and ``[/]`` an error."""
    return escape(visible(value, lines=lines))


def console(*, stderr: bool = False) -> Console:
    """A console for command output: no emoji codes, no line breaks of its own in plain text."""
    return Console(stderr=stderr, emoji=False, soft_wrap=True)


def table(title: str, *columns: str) -> Table:
    """A table whose title (already ``safe``) and header are given, every column folding what
    does not fit instead of cutting it; too narrow a screen for it gets each row as a block of
    labelled lines (``Fitted``)."""
    grid = Fitted(title=title, title_justify="left")
    for column in columns:
        grid.add_column(column, overflow="fold")
    return grid


class Fitted(Table):
    """A table printed as one where each column can show its longest word (a header, a date
    range, an id, an accession) whole; on a narrower screen, which output piped at 80 columns
    is, each row is printed as a block of "header  value" lines instead, so no header or date
    is broken in the middle of a word and a value longer than the line folds (never cut)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if not self.rows or self._readable(console, options) <= options.max_width:
            yield from super().__rich_console__(console, options)
            return
        if self.title is not None:
            yield Text.from_markup(self.title) if isinstance(self.title, str) else self.title
        cells = [list(column.cells) for column in self.columns]
        for row in range(len(self.rows)):
            block = Table.grid(padding=(0, 2))
            block.add_column(style="bold", no_wrap=True)
            block.add_column(overflow="fold")
            for column, values in zip(self.columns, cells, strict=True):
                block.add_row(column.header, values[row])
            yield Text("")
            yield block

    def _readable(self, console: Console, options: ConsoleOptions) -> int:
        """The table's width with each column as wide as its longest word (rich's minimum of a
        text), with the borders and padding of the default box."""
        widest = [max(Measurement.get(console, options, cell).minimum
                      for cell in [column.header, *column.cells]) for column in self.columns]
        return sum(widest) + 3 * len(widest) + 1


def print_json(out: Console, document: str) -> None:
    """A ``--json`` document, indented (and coloured on a terminal, as rich does), with DEL and
    C1 controls written as ``\\u`` escapes: JSON may hold them raw, a terminal may obey them."""
    data: Any = json.loads(document)
    text = json.dumps(data, indent=2, ensure_ascii=False).translate(_JSON)
    out.print(JSONHighlighter()(text), soft_wrap=True)
