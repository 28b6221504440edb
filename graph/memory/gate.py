"""Agent memory: what a memory write carries, and the gate that decides what becomes of it.

A memory is a fact about a subject (``user:42``) under a key (``shipping.preference``), held in
the caller's scope (tenant, and user / project / thread where given). Its valid time starts at
``MEMORY_EPOCH`` so that one (scope, subject, key) is one assertion whose versions form its
history; a TTL ends it on the valid axis (``expires_at``). The gate is pure: given the draft and
the memory's current version, it returns the decision and why (``remember`` writes it).

Authority, highest first (``vintage.graph.core.model.Authority``): the user's own statement; an
authoritative document or tool result; a summary a person approved; a multi-turn inference; a
single model guess; text of unknown origin. A source kind's authority is a ceiling a caller may
lower, never raise.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from vintage.graph.core.kinds import Authority, FactKind, SourceKind, Status, capped_authority
from vintage.graph.core.model import (
    Fact,
    Name,
    Scope,
    UtcInstant,
    Value,
    assertion_key,
    check_value,
)
from vintage.graph.memory import experience
from vintage.graph.memory.injection import scan_write
from vintage.graph.memory.scoping import subject_refusal
from vintage.graph.memory.sensitive import sensitive_write
from vintage.graph.memory.tools import tool_version_of

MEMORY_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
REQUIRED = ("source_kind", "source_id", "observed_at", "owner", "retention_reason")
NOT_EVIDENCE = frozenset({SourceKind.AGENT_OUTPUT})
# 100 years of 365.25 days: longer means no expiry (omit the TTL); unbounded overflows dates.
MAX_TTL_SECONDS = 36525 * 24 * 3600


class MemoryKind(StrEnum):
    PREFERENCE = "preference"
    FACT = "fact"
    EXPERIENCE = "experience"
    TASK_STATE = "task_state"
    INFERENCE = "inference"


FACT_KIND: dict[MemoryKind, FactKind] = {
    MemoryKind.PREFERENCE: FactKind.PREFERENCE,
    MemoryKind.FACT: FactKind.OBSERVATION,
    MemoryKind.EXPERIENCE: FactKind.EXPERIENCE,
    MemoryKind.TASK_STATE: FactKind.TASK_STATE,
    MemoryKind.INFERENCE: FactKind.INFERENCE,
}
MEMORY_KIND = {v: k for k, v in FACT_KIND.items()}


class Decision(StrEnum):
    ACTIVE = "active"
    CANDIDATE = "candidate"
    REFUSED = "refused"
    DUPLICATE = "duplicate"
    CONFLICT = "conflict"


def memory_scope(tenant: str, user: str | None = None, project: str | None = None,
                 thread: str | None = None) -> Scope:
    """A memory's scope: the tenant, and the user, project and thread that are given."""
    keys = {k: v for k, v in (("user", user), ("project", project), ("thread", thread)) if v}
    return Scope(tenant=tenant, keys=keys)


def memory_key(scope: Scope, subject: str, key: str) -> str:
    """A memory's assertion key: one (scope, subject, key) is one assertion, whose versions
    form its history."""
    return assertion_key(scope, subject, key, MEMORY_EPOCH, None, None)


