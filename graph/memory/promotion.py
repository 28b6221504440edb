"""An experience's outcomes, and promotion from candidate to active.

Outcomes are self-reported, so each one records who reported it (``reporter`` on its event,
beside the actor), and failures count against promotion as much as successes count for it.

The rule (``promote``): an experience is promoted when it succeeded on at least ``needed``
distinct tasks (default 2) *and* its success rate is at least ``min_success_rate`` (default
0.75), where the rate is ``successes / (successes + failures)`` over the distinct tasks of each
result reported for the current version. A task counts at most once as a success and at most
once as a failure (a task that failed and later succeeded counts on both sides), so repeating a
report never moves the rate. A user's explicit action promotes any candidate regardless.

Where outcomes live: a success on a task is a support of the version from a ``tool_result``
source ``outcome:<task>@<version id>`` (one source per version and task, so a corrected
experience starts with no validations and a repeated report is a retry); a failure is an
``outcome`` event naming the version. Both events carry ``task``, ``result`` and ``reporter``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.kinds import SourceKind, Status
from vintage.graph.core.limits import required
from vintage.graph.memory.gate import Decision, MemoryIn, MemoryKind, Verdict, refused, same_value
from vintage.graph.memory.injection import scan_write
from vintage.graph.memory.observed import check_observed
from vintage.graph.memory.remember import (
    Remembered,
    current_version,
    decide,
    remember,
    write_verdict,
)
from vintage.graph.memory.said import RETRY
from vintage.graph.memory.sensitive import sensitive_categories
from vintage.graph.store.protocol import Store, StoreTx

DEFAULT_VALIDATIONS = 2
DEFAULT_SUCCESS_RATE = 0.75
OUTCOME = "outcome"  # the action of a failure's event


@dataclass(frozen=True)
class Tally:
    """The distinct tasks an experience's current version succeeded and failed on."""

    succeeded: int
    failed: int

    @property
    def rate(self) -> float:
        reported = self.succeeded + self.failed
        return self.succeeded / reported if reported else 0.0


def outcome(store: Store, m: MemoryIn, *, task: str, succeeded: bool, at: datetime,
            actor: str, reporter: str | None = None) -> Remembered:
    """An experience's outcome on ``task``, reported by ``reporter`` (default: the actor). A
    success supports the current version; a failure is an ``outcome`` event; both count."""
    check_observed(at, store.now(), field="at")
    required(task, "the task id")  # distinct tasks promote: a blank one is no task
    if reporter is not None:
        required(reporter, "the reporter")
    for what, text in (("the task id", task), ("the reporter", reporter)):
        # Both are kept in the outcome's event (and a success's source id): a card number or
        # a password pasted there would stay in the audit for good.
        found = sensitive_categories(text, minted=True) if text is not None else []
        if found:
            raise InvalidArgument(f"{what} holds sensitive content ({', '.join(found)}): "
                                  "name it without")
    key = m.assertion_key()
    current, _ = current_version(store, m.tenant, key)
    if m.kind is not MemoryKind.EXPERIENCE:
        return decide(store, m, key, refused("only experiences take outcomes"), None, actor)
    if current is None or not same_value(current.value, m.value):
        return decide(store, m, key, refused("an outcome is reported on the current version "
                                             "of an experience; this one is not current"),
                      current, actor)
    result = "succeeded" if succeeded else "failed"
    note = {"task": task, "result": result, "reporter": reporter or actor,
            "memory": current.id, "reported_at": at.isoformat()}
    if not succeeded:
        held = Decision.ACTIVE if current.status is Status.ACTIVE else Decision.CANDIDATE
        return decide(store, m, key, Verdict(held, f"failed on task {task}: counts against "
                                                   "promotion"), current, actor, note, OUTCOME)
    evidence = m.model_copy(update={"source_kind": SourceKind.TOOL_RESULT,
                                    "source_id": f"outcome:{task}@{current.id}",
                                    "source_version": None, "observed_at": at,
                                    "authority": None})
    done = remember(store, evidence, actor=actor, note=note)
    if done.decision is not Decision.DUPLICATE or done.reason == RETRY:
        return done  # a refusal, or the same report again: a repeat (HTTP 200), counted once
    # The gate calls a success "the same value from another source" (it is a support); the
    # caller asked for an outcome, so it hears what that support means, and the version's
    # status, not "duplicate".
    held = Decision.ACTIVE if current.status is Status.ACTIVE else Decision.CANDIDATE
    return replace(done, decision=held,
                   reason=f"succeeded on task {task}: counts toward promotion")


