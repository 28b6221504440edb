"""Choosing a backend from a store URI.

* ``bolt://``, ``bolt+s://``, ``neo4j://``, ``neo4j+s://`` ...: the Neo4j backend. Credentials come
  from ``NEO4J_USER`` / ``NEO4J_PASSWORD`` when set (a server without auth needs neither).
* anything else is a directory holding an embedded store (created when missing): SQLite
  (``vintage.graph.sqlite``).

When no URI is given: ``$VINTAGE_STORE`` if set, else the embedded store in ``./.vintage/store``.

Every store opened here seals agent memory at rest (``vintage.graph.sealing.sealed``) with the data
keys of a key file outside it: ``$VINTAGE_KEYS`` if set, else ``<store directory>.keys`` beside an
embedded store (``./.vintage/store.keys``), or ``./.vintage/keys/neo4j-<host>-<port>.keys`` for a
Neo4j server (set ``VINTAGE_KEYS`` to one path that every client of the server shares). A key file
inside the embedded store's directory is refused: a copy of the store would carry its keys.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

from vintage.graph.core.errors import InvalidArgument
from vintage.graph.sealing.keyfile import FileKeyStore
from vintage.graph.sealing.sealed import KeyStore
from vintage.graph.sqlite.store import SqliteStore
from vintage.graph.store.protocol import Clock, Store

DEFAULT_EMBEDDED_DIR = Path(".vintage") / "store"
DEFAULT_KEYS_DIR = Path(".vintage") / "keys"
KEYS_ENV = "VINTAGE_KEYS"
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


def checked_neo4j_uri(uri: str) -> str:
    """``uri`` when the driver can take it, else one line saying why. A user name or password
    in it is refused without repeating it: the URI is named by every error about the store
    (and the driver's own messages quote it whole); credentials go in ``NEO4J_USER`` and
    ``NEO4J_PASSWORD``."""
    try:
        parts = urlsplit(uri)
        parts.port  # noqa: B018 (reading it is the check: a port outside 0-65535 raises)
    except ValueError:
        raise InvalidArgument("the store URI (--store) is not a valid bolt:// or neo4j:// URI "
                              "(a host, and a port from 1 to 65535)") from None
    if "@" in parts.netloc:
        raise InvalidArgument("the store URI (--store) carries a user name or password: give "
                              "them in NEO4J_USER and NEO4J_PASSWORD, never in the URI")
    if not parts.hostname:
        raise InvalidArgument("the store URI (--store) names no host: bolt://HOST:PORT")
    return uri


def neo4j_auth() -> tuple[str, str] | None:
    password = os.environ.get("NEO4J_PASSWORD")
    return None if password is None else (os.environ.get("NEO4J_USER", "neo4j"), password)


def key_path(target: str) -> Path:
    """The key file of the store ``target``: ``$VINTAGE_KEYS``, else the default (above)."""
    given = os.environ.get(KEYS_ENV)
    if given is not None:
        if not given.strip():
            raise InvalidArgument(f"{KEYS_ENV} is empty: name the store's key file")
        path = Path(given)
    elif is_neo4j(target):
        address = urlsplit(target).netloc.rpartition("@")[2] or "default"
        path = DEFAULT_KEYS_DIR / f"neo4j-{address.replace(':', '-')}.keys"
    else:
        store = Path(target).resolve()
        path = store.with_name(store.name + ".keys")
    if not is_neo4j(target) and path.resolve().is_relative_to(Path(target).resolve()):
        raise InvalidArgument(f"the key file {path} lies inside the store {target}: keep it "
                              "outside, or a copy of the store carries the keys to its content")
    return path


def open_store(uri: str | None = None, clock: Clock = system_clock,
               keys: KeyStore | None = None, retry_seconds: float | None = None) -> Store:
    """Open the store named by ``uri`` and make sure its schema exists (idempotent). Memory is
    sealed with ``keys``, by default the key file of ``key_path``. ``retry_seconds`` bounds
    how long a Neo4j transaction is retried on transient failures (the driver's 30 s when
    None)."""
    target = resolve_uri(uri)
    if is_neo4j(target):
        checked_neo4j_uri(target)
    keys = keys if keys is not None else FileKeyStore(key_path(target))
    store: Store
    if is_neo4j(target):
        # Imported here: the driver loads only for a Neo4j store, never for an embedded one.
        from vintage.graph.neo4j.store import Neo4jStore

        store = Neo4jStore.connect(target, clock, auth=neo4j_auth(), keys=keys,
                                   retry_seconds=retry_seconds)
    else:
        store = SqliteStore.open(Path(target), clock, keys)
    store.ensure_schema()
    return store
