"""The default key store: one local file per deployment, outside the database and its log.

Each line is a JSON record, appended with one ``write`` and fsynced: ``{"id", "key"}`` creates a
key (the first record of an id wins, so two processes racing on one id share a key), ``{"mark"}``
records that a key is about to be destroyed, ``{"gone", "at"}`` that it was. Destroying rewrites
the whole file without the keys (a temporary file, fsynced, renamed over it, the directory
fsynced): the key bytes leave the file, and every ciphertext under them, wherever it was
copied, can no longer be read. The tombstone keeps the instant, so a backup restored later
reads its sealed facts as erased rather than failing. The bytes of the old file may linger in
free blocks of the file system until they are overwritten (see docs/semantics.md, "Erasure and
the disk").

Every change happens under ``fcntl.flock`` on ``<file>.lock`` (appends too, so none is lost to
a concurrent rewrite); readers take no lock and read complete lines only. The file is created
with mode 0600 in a directory of mode 0700.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import secrets
import threading
from collections.abc import Collection, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from vintage.graph.sealing.sealed import KEY_BYTES
from vintage.graph.store.durable import fsync_dir, write_all
from vintage.graph.store.protocol import StoreError


class KeyFileCorrupt(StoreError):
    """A complete line of the key file that does not read back."""


class FileKeyStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.where = f"the key file {path}"
        self._thread = threading.RLock()
        self._keys: dict[str, bytes] = {}
        self._gone: dict[str, datetime] = {}
        self._marks: set[str] = set()
        self._inode: int | None = None
        self._offset = 0

    # -- reading -------------------------------------------------------------------------------

    def _refresh(self) -> None:
        """Catch up with the file: its new complete lines, or all of it after a rewrite."""
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            self._reset(None)
            return
        if stat.st_ino != self._inode:
            self._reset(stat.st_ino)
        if stat.st_size == self._offset:
            return
        with self.path.open("rb") as f:
            f.seek(self._offset)
            data = f.read()
        complete, sep, _ = data.rpartition(b"\n")
        if not sep:
            return
        for n, line in enumerate(complete.split(b"\n")):
            self._apply(line, n)
        self._offset += len(complete) + 1

    def _reset(self, inode: int | None) -> None:
        self._keys, self._gone, self._marks = {}, {}, set()
        self._inode, self._offset = inode, 0

    def _apply(self, line: bytes, n: int) -> None:
        try:
            record: dict[str, Any] = json.loads(line)
            if "key" in record:
                if record["id"] not in self._keys:  # the first key of an id wins
                    self._keys[record["id"]] = base64.b64decode(record["key"])
                    self._gone.pop(record["id"], None)
            elif "mark" in record:
                self._marks.add(record["mark"])
            else:
                self._keys.pop(record["gone"], None)
                self._marks.discard(record["gone"])
                self._gone[record["gone"]] = datetime.fromisoformat(record["at"])
        except (ValueError, KeyError, TypeError) as exc:
            raise KeyFileCorrupt(f"{self.path}: record {n + 1} after byte {self._offset} does "
                                 f"not read ({type(exc).__name__})") from exc

    def get(self, key_id: str) -> bytes | None:
        with self._thread:
            if key_id not in self._keys:
                self._refresh()  # another process may have created it since
            return self._keys.get(key_id)

    def destroyed(self, key_id: str) -> datetime | None:
        with self._thread:
            self._refresh()
            return self._gone.get(key_id)

    def marked(self) -> set[str]:
        with self._thread:
            self._refresh()
            return set(self._marks)

    # -- changes -------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """The thread lock and the file lock, with the cache caught up under them."""
        with self._thread:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(self.path.with_name(self.path.name + ".lock"),
                         os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                self._refresh()
                yield
            finally:
                os.close(fd)  # closing releases the lock

    def _append(self, records: list[dict[str, Any]]) -> None:
        if not records:
            return
        data = _lines(records)
        created = not self.path.exists()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            if os.fstat(fd).st_size > self._offset:  # a torn line of a crashed writer
                os.ftruncate(fd, self._offset)
            write_all(fd, data)
        finally:
            os.close(fd)
        if created:
            fsync_dir(self.path.parent)
        self._refresh()

    def create(self, key_ids: Sequence[str]) -> None:
        with self._locked():
            fresh = dict.fromkeys(i for i in key_ids if i not in self._keys)
            self._append([{"id": i, "key": base64.b64encode(secrets.token_bytes(KEY_BYTES))
                           .decode("ascii")} for i in fresh])

    def mark(self, key_ids: Collection[str]) -> None:
        with self._locked():
            self._append([{"mark": i} for i in sorted(set(key_ids))
                          if i in self._keys and i not in self._marks])

    def destroy(self, key_ids: Collection[str], at: datetime) -> None:
        with self._locked():
            doomed = {i for i in key_ids if i in self._keys}
            if not doomed and not self._marks & set(key_ids):
                return
            keep = [{"id": i, "key": base64.b64encode(k).decode("ascii")}
                    for i, k in self._keys.items() if i not in doomed]
            marks = [{"mark": i} for i in sorted(self._marks - set(key_ids))]
            gone = {**{i: t.isoformat() for i, t in self._gone.items()},
                    **dict.fromkeys(doomed, at.isoformat())}
            records = [*keep, *marks, *({"gone": i, "at": t} for i, t in sorted(gone.items()))]
            fresh = self.path.with_name(self.path.name + ".new")
            fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                write_all(fd, _lines(records))
            finally:
                os.close(fd)
            os.replace(fresh, self.path)
            fsync_dir(self.path.parent)
            self._refresh()


def _lines(records: Sequence[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in records)


