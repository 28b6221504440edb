"""Durable file writes, for every file Vintage keeps itself (the embedded log, the key file):
a write continued until whole, then fsynced; a directory fsynced after a rename in it."""

from __future__ import annotations

import os
from pathlib import Path


def write_all(fd: int, data: bytes) -> None:
    """Write ``data`` whole (a short write is continued: a crash leaves a prefix, never a
    hole) and fsync it."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.fsync(fd)


def fsync_dir(directory: Path) -> None:
    """Make a rename (or a new file) in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
