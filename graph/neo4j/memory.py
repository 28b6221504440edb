"""A transaction Neo4j refused for memory, said as what to change instead of retried.

Neo4j reports a transaction past its memory cap as a *transient* error, so the driver would run
the whole unit of work again and again for its retry time (30 s by default) before failing with
the same error. Raised inside the unit, :class:`TransactionTooLarge` ends it at once: the
transaction rolls back (nothing of it is written) and the message names the settings to raise
and the sizes the server reported.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

from vintage.graph.store.protocol import StoreError

MEMORY_CODES = frozenset({
    "Neo.TransientError.General.MemoryPoolOutOfMemoryError",  # a db.memory.transaction.* cap
    "Neo.TransientError.General.OutOfMemoryError",  # the JVM heap itself
})
_SIZES = re.compile(r"extra (?P<extra>[\d.]+ \w+) would use more than the limit "
                    r"(?P<limit>[\d.]+ \w+)\. Currently using (?P<used>[\d.]+ \w+)\. "
                    r"(?P<setting>[\w.]+) threshold")


class TransactionTooLarge(StoreError):
    """Neo4j refused one transaction for memory; it rolled back and wrote nothing."""


def refusal(message: str) -> str:
    """What to tell the caller, from the server's own message."""
    from vintage.graph.neo4j.build import HEAP_ENV, TX_MEMORY_ENV  # it loads the driver

    sizes = _SIZES.search(message)
    said = (f"it held {sizes['used']} and asked for {sizes['extra']} more, past the "
            f"{sizes['limit']} of {sizes['setting']}" if sizes else message.strip())
    return (
        f"Neo4j refused the transaction for memory ({said}); it rolled back and nothing was "
        f"written. Give it more: for the local server, {HEAP_ENV} (the JVM heap, default "
        f"768m) and {TX_MEMORY_ENV} (db.memory.transaction.max); on your own server, "
        "server.memory.heap.max_size, db.memory.transaction.total.max and "
        "db.memory.transaction.max")


@contextlib.contextmanager
def within_memory() -> Iterator[None]:
    # The driver is imported when a Neo4j store runs something, not with this module: the
    # refusal's class is named by every interface's error mapping (vintage.http.kinds), which
    # ``vintage mcp`` on an embedded store loads without the driver (issue 39).
    from neo4j.exceptions import Neo4jError

    try:
        yield
    except Neo4jError as exc:
        if exc.code not in MEMORY_CODES:
            raise
        raise TransactionTooLarge(refusal(exc.message or str(exc))) from exc