def tally(store: Store, tenant: str, key: str) -> Tally:
    """Distinct tasks the current version of an experience succeeded on (its ``outcome:``
    supports still held) and failed on (its ``outcome`` events)."""
    fact, _ = current_version(store, tenant, key)
    if fact is None:
        return Tally(0, 0)
    succeeded = {s.source_id for s in store.supports(tenant, [fact.id])
                 if s.source_id.startswith("outcome:")}
    failed = {str(e.details.get("task")) for e in store.events(tenant, [OUTCOME])
              if e.details.get("memory") == fact.id and e.details.get("result") == "failed"}
    return Tally(len(succeeded), len(failed))


def validations(store: Store, tenant: str, key: str) -> int:
    """Distinct tasks an experience's current version succeeded on."""
    return tally(store, tenant, key).succeeded


def promote(store: Store, m: MemoryIn, *, actor: str, by_user: bool = False,
            needed: int = DEFAULT_VALIDATIONS,
            min_success_rate: float = DEFAULT_SUCCESS_RATE) -> Remembered:
    """Candidate to active: an experience that meets the rule above, or any candidate on an
    explicit user action (``m`` then names the user's message as its source). Task state is
    never promoted."""
    if needed < 1 or not 0.0 <= min_success_rate <= 1.0:
        raise InvalidArgument(f"promotion needs at least 1 task and a success rate in [0, 1] "
                              f"(got {needed} and {min_success_rate})")
    key = m.assertion_key()
    current, _ = current_version(store, m.tenant, key)
    if current is None or current.status is not Status.CANDIDATE:
        return decide(store, m, key, refused("nothing candidate to promote"), current, actor)
    if m.kind is MemoryKind.TASK_STATE:
        return decide(store, m, key, refused("task state is never promoted"), current, actor)
    held = None if by_user else scan_write(
        key=current.predicate, value=current.value, subject=current.subject,
        owner=current.owner, retention_reason=current.retention_reason)
    if held is not None:  # self-reported outcomes never clear it: a person must
        return decide(store, m, key, refused(f"held back: {held}; only the user's explicit "
                                             "action promotes it"), current, actor)
    if not by_user and m.kind is not MemoryKind.EXPERIENCE:  # outcomes are an experience's
        return decide(store, m, key, refused(
            f"a candidate {m.kind.value} is promoted by the user's explicit action only "
            "(--by-user --source-id MESSAGE); task outcomes promote experiences"),
            current, actor)
    seen = tally(store, m.tenant, key)
    if not by_user and (seen.succeeded < needed
                        or seen.rate < min_success_rate):
        return decide(store, m, key, refused(
            f"promotion needs successes on {needed} distinct tasks (has {seen.succeeded}) and "
            f"a success rate of at least {min_success_rate:.0%} (has {seen.rate:.0%}: "
            f"{seen.succeeded} succeeded, {seen.failed} failed), or a user action"),
            current, actor)
    verdict = Verdict(Decision.ACTIVE, "promoted by the user" if by_user else
                      f"promoted: succeeded on {seen.succeeded} distinct tasks, failed on "
                      f"{seen.failed}", Status.ACTIVE)
    update: dict[str, object] = {"value": current.value}
    if not by_user:  # the validation itself is the source, public now
        update.update(source_kind=SourceKind.TOOL_RESULT, source_id=f"validated:{current.id}",
                      source_version="outcomes", observed_at=store.now(), authority=None)
    draft = m.model_copy(update=update)

    def work(tx: StoreTx) -> Remembered:
        tx.lock_subjects([m.subject])  # the compare-and-set on the revision seen decides
        return write_verdict(tx, store.now(), draft, key, verdict, actor, current,
                             current.revision)

    return store.write(m.tenant, work)
