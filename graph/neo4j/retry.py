"""Write transactions retried as the driver's managed ones are, except a refusal for memory.

The driver's ``execute_write`` retries every error it calls retryable for its retry time, and
Neo4j calls a transaction past its memory pool *transient*. Refused inside the unit of work,
``vintage.graph.neo4j.memory.within_memory`` turns that into ``TransactionTooLarge`` and the driver
stops; refused at commit, past the unit, the driver ran the whole transaction again and again
(a 110,000-fact cascade on the launcher's default heap: three more runs, about 55 s before
the error instead of 4, bench/RESULTS.md). Running it again cannot help: the same work
needs the same memory. So writes run here, in explicit transactions, with the driver's rule
(``is_retryable``) and its backoff (1 s, doubling, 20% jitter), and a refusal for memory
ends at once.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

import neo4j
from neo4j.exceptions import DriverError, Neo4jError

from vintage.graph.neo4j.memory import within_memory

T = TypeVar("T")


def _delays(first: float = 1.0, factor: float = 2.0, jitter: float = 0.2) -> Iterator[float]:
    delay = first
    while True:
        yield delay * (1 + random.uniform(-jitter, jitter))
        delay *= factor


def committed(session: neo4j.Session, unit: Callable[[neo4j.Transaction], T],
              retry_seconds: float) -> T:
    """``unit`` in a write transaction, committed; retried on a retryable failure until
    ``retry_seconds`` have passed since the first one, then its error is raised."""
    delays = _delays()
    first_failure: float | None = None
    while True:
        try:
            with session.begin_transaction() as tx, within_memory():
                result = unit(tx)
                tx.commit()
            return result
        except (DriverError, Neo4jError) as error:
            if not error.is_retryable():
                raise
            now = time.monotonic()
            first_failure = now if first_failure is None else first_failure
            if now - first_failure > retry_seconds:
                raise
            time.sleep(next(delays))
