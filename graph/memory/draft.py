"""What a memory write carries (``MemoryIn``), checked before any gate: the value, the reviewer
fields, the TTL and the event time, each refused in one line when it cannot be right.

A memory is one assertion per (scope, subject, key): its identity (``memory_key``) is hashed with
``MEMORY_EPOCH``, never with its event time, so that its versions form one history. Each version
holds in the world over its event time ``[valid_from, valid_to)``: given by the caller ("moved to
Shanghai in March 2025"), else from when it was observed (a statement about the present),
open-ended; the same value restated keeps the current version's. A TTL is retention on the
knowledge axis: what the engine holds ends at ``expires_at`` (docs/memory.md, "Event time").
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from vintage.graph.core.kinds import Authority, FactKind, SourceKind, capped_authority
from vintage.graph.core.limits import blank, check_text
from vintage.graph.core.model import (
    UNIX_EPOCH,
    Fact,
    Name,
    Scope,
    UtcInstant,
    Value,
    assertion_key,
    check_value,
)
from vintage.graph.memory import experience
from vintage.graph.memory.tools import tool_version_of

MEMORY_EPOCH = UNIX_EPOCH  # a memory's identity is hashed with it (``memory_key``)
REQUIRED = ("source_kind", "source_id", "observed_at", "owner", "retention_reason")
# 100 years of 365.25 days: longer means no expiry (omit the TTL); unbounded overflows dates.
MAX_TTL_SECONDS = 36525 * 24 * 3600


class MemoryKind(StrEnum):
    PREFERENCE = "preference"
    FACT = "fact"
    EXPERIENCE = "experience"
    TASK_STATE = "task_state"
    INFERENCE = "inference"


# The fact kind each kind of memory is stored as (here, beside the kinds: a search names them
# without importing the write gate).
FACT_KIND: dict[MemoryKind, FactKind] = {
    MemoryKind.PREFERENCE: FactKind.PREFERENCE,
    MemoryKind.FACT: FactKind.OBSERVATION,
    MemoryKind.EXPERIENCE: FactKind.EXPERIENCE,
    MemoryKind.TASK_STATE: FactKind.TASK_STATE,
    MemoryKind.INFERENCE: FactKind.INFERENCE,
}


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
    # Event time: when what it says holds in the world. None: from ``observed_at`` (a statement
    # about the present), open-ended; the same value restated keeps the current version's.
    valid_from: UtcInstant | None = None
    valid_to: UtcInstant | None = None
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
        # A memory that says nothing (empty, blank, or NUL characters only) would answer a
        # question with an empty string and could never be told from a missing one.
        if isinstance(value, str) and blank(value):
            raise ValueError("a memory value is empty (blank, NUL or invisible characters "
                             "only): give what is to be remembered")
        value = check_value(value)
        return check_text(value) if isinstance(value, str) else value

    @field_validator("tenant", "subject", "key", "source_id", "source_version", "owner", "user",
                     "project", "thread", "tool", "tool_version")
    @classmethod
    def _one_line(cls, text: str | None) -> str | None:
        return text if text is None else check_text(text, one_line=True)

    @field_validator("retention_reason")
    @classmethod
    def _free_text(cls, text: str | None) -> str | None:
        return text if text is None else check_text(text)

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
        start = self.valid_since
        if self.valid_to is not None and start is not None and self.valid_to <= start:
            since = "valid_from" if self.valid_from is not None else "observed_at (valid_from " \
                                                                     "when none is given)"
            raise ValueError(f"valid_to {self.valid_to.isoformat()} must be after {since} "
                             f"{start.isoformat()} (intervals are half-open)")
        ends = self.expires_at
        if ends is not None and start is not None and ends <= start:
            raise ValueError(f"the TTL ends at {ends.isoformat()}, before the memory holds "
                             f"(valid from {start.isoformat()}): a longer TTL, or none")
        return self

    def assertion_key(self) -> str:
        return memory_key(self.scope(), self.subject, self.key)

    def scope(self) -> Scope:
        return memory_scope(self.tenant, self.user, self.project, self.thread)

    def missing(self) -> str | None:
        for name in REQUIRED:
            value = getattr(self, name)
            if value is None or (isinstance(value, str) and blank(value)):
                return name
        return None

    @property
    def effective_authority(self) -> Authority:
        assert self.source_kind is not None
        return capped_authority(self.source_kind, self.authority)

    @property
    def valid_since(self) -> datetime | None:
        """Where the event time starts: ``valid_from``, else the observed time."""
        return self.valid_from if self.valid_from is not None else self.observed_at

    def event_time(self, current: Fact | None) -> tuple[datetime, datetime | None]:
        """The version's ``[valid_from, valid_to)``: as given; else, for the current value
        restated, the current version's (support for it, not a new version); else from the
        observed time, open-ended."""
        if self.valid_from is None and self.valid_to is None and current is not None \
                and same_value(current.value, self.value):
            return current.valid_from, current.valid_to
        assert self.valid_since is not None
        return self.valid_since, self.valid_to

    @property
    def expires_at(self) -> datetime | None:
        if self.ttl_seconds is None or self.observed_at is None:
            return None
        return self.observed_at + timedelta(seconds=self.ttl_seconds)


def event_time_of(fact: Fact) -> tuple[datetime, datetime | None] | None:
    """A stored memory's event time; None for one written before memories had one (valid
    from ``MEMORY_EPOCH``: its event time is unknown, never 1970)."""
    if fact.valid_from == MEMORY_EPOCH and fact.valid_to is None:
        return None
    return fact.valid_from, fact.valid_to


def same_value(a: Value, b: Value) -> bool:
    """Equal and of one type: ``1`` and ``True`` are different memories."""
    return a == b and type(a) is type(b)


def same_statement(current: Fact, m: MemoryIn) -> bool:
    """The same value, and no other event time: a write that gives none restates the current
    one; one that gives another (the move was in March, not May) changes the memory."""
    if not same_value(current.value, m.value):
        return False
    if m.valid_from is None and m.valid_to is None:
        return True
    return (m.valid_since, m.valid_to) == (current.valid_from, current.valid_to)
