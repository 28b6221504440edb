"""Instants that order what one process makes: the wall clock's nanoseconds, never repeated
nor going back within the process.

An event id begins with one (``vintage.graph.core.model.new_event_id``). Events come back in
``(at, id)`` order, and the state an event log decides (a memory's weight, a source's or a
tool's registration, the embedder choice) is its latest event's: with random ids, events of
one instant (a pinned clock, a coarse one) came back in any order, so a demotion or a
withdrawal could read as older than the one it followed. Ids made in order sort in that
order, in one process and across processes on one clock.
"""

from __future__ import annotations

import threading
import time

_last = [0]
_lock = threading.Lock()


def stamp() -> int:
    """The wall clock's nanoseconds, later than every stamp this process made before."""
    with _lock:
        _last[0] = max(_last[0] + 1, time.time_ns())
        return _last[0]
