"""Reading rows out of a file a person gave us, and the one error that names where it went wrong.

Whatever the bytes hold, reading ends in rows or in an :class:`IngestError` naming the file, the
row and the field, never in a traceback (docs/semantics.md, "Bad input files"):

* text is UTF-8, with or without a byte-order mark; a UTF-16 file (its mark, or NUL characters)
  and bytes that are not UTF-8 are refused at the row they are in;
* a CSV field may be as long as the line holding it (Python's csv module stops at 128 KiB with
  an error that names nothing): what is too long for Vintage is refused by name, by the bounds
  of ``vintage.graph.core.limits``, after the row is read;
* a JSON-lines row is one flat object: one nested so deep that the parser runs out of stack
  is refused as such;
* a number is written as digits, a point and an exponent, nothing else: Python's ``int`` and
  ``float`` also take ``1_000``, ``٣`` and ``infinity``.
"""

from __future__ import annotations

import codecs
import csv
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from vintage.graph.core.errors import UserError
from vintage.graph.core.literals import NamedTwice, once_each
from vintage.graph.core.temporal import TimeError, parse_instant

_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"[+-]?[0-9]+")
ACCESSION = re.compile(r"^\d{10}-\d{2}-\d{6}\Z")  # an SEC filing's id, ##########-##-######
_LONGEST_INSTANT = 64  # 2018-04-24T16:05:12.123456+00:00 is 32
_SHOWN = 100  # characters of a field's name that an error shows (a JSON path can be long)


class IngestError(UserError, ValueError):
    """Malformed input; ``problems`` lists every (row, field, message) found, first ones first.

    ``written`` rows were written before the refusal: only ever after the whole file was
    checked, when another writer's commit in between made a later batch refused."""

    def __init__(self, path: Path, problems: list[tuple[int, str, str]],
                 written: int = 0) -> None:
        self.path = path
        self.problems = problems
        self.written = written
        shown = "; ".join(f"row {r}, field {_short(f)!r}: {m}" for r, f, m in problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        done = (f"; its first {written:,} rows in order of availability were written before "
                "another writer's commit made this row refused, nothing after them"
                if written else "; nothing from this file was written")
        super().__init__(f"{path}: {shown}{more}{done}")


def _short(name: str) -> str:
    return name if len(name) <= _SHOWN else f"{name[:60]}…{name[-30:]}"


def parse_number(text: str) -> int | float | None:
    """``text`` as a number when it is written as one (``-12``, ``3.5``, ``1e6``), else None."""
    if not _NUMBER.fullmatch(text):
        return None
    if not _INTEGER.fullmatch(text):
        return float(text)
    try:
        return int(text)
    except ValueError:  # more digits than Python converts (4,300): no 64-bit integer anyway
        return None


def csv_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """CSV rows as dicts by header, numbered as a person counts them (data from row 2). A
    column the header leaves unnamed (a trailing comma, as spreadsheets export) is left out
    when empty and kept under ``""`` when it holds a value (for the caller to refuse); a
    header naming a column twice is refused (keeping the last would be a silent choice)."""
    with path.open("rb") as handle, _whole_fields():
        where = [1]  # the row being read, for an error in the bytes under it
        reader = csv.reader(_text_lines(path, handle, where))
        try:
            header = next(reader, None) or []  # its errors are row 1's
            twice = sorted(name for name, n in Counter(header).items() if n > 1 and name)
            if twice:
                raise IngestError(path, [(1, name, "the header names this column twice")
                                         for name in twice])
            where[0] = 2
            for fields in reader:
                if not fields:
                    continue  # a blank line, as DictReader skipped it
                if any(fields[len(header):]):
                    raise IngestError(path, [(where[0], "-", (
                        "more fields than the header has columns: quote a value that holds "
                        "a comma"))])
                row: dict[str, Any] = {}
                for name, value in zip(header, [*fields, *[None] * len(header)], strict=False):
                    if name or (value or "").strip():
                        row[name] = value
                yield where[0], row
                where[0] += 1
        except csv.Error as exc:
            raise IngestError(path, [(where[0], "-", f"not CSV: {exc}")]) from None


def jsonl_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """JSON-lines rows, numbered by line; each must be one JSON object."""
    with path.open("rb") as handle:
        for number_, line in enumerate(_text_lines(path, handle, None), start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line, object_pairs_hook=once_each)
            except NamedTwice as exc:
                raise IngestError(path, [(number_, exc.name, (
                    "the object names this field twice"))]) from None
            except json.JSONDecodeError as exc:
                raise IngestError(path, [(number_, "-", f"bad JSON: {exc.msg}")]) from None
            except RecursionError:  # json recurses once per bracket: 100,000 overflow
                raise IngestError(path, [(number_, "-", (
                    "nested too deeply: a row is one flat JSON object of fields"))]) from None
            if not isinstance(item, dict):
                raise IngestError(path, [(number_, "-", "expected a JSON object")])
            yield number_, item


def _text_lines(path: Path, handle: IO[bytes], where: list[int] | None) -> Iterator[str]:
    """The file's lines as text; ``where[0]`` (CSV) or the line number names the row."""
    for line_number, raw in enumerate(handle, start=1):
        row = where[0] if where is not None else line_number
        if line_number == 1 and raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            raise IngestError(path, [(row, "-", "UTF-16 text: save the file as UTF-8")])
        try:
            text = raw.removeprefix(codecs.BOM_UTF8 if line_number == 1 else b"").decode("utf-8")
        except UnicodeDecodeError as exc:
            raise IngestError(path, [(row, "-", (
                f"not UTF-8 (byte {exc.start + 1} of line {line_number} is "
                f"{raw[exc.start:exc.start + 1]!r}): save the file as UTF-8"))]) from None
        if "\x00" in text:
            raise IngestError(path, [(row, "-", (
                "a NUL character: UTF-16 or binary data? save the file as UTF-8 text"))])
        yield text


@contextmanager
def _whole_fields() -> Iterator[None]:
    """Let the csv module read a field as long as its line, so that a field too long is refused
    by name afterwards; restored when the file is closed (the limit is process-wide)."""
    previous = csv.field_size_limit(sys.maxsize)
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def read_acceptance_times(path: Path) -> dict[str, datetime]:
    """A CSV of ``accession,accepted_at``: finer availability than the filed dates."""
    rows = list(csv_rows(path))
    if not rows or not {"accession", "accepted_at"} <= set(rows[0][1]):
        raise IngestError(path, [(1, "-", "expected a CSV with columns accession,accepted_at")])
    times = {}
    for number, row in rows:
        accession, text = str(row["accession"] or "").strip(), str(row["accepted_at"] or "")
        if not ACCESSION.match(accession):
            raise IngestError(path, [(number, "accession", (
                f"not an accession number (##########-##-######): {accession[:40]!r}"))])
        if len(text) > _LONGEST_INSTANT:
            raise IngestError(path, [(number, "accepted_at", (
                f"{len(text):,} characters: not an ISO datetime ({text[:40]!r}...)"))])
        try:
            times[accession] = parse_instant(text, "accepted_at")
        except TimeError as exc:
            raise IngestError(path, [(number, "accepted_at", str(exc))]) from None
    return times
