"""Streaming a companyfacts file into its fact rows, whatever the bytes hold.

A file is ``.json`` or ``.json.gz``, UTF-8 with or without a byte-order mark. The parser's
events are walked with our own path stack rather than ``ijson.parse``'s prefixes: a prefix is
rebuilt for every event, so a document nested 100,000 deep costs it time and memory that grow
with the square of the depth (gigabytes, until the process is killed). A real file nests rows
seven levels deep (``facts.TAXONOMY.CONCEPT.units.UNIT[i]``); past ``MAX_DEPTH`` the file is
refused. Every way the bytes can fail is a :class:`StreamError` with a message for the user.
"""

from __future__ import annotations

import codecs
import gzip
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import ijson  # type: ignore[import-untyped]

MAX_DEPTH = 16
_CLOSE = ("end_map", "end_array")
_HEADER = ("cik", "entityName")


class StreamError(Exception):
    """The bytes are not a companyfacts document; the message says how."""


@contextmanager
def opened(path: Path) -> Iterator[IO[bytes]]:
    if path.suffix == ".gz":
        with gzip.open(path, "rb") as unzipped:
            yield unzipped  # type: ignore[misc]  # GzipFile is a binary IO
    else:
        with path.open("rb") as plain:
            yield plain


def items(handle: IO[bytes], header: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(``facts.us-gaap.Revenues.units[USD][i]``, row) pairs, as the parser reaches them;
    ``cik`` and ``entityName`` go into ``header``."""
    try:
        yield from _items(_Unmarked(handle), header)
    except UnicodeDecodeError as exc:
        raise StreamError(f"not UTF-8 ({exc.reason} at byte {exc.start + 1} of a chunk): save "
                          "the file as UTF-8") from None
    except (ijson.JSONError, OSError, EOFError, zlib.error) as exc:
        # A truncated gzip raises EOFError, damaged compressed data zlib.error.
        said = exc.args[0] if exc.args else exc
        text = said.decode(errors="replace") if isinstance(said, bytes) else str(said)
        if "invalid bytes in UTF8" in text:
            raise StreamError("not UTF-8 (invalid bytes in a string): save the file as "
                              "UTF-8") from None
        raise StreamError(f"bad JSON: {' '.join(text.split())[:80]}") from None


def _items(handle: _Unmarked, header: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    path: list[str] = []  # where the parser is: map keys, and "item" inside an array
    row: dict[str, Any] | None = None
    row_depth = 0
    counts: dict[str, int] = {}
    for event, value in ijson.basic_parse(handle, use_float=True):
        if event in _CLOSE:
            path.pop()
            if row is not None and len(path) == row_depth:
                prefix = ".".join(path)
                n = counts[prefix] = counts.get(prefix, -1) + 1
                yield f"{prefix[:-5].replace('.units.', '.units[', 1)}][{n}]", row
                row = None
        elif event == "map_key":
            path[-1] = value
        elif event in ("start_map", "start_array"):
            if len(path) >= MAX_DEPTH:
                raise StreamError(f"nested more than {MAX_DEPTH} levels deep: a companyfacts "
                                  "row sits at facts.TAXONOMY.CONCEPT.units.UNIT[i]")
            prefix = ".".join(path)
            if (row is None and event == "start_map" and prefix.startswith("facts.")
                    and prefix.endswith(".item")):
                row, row_depth = {"_path": prefix.split(".")}, len(path)
            path.append("item" if event == "start_array" else "")
        elif row is not None:
            row[path[-1]] = value
        elif event in ("string", "number") and len(path) == 1 and path[0] in _HEADER:
            header[path[0]] = value


class _Unmarked:
    """``handle`` without a UTF-8 byte-order mark; a UTF-16 one is refused."""

    def __init__(self, handle: IO[bytes]) -> None:
        self._handle = handle
        self._head: bytes | None = None

    def read(self, size: int = -1) -> bytes:
        if size == 0:  # ijson reads nothing first, to learn whether the file gives bytes
            return b""
        if self._head is None:
            head = self._handle.read(3)
            if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
                raise StreamError("UTF-16 text: save the file as UTF-8")
            self._head = head.removeprefix(codecs.BOM_UTF8)
        if self._head:
            head, self._head = self._head, b""
            return head
        return self._handle.read(size)