class MemoryIn(BaseModel):
    """One memory write. The four reviewer fields (source, observed time, owner, retention
    reason) are optional here so that a write missing one is *refused by the gate* (an audited
    decision naming the field) rather than rejected as malformed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: MemoryKind
    tenant: Name
    subject: Name
    key: Name
    value: Value
    source_kind: SourceKind | None = None
    source_id: str | None = None
    source_version: str | None = None
    observed_at: UtcInstant | None = None
    owner: str | None = None
    retention_reason: str | None = None
    user: str | None = None
    project: str | None = None
    thread: str | None = None
    ttl_seconds: int | None = None
    evidence: tuple[str, ...] = ()
    consent: bool = False
    authority: Authority | None = None  # lower than the source kind's ceiling, never higher
    # A tool_result's tool and its version (vintage.graph.memory.tools): registered, they give
    # the result its authority; the version is the source's version, given either way.
    tool: str | None = None
    tool_version: str | None = None

    @field_validator("value")
    @classmethod
    def _checked(cls, value: Value) -> Value:
        return check_value(value)

    @field_validator("ttl_seconds")
    @classmethod
    def _ttl_bounded(cls, ttl: int | None) -> int | None:
        if ttl is not None and not 0 < ttl <= MAX_TTL_SECONDS:
            raise ValueError(f"a TTL is 1 to {MAX_TTL_SECONDS} seconds (100 years); got {ttl}; "
                             "omit it for a memory that does not expire")
        return ttl

    @model_validator(mode="after")
    def _canonical(self) -> MemoryIn:
        object.__setattr__(self, "source_version", tool_version_of(
            self.source_kind, self.tool, self.tool_version, self.source_version))
        if self.kind is MemoryKind.EXPERIENCE:  # one experience, one text
            object.__setattr__(self, "value", experience.canonical(self.value))
        try:
            self.expires_at  # noqa: B018 (computed here once, so that it cannot fail later)
        except OverflowError:
            raise ValueError("observed_at plus ttl_seconds lies after the year 9999") from None
        return self

    def assertion_key(self) -> str:
        return memory_key(self.scope(), self.subject, self.key)

    def scope(self) -> Scope:
        return memory_scope(self.tenant, self.user, self.project, self.thread)

    def missing(self) -> str | None:
        for name in REQUIRED:
            value = getattr(self, name)
            if value is None or (isinstance(value, str) and not value.strip()):
                return name
        return None

    @property
    def effective_authority(self) -> Authority:
        assert self.source_kind is not None
        return capped_authority(self.source_kind, self.authority)

    @property
    def expires_at(self) -> datetime | None:
        if self.ttl_seconds is None or self.observed_at is None:
            return None
        return self.observed_at + timedelta(seconds=self.ttl_seconds)


@dataclass(frozen=True)
class Verdict:
    decision: Decision
    reason: str
    status: Status | None = None  # the status a written version gets (None: nothing written)

    @property
    def writes(self) -> bool:
        return self.status is not None


def refused(reason: str) -> Verdict:
    return Verdict(Decision.REFUSED, reason)


def same_value(a: Value, b: Value) -> bool:
    """Equal and of one type: ``1`` and ``True`` are different memories."""
    return a == b and type(a) is type(b)


def gate(m: MemoryIn, current: Fact | None, current_sources: Collection[str],
         rivals: Sequence[Fact] = (), *, hold: str | None = None) -> Verdict:
    """The decision for ``m`` given the memory's current version (None: none yet), the
    sources that support it and, when it is conflicted, the other sides of its open set.
    ``hold`` is a reason found outside the draft to hold it as a candidate (an unregistered
    document source, ``vintage.graph.memory.trust``)."""
    missing = m.missing()
    if missing is not None:
        return refused(f"missing field {missing!r}: every memory carries its source, observed "
                       "time, owner and retention reason")
    misplaced = subject_refusal(m.subject, m.user, m.project, m.thread)
    if misplaced is not None:
        return refused(misplaced)
    if not m.consent:  # every free-text field, the key included
        found = sensitive_write(dict(m))
        if found:
            return refused(f"sensitive content ({found}): not stored without explicit consent")
    wanted = _by_kind(m)
    if isinstance(wanted, Verdict):
        return wanted
    # Held for review: a candidate at most, and never a change to a memory that answers.
    held = hold or scan_write(key=m.key, value=m.value, subject=m.subject, owner=m.owner,
                              retention_reason=m.retention_reason,
                              source_version=m.source_version)
    wanted = Status.CANDIDATE if held else wanted
    if current is None:
        return _noted(Verdict(Decision(wanted.value), f"new {m.kind.value}", wanted), held)
    assert m.observed_at is not None
    repeat = same_value(current.value, m.value) and (
        m.source_id in current_sources or m.source_kind in NOT_EVIDENCE)
    if m.observed_at < current.available_at and not repeat:
        return refused(f"observed at {m.observed_at.isoformat()}, before the current version "
                       f"(known from {current.available_at.isoformat()}): an out-of-order "
                       "write changes nothing; correct the current version instead")
    if held and current.status is not Status.CANDIDATE and not repeat:
        return refused(f"held back: {held}; it cannot change a memory that answers")
    if current.status is Status.CONFLICTED:
        return _in_conflict(m, wanted, current, current_sources, rivals)
    return _noted(_against(m, wanted, current, current_sources), held)


def _noted(verdict: Verdict, held: str | None) -> Verdict:
    if held is None or verdict.status is not Status.CANDIDATE:
        return verdict
    return Verdict(verdict.decision, f"{verdict.reason}; held as a candidate: {held}",
                   verdict.status)


def _by_kind(m: MemoryIn) -> Status | Verdict:
    authority = m.effective_authority
    if m.kind is MemoryKind.TASK_STATE:
        if not m.thread:
            return refused("task state lives with its thread: give a thread")
        if m.ttl_seconds is None:
            return refused("task state needs a TTL")
        return Status.ACTIVE
    if m.kind is MemoryKind.FACT:
        if authority < Authority.AUTHORITATIVE or m.source_kind is SourceKind.USER_MESSAGE \
                or not m.source_version:
            return refused("a business fact needs an authoritative document or tool result "
                           "with a version")
        return Status.ACTIVE
    if m.kind is MemoryKind.INFERENCE:
        if not m.evidence:
            return refused("an inference needs its evidence (the memories it rests on)")
        return Status.CANDIDATE
    if m.kind is MemoryKind.EXPERIENCE:
        try:
            experience.parse(m.value)
        except experience.NotAnExperience as exc:
            return refused(str(exc))
        return Status.CANDIDATE  # validated by outcomes on distinct tasks, then promoted
    return Status.ACTIVE if authority >= Authority.USER_STATEMENT else Status.CANDIDATE


def _against(m: MemoryIn, wanted: Status, current: Fact,
             current_sources: Collection[str]) -> Verdict:
    authority, held = m.effective_authority, Authority(current.authority)
    echo = m.source_kind in NOT_EVIDENCE
    if same_value(current.value, m.value):
        if m.source_id in current_sources or echo:
            why = ("agent output repeating a memory is not evidence: no support added" if echo
                   else "the same write again (same source): one memory")
            return Verdict(Decision.DUPLICATE, why)
        if current.status is Status.CANDIDATE and wanted is Status.ACTIVE and m.kind not in (
                MemoryKind.EXPERIENCE, MemoryKind.TASK_STATE):
            return Verdict(Decision.ACTIVE, "promoted: confirmed by a source that makes it "
                                            "active on its own", Status.ACTIVE)
        if current.status is Status.CANDIDATE:  # authority does not add up
            return Verdict(Decision.DUPLICATE, "the same value from another source: support "
                           "added; still a candidate (agreeing sources that could not make it "
                           "active alone never promote it)", current.status)
        return Verdict(Decision.DUPLICATE, "the same value from another source: support added",
                       current.status)
    if echo:
        return refused("agent output cannot change a memory")
    if authority < held:
        return refused(f"a {m.source_kind and m.source_kind.value} source ({authority.name}) "
                       f"cannot override a memory held with authority {held.name}")
    if authority == held and authority is not Authority.USER_STATEMENT \
            and current.status is Status.ACTIVE and wanted is Status.ACTIVE:
        return Verdict(Decision.CONFLICT, "equal authority, different value, no rule to "
                                          "choose: for review")
    why = "a later correction by the user" if authority is Authority.USER_STATEMENT else (
        "a higher-authority source" if authority > held else "a later candidate")
    return Verdict(Decision(wanted.value), f"supersedes the previous value: {why}", wanted)


def _in_conflict(m: MemoryIn, wanted: Status, current: Fact, current_sources: Collection[str],
                 rivals: Sequence[Fact]) -> Verdict:
    """A write to a key whose set is open: a higher authority settles it; an equal one adds
    support to a side or joins as another side; a lower one (or an echo) changes nothing."""
    authority, held = m.effective_authority, Authority(current.authority)
    if m.source_kind in NOT_EVIDENCE:
        return refused("agent output is not evidence: it cannot take a side in a conflict")
    if authority < held:
        return refused(f"a {m.source_kind and m.source_kind.value} source ({authority.name}) "
                       f"cannot settle a conflict held with authority {held.name}")
    if authority > held:
        if wanted is not Status.ACTIVE:
            return refused("a candidate cannot settle an open conflict: resolve it (vintage "
                           "resolve) or have the user state the value")
        return Verdict(Decision.ACTIVE, "settles the open conflict: "
                       + ("the user's correction" if authority is Authority.USER_STATEMENT
                          else "a higher-authority source"), Status.ACTIVE)
    if same_value(current.value, m.value) or any(same_value(r.value, m.value) for r in rivals):
        if same_value(current.value, m.value) and m.source_id in current_sources:
            return Verdict(Decision.DUPLICATE, "the same write again (same source): one memory")
        return Verdict(Decision.CONFLICT, "the same value as one side of the open conflict: "
                                          "support added; still for review")
    return Verdict(Decision.CONFLICT, "equal authority, another value: joins the open "
                                      "conflict for review")
