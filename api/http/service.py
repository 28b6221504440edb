"""What one running app holds: its store (one, opened at startup, closed at shutdown), its
ingest jobs and its clock.

The store is opened by the ``open_store`` the app was made with, never at import or when the
app is built. A store that does not answer at startup (Neo4j down) does not stop the service:
``/healthz`` answers, ``/readyz`` and every request answer 503 with ``Retry-After``, and each
request tries to open it again, so that the service is ready as soon as the server is.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime

from vintage.graph.retrieval.choice import deferred
from vintage.graph.retrieval.embedder import Embedder
from vintage.graph.store.protocol import Clock, Store, StoreUnreachable
from vintage.http.jobs import Jobs

# A tenant no key can name (keystring's tenant characters exclude blanks): what the readiness
# probe reads, so that it touches the server and nobody's data.
PROBE_TENANT = "vintage readiness probe"
# How long a request's Neo4j transaction is retried on transient failures before it answers
# 503 (the driver's default, 30 s, would hold each request that long while a server restarts);
# ``vintage serve`` opens its store with it.
STORE_RETRY_SECONDS = 3.0
_log = logging.getLogger("vintage.http")


def system_clock() -> datetime:
    return datetime.now(UTC)


class Service:
    def __init__(self, open_store: Callable[[], Store], clock: Clock | None = None,
                 embedder: Embedder | None = None) -> None:
        self._open = open_store
        self.clock = clock or system_clock
        self._embedder = embedder
        self.jobs = Jobs(self.clock, self.store)
        self._store: Store | None = None
        self._lock = threading.Lock()
        self._closed = False

    def start(self) -> None:
        """Open the store now if it answers (it is tried again per request if not)."""
        try:
            self.store()
        except StoreUnreachable as exc:
            _log.warning("store not reachable at startup: %s", exc)

    def store(self) -> Store:
        """The app's store, opened (and its schema made sure of) on first use."""
        with self._lock:
            if self._closed:
                raise StoreUnreachable("the service is shutting down")
            if self._store is None:
                store = self._open()
                try:
                    store.ensure_schema()  # idempotent: the store is ready once this returns
                except BaseException:
                    store.close()
                    raise
                self._store = store
            return self._store

    def embedder(self, tenant: str) -> Embedder:
        """The embedder a search of ``tenant`` uses: the one the app was made with, or the one
        the store records for the tenant (``vintage.graph.retrieval.choice``), read per
        request so that a choice made by another process holds here at once (a model loads
        on its first embed, once per process, never at startup)."""
        if self._embedder is not None:
            return self._embedder
        return deferred(self.store(), tenant)

    def probe(self) -> None:
        """A round trip to the store (``StoreUnreachable`` when it does not answer)."""
        self.store().events(PROBE_TENANT, actions=["-"])

    def stop(self) -> None:
        """Let running jobs finish (queued ones are cancelled), then close the store."""
        self.jobs.close()
        with self._lock:
            self._closed = True
            store, self._store = self._store, None
        if store is not None:
            store.close()
