"""Building an agent's context from memory, and recording that it was built.

The context is what ``recall`` returns for a subject now (active and explicitly conflicted
memories, never candidates), highest ranking weight first, cut at ``limit``. Building it records
an injection event naming every memory version handed over and every visible one the limit
cut, for the thread it is built for (ids only); the audit can then tell an agent's echo of those
memories from evidence. Candidates and everything outside the scope or the as-of instant are
never considered: the hard filters run in the store first.

A context never carries hindsight (docs/contract.md, "No look-ahead"): it is built from
``recall`` with ``hindsight=False``, so each memory's ``known_until`` is open, never the time
of a correction not yet known; no caller can ask for more, since ``build_context`` takes no
hindsight argument, and its ``Context`` holds only those views, a count and event ids.
"""

from __future__ import annotations

from dataclasses import dataclass

from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.model import Scope
from vintage.graph.memory.ranking import record_injection
from vintage.graph.store.protocol import Store
from vintage.queries.memory.recall import MemoryView, recall

DEFAULT_LIMIT = 20


@dataclass(frozen=True)
class Context:
    injection_id: str  # the event that records what was injected
    thread: str
    memories: tuple[MemoryView, ...]
    left_out: int  # memories that ranked below the limit


def build_context(store: Store, scope: Scope, subject: str, *, thread: str,
                  limit: int = DEFAULT_LIMIT, actor: str, all_scopes: bool = False) -> Context:
    """The context for ``thread`` from ``subject``'s memories in ``scope`` (a user, project
    or thread; every scope of the tenant only with ``all_scopes``, audited)."""
    if limit < 1:
        raise InvalidArgument("a context holds at least one memory")
    found = recall(store, scope, subject, hindsight=False,  # an agent never sees hindsight
                   all_scopes=all_scopes, actor=actor, read="context")
    chosen = tuple(found[:limit])
    event_id = record_injection(store, scope.tenant, thread=thread, subject=subject,
                                memory_ids=[m.id for m in chosen],
                                left_out=[m.id for m in found[limit:]], actor=actor)
    return Context(event_id, thread, chosen, len(found) - len(chosen))
