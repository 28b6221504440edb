"""Memory operations as a caller names them: a memory by subject and key in a scope (or by id),
an optional compare-and-set revision, and no instant meaning "now" on the store's clock.

The command line calls these rather than the store: each one finds the stored version it needs,
builds the draft of the write and hands it to ``remember`` / ``amend`` / ``conflicts``, which
gate, write and audit it.
"""

from __future__ import annotations

from datetime import datetime

from vintage.graph.core.kinds import SourceKind
from vintage.graph.core.model import Scope, Value
from vintage.graph.memory.amend import correct, current, draft_of
from vintage.graph.memory.conflicts import resolve
from vintage.graph.memory.gate import MemoryIn
from vintage.graph.memory.observed import check_observed
from vintage.graph.memory.promotion import (
    DEFAULT_SUCCESS_RATE,
    DEFAULT_VALIDATIONS,
    Tally,
    outcome,
    promote,
    tally,
)
from vintage.graph.memory.remember import Remembered, remember
from vintage.graph.store.protocol import Store
from vintage.graph.writes.semantics import WriteReport


def remember_checked(store: Store, m: MemoryIn, *, actor: str,
                     expected: int | None = None) -> Remembered:
    """``remember``, compared and set against ``expected`` only when one is given (without
    one, a write that loses a race is tried again)."""
    if expected is None:
        return remember(store, m, actor=actor)
    return remember(store, m, actor=actor, expected=expected)


def correct_by_id(store: Store, tenant: str, memory_id: str, value: Value, *, source_id: str,
                  observed_at: datetime | None, actor: str, consent: bool = False,
                  valid_from: datetime | None = None,
                  valid_to: datetime | None = None) -> Remembered:
    """The user's correction of the memory version they were shown (``amend.correct``),
    observed now unless ``observed_at`` says when, over the version's event time unless
    ``valid_from``/``valid_to`` restate it."""
    return correct(store, tenant, memory_id, value, source_id=source_id,
                   observed_at=observed_at or store.now(), actor=actor, consent=consent,
                   valid_from=valid_from, valid_to=valid_to)


def record_outcome(store: Store, scope: Scope, subject: str, key: str, *, task: str,
                   succeeded: bool, at: datetime | None, actor: str,
                   reporter: str | None = None) -> tuple[Remembered, Tally]:
    """An experience's outcome on ``task`` (now unless ``at``) as ``reporter`` (default: the
    actor) reports it, and the distinct tasks it has succeeded and failed on since."""
    m = draft_of(current(store, scope, subject, key), scope.tenant)
    done = outcome(store, m, task=task, succeeded=succeeded, at=at or store.now(), actor=actor,
                   reporter=reporter)
    return done, tally(store, scope.tenant, m.assertion_key())


def promote_named(store: Store, scope: Scope, subject: str, key: str, *, actor: str,
                  by_user: bool = False, source_id: str | None = None,
                  needed: int = DEFAULT_VALIDATIONS,
                  min_success_rate: float = DEFAULT_SUCCESS_RATE) -> Remembered:
    """Promote the current version of one memory; on the user's action (``by_user``) the
    user's message ``source_id``, observed now, is the source of the promotion."""
    fact = current(store, scope, subject, key)
    m = (draft_of(fact, scope.tenant, observed_at=store.now(),
                  source_kind=SourceKind.USER_MESSAGE, source_id=source_id) if by_user
         else draft_of(fact, scope.tenant))
    return promote(store, m, actor=actor, by_user=by_user, needed=needed,
                   min_success_rate=min_success_rate)


def resolve_named(store: Store, scope: Scope, subject: str, key: str, keep: Value, *,
                  source_id: str, observed_at: datetime | None, owner: str,
                  reason: str, actor: str | None = None) -> WriteReport:
    """A person's decision on a conflict set (``conflicts.resolve``), decided now unless
    ``observed_at`` says when; the actor is who runs it (default: the person deciding)."""
    check_observed(observed_at, store.now())
    return resolve(store, scope, subject, key, keep, source_id=source_id,
                   observed_at=observed_at or store.now(), owner=owner, actor=actor or owner,
                   reason=reason)
