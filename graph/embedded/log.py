"""The embedded store's files: a framed, append-only log, the lock that makes one process at a
time its writer, and the journal that lets an interrupted erasure finish.

Framing. Each committed transaction is one line, ``<crc32 of the JSON, 8 hex digits> <JSON>\\n``,
written with one ``write`` call and fsynced before the commit returns. A crash can only leave a
*prefix* of the last line: bytes with no final newline. So a reader tells a complete record from
a torn one without guessing: a torn tail is the transaction that never committed; a complete
line whose checksum or JSON fails is corruption, reported by file, line and byte offset, and
nothing is deleted. Lines written before framing existed (plain JSON, starting with ``{``) are
still read.

Locking. A writer holds an exclusive ``fcntl.flock`` on ``vintage.lock`` in the store directory
for the length of one transaction and writes its pid into it; a second writer waits up to a
timeout, then is refused with an error naming that pid. Readers take no lock: they read only
complete lines, so they always see a consistent prefix of the committed transactions.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vintage.graph.store.durable import write_all
from vintage.graph.store.protocol import StoreError

LOG_NAME = "vintage.log.jsonl"
LOCK_NAME = "vintage.lock"
SCRUB_JOURNAL = "vintage.scrub.json"  # an erasure's rewrite, until it is finished
LOCK_TIMEOUT_ENV = "VINTAGE_LOCK_TIMEOUT"
DEFAULT_LOCK_TIMEOUT = 30.0  # seconds a writer waits for another process's transaction


class LogCorrupt(StoreError):
    """A complete log line that does not read back: the store refuses to open rather than
    guess. Nothing is moved or deleted."""


class StoreLocked(StoreError):
    """Another process held the store's writer lock for longer than the timeout."""


def frame(entry: dict[str, Any]) -> bytes:
    body = json.dumps(entry, separators=(",", ":")).encode("utf-8")
    return b"%08x " % zlib.crc32(body) + body + b"\n"


def reframe(line: bytes) -> bytes:
    """A complete line (given without its newline) in the current framing, newline included
    (a legacy plain-JSON line is framed)."""
    return frame(json.loads(line)) if line.startswith(b"{") else line + b"\n"


def unframe(line: bytes, where: str) -> dict[str, Any]:
    """Decode one complete line (without its newline); ``where`` names it in errors."""
    try:
        if line.startswith(b"{"):  # written before framing
            entry = json.loads(line)
        else:
            crc, _, body = line.partition(b" ")
            if len(crc) != 8 or int(crc, 16) != zlib.crc32(body):
                raise LogCorrupt(f"{where}: checksum mismatch")
            entry = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise LogCorrupt(f"{where}: not a log record ({type(exc).__name__})") from exc
    if not isinstance(entry, dict) or "tenant" not in entry or "ops" not in entry:
        raise LogCorrupt(f"{where}: not a log record (no tenant and ops)")
    return entry


@dataclass
class Chunk:
    """What a read from an offset found: the complete records, where they end, and the bytes
    after them that lack a final newline (a torn tail, or an append still in progress)."""

    entries: list[dict[str, Any]]
    end: int
    lines: int
    tail: bytes


def read_from(log: Path, offset: int, first_line: int) -> Chunk:
    """The complete records of ``log`` from byte ``offset`` on (line numbers from
    ``first_line``, for errors)."""
    with log.open("rb") as f:
        f.seek(offset)
        data = f.read()
    complete, sep, tail = data.rpartition(b"\n")
    if not sep:
        return Chunk([], offset, 0, data)
    entries, at = [], offset
    for n, line in enumerate(complete.split(b"\n"), start=first_line):
        entries.append(unframe(line, f"{log}: line {n}, byte {at}"))
        at += len(line) + 1
    return Chunk(entries, at, len(entries), tail)


def set_aside(log: Path, end: int, tail: bytes) -> Path:
    """Move a torn tail out of the log into ``<log>.torn-<time>`` (kept, never deleted), then
    cut the log back to its last complete record. The caller holds the writer lock."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    for n in range(1000):  # never over an earlier one: each torn tail is kept
        aside = log.with_name(f"{log.name}.torn-{stamp}-{os.getpid()}-{n}")
        try:
            out = aside.open("xb")
        except FileExistsError:
            continue
        break
    else:
        raise StoreError(f"{log}: could not find a free name to set a torn tail aside")
    with out:
        out.write(tail)
        out.flush()
        os.fsync(out.fileno())
    with log.open("r+b") as f:
        f.truncate(end)
        f.flush()
        os.fsync(f.fileno())
    return aside


def append(log: Path, line: bytes) -> None:
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        write_all(fd, line)
    finally:
        os.close(fd)


def lock_timeout() -> float:
    raw = os.environ.get(LOCK_TIMEOUT_ENV)
    try:
        return DEFAULT_LOCK_TIMEOUT if raw is None else max(0.0, float(raw))
    except ValueError as exc:
        raise StoreError(f"{LOCK_TIMEOUT_ENV}={raw!r} is not a number of seconds") from exc


@contextlib.contextmanager
def writer_lock(directory: Path, timeout: float) -> Iterator[None]:
    """Hold the store's writer lock; wait up to ``timeout`` seconds for another process."""
    path = directory / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
                    raise StoreLocked(
                        f"the store {directory} is being written by process {holder}; waited "
                        f"{timeout:g} s (set {LOCK_TIMEOUT_ENV} to wait longer)") from None
                time.sleep(0.01)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
