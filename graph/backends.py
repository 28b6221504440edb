"""Choosing a backend from a store URI.

* ``bolt://``, ``bolt+s://``, ``neo4j://``, ``neo4j+s://`` ...: the Neo4j backend. Credentials come
  from ``NEO4J_USER`` / ``NEO4J_PASSWORD`` when set (a server without auth needs neither).
* anything else is a directory holding an embedded store (created when missing).

When no URI is given: ``$VINTAGE_STORE`` if set, else the embedded store in ``./.vintage/store``.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from graph.embedded.store import EmbeddedStore
from graph.errors import InvalidArgument
from graph.store import Clock, Store

DEFAULT_EMBEDDED_DIR = Path(".vintage") / "store"
NEO4J_SCHEMES = ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")


def system_clock() -> datetime:
    return datetime.now(UTC)


def resolve_uri(uri: str | None) -> str:
    """The store named by ``uri``, else ``$VINTAGE_STORE``, else the default directory. An
    empty name is refused: falling back to the default would write somewhere unasked."""
    for given, what in ((uri, "the store URI (--store)"),
                        (os.environ.get("VINTAGE_STORE"), "VINTAGE_STORE")):
        if given is not None:
            if not given.strip():
                raise InvalidArgument(f"{what} is empty: name a directory or a bolt:// URI")
            return given
    return str(DEFAULT_EMBEDDED_DIR)


def is_neo4j(uri: str) -> bool:
    return uri.startswith(NEO4J_SCHEMES)


def neo4j_auth() -> tuple[str, str] | None:
    password = os.environ.get("NEO4J_PASSWORD")
    return None if password is None else (os.environ.get("NEO4J_USER", "neo4j"), password)


def open_store(uri: str | None = None, clock: Clock = system_clock) -> Store:
    """Open the store named by ``uri`` and make sure its schema exists (idempotent)."""
    target = resolve_uri(uri)
    store: Store
    if is_neo4j(target):
        # Imported here: the driver loads only for a Neo4j store, never for an embedded one.
        from graph.neo4j.store import Neo4jStore

        store = Neo4jStore.connect(target, clock, auth=neo4j_auth())
    else:
        store = EmbeddedStore.open(Path(target), clock)
    store.ensure_schema()
    return store
