"""Write transactions retried as the driver's managed ones are, except a refusal for memory.

The driver's ``execute_write`` retries every error it calls retryable for its retry time, and
Neo4j calls a transaction past its memory pool *transient*. Refused inside the unit of work,
``vintage.graph.neo4j.memory.within_memory`` turns that into ``TransactionTooLarge`` and the driver
stops; refused at commit, past the unit, the driver ran the whole transaction again and again
(a 110,000-fact cascade on the launcher's default heap: three more runs, about 55 s before
the error instead of 4, bench/RESULTS.md). Running it again cannot help: the same work
needs the same memory. So writes run here, in explicit transactions, with the driver's rule
(``is_retryable``) and its backoff (1 s, doubling, 20% jitter), and a refusal for memory
ends at once. The driver's other errors that a store call meets are named here too: a
uniqueness violation behind a retried failure, a server that does not answer.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

import neo4j
from neo4j.exceptions import (
    ConstraintError,
    DriverError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
)

from vintage.graph.neo4j.memory import within_memory
from vintage.graph.store.protocol import StoreUnreachable

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


def constraint_error(exc: BaseException | None) -> ConstraintError | None:
    """The uniqueness violation behind ``exc``, following its cause and context chain."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, ConstraintError):
            return exc
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return None


@contextlib.contextmanager
def answering(uri: str) -> Iterator[None]:
    """A server that does not answer is a ``StoreUnreachable``, not the driver's exception."""
    try:
        yield
    except (ServiceUnavailable, SessionExpired) as exc:
        raise StoreUnreachable(
            f"the Neo4j store at {uri} does not answer ({type(exc).__name__}); is the server "
            "running? (`vintage neo4j start` starts the local one)") from exc
