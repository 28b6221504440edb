"""Keys verified a moment ago, so that scrypt runs once per key per ``ttl``, not per request.

Entries are held per store object (a key verified against one store says nothing of another)
under the sha256 of the key string (the key itself is never held), expire after ``ttl``
seconds of the process's monotonic clock, and are dropped at once when this process revokes
the key. A revocation made by another process reaches this one when the entry expires: that
delay, at most ``ttl``, is the price of keeping scrypt off the hot path. Failures are never
cached, so a key created elsewhere works at once.
"""

from __future__ import annotations

import hashlib
import threading
import time
import weakref
from collections.abc import Callable

from vintage.graph.access.principal import Principal
from vintage.graph.store.protocol import Store

TTL_SECONDS = 30.0
MAX_ENTRIES = 4096


class KeyCache:
    def __init__(self, ttl: float = TTL_SECONDS, clock: Callable[[], float] = time.monotonic,
                 max_entries: int = MAX_ENTRIES) -> None:
        self.ttl, self.clock, self.max_entries = ttl, clock, max_entries
        self._lock = threading.Lock()
        self._stores: weakref.WeakKeyDictionary[Store, dict[str, tuple[Principal, float]]] = (
            weakref.WeakKeyDictionary())

    def get(self, store: Store, key: str) -> Principal | None:
        digest = _digest(key)
        with self._lock:
            held = self._stores.get(store, {})
            found = held.get(digest)
            if found is None:
                return None
            principal, until = found
            if self.clock() >= until:
                del held[digest]
                return None
            return principal

    def put(self, store: Store, key: str, principal: Principal) -> None:
        with self._lock:
            held = self._stores.setdefault(store, {})
            if len(held) >= self.max_entries:  # the oldest entry goes (dicts keep order)
                del held[next(iter(held))]
            held[_digest(key)] = (principal, self.clock() + self.ttl)

    def forget(self, tenant: str, key_id: str) -> None:
        """Drop the key from every store's entries: another store object of this process may
        open the same database."""
        with self._lock:
            for held in self._stores.values():
                for digest in [d for d, (p, _) in held.items()
                               if (p.tenant, p.key_id) == (tenant, key_id)]:
                    del held[digest]

    def clear(self) -> None:
        with self._lock:
            self._stores.clear()


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


VERIFIED = KeyCache()  # this process's cache, used unless a caller passes its own
