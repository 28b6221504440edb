"""What an embedded store holds on disk, read past the store: its facts as the database keeps
them (sealed or not), and every byte of its files."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from vintage.graph.sqlite.schema import DB_NAME


def fact_rows(directory: Path, tenant: str) -> list[dict[str, Any]]:
    """Each fact's stored body (a sealed one as ciphertext), read on a connection of its own."""
    uri = f"file:{directory / DB_NAME}?mode=ro"
    with closing(sqlite3.connect(uri, uri=True)) as conn:
        return [json.loads(b) for (b,) in conn.execute(
            "SELECT body FROM facts WHERE tenant = ? ORDER BY id", (tenant,))]


def every_byte(directory: Path) -> bytes:
    """The store's files (database, WAL, lock) concatenated, as a grep of the disk reads them."""
    return b"".join(p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file())
