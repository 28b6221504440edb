"""The records Vintage stores: subjects, sources, facts, derivations and events.

Callers build ``*In`` drafts; the engine turns them into stored records, adding what only the
engine may set (ids of versions, revisions, system time). Validation errors name the field and
never echo more than a short prefix of the offending value.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from datetime import UTC, datetime
from typing import Annotated, Any, TypeAlias

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from vintage.graph.core import limits
from vintage.graph.core.kinds import (
    Authority,
    Change,
    FactKind,
    SourceKind,
    Status,
    capped_authority,
)
from vintage.graph.core.stamps import stamp
from vintage.graph.core.temporal import require_utc

SCOPE_PART = re.compile(r"^[A-Za-z0-9_.:@/-]{1,128}\Z")  # a user, project or thread id


def _name(value: str) -> str:
    if not value or not value.strip():
        raise ValueError("must not be empty")
    if len(value) > limits.MAX_NAME_CHARS:
        raise ValueError(f"longer than {limits.MAX_NAME_CHARS} characters")
    return value


Name = Annotated[str, AfterValidator(_name)]


def _at_most(chars: int) -> AfterValidator:
    def bounded(value: str) -> str:
        if len(value) > chars:
            raise ValueError(f"longer than {chars} characters")
        return value
    return AfterValidator(bounded)


Label = Annotated[str, _at_most(limits.MAX_NAME_CHARS)]  # a short text: a name, a form, a title
Uri = Annotated[str, _at_most(limits.MAX_URI_CHARS)]
UtcInstant = Annotated[datetime, AfterValidator(require_utc)]
UNIX_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
Value: TypeAlias = limits.Value
check_value = limits.check_value
Text = Annotated[str, AfterValidator(check_value)]  # free text: a reason, a formula


class Scope(BaseModel):
    """Tenant (mandatory) plus further hard-filter keys such as user, project or thread."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tenant: Name
    keys: dict[str, str] = Field(default_factory=dict)

    @field_validator("tenant")
    @classmethod
    def _tenant_chars(cls, value: str) -> str:
        if not SCOPE_PART.match(value):
            raise ValueError("tenant may use letters, digits and _.:@/- (at most 128)")
        return value

    @field_validator("keys")
    @classmethod
    def _key_chars(cls, value: dict[str, str]) -> dict[str, str]:
        for k, v in value.items():
            if k == "tenant":
                raise ValueError("'tenant' is not a further scope key")
            if not SCOPE_PART.match(k) or not SCOPE_PART.match(v):
                raise ValueError(f"scope key {k[:40]!r}: letters, digits and _.:@/- only")
        return value

    def terms(self) -> list[str]:
        """The canonical ``key=value`` list stored on nodes (Neo4j has no map properties)."""
        return [f"{k}={v}" for k, v in sorted(self.keys.items())]

    @classmethod
    def from_terms(cls, tenant: str, terms: list[str]) -> Scope:
        return cls(tenant=tenant, keys=dict(term.split("=", 1) for term in terms))


def digest(*parts: object) -> str:
    blob = json.dumps(parts, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


class Subject(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: Name
    kind: Name = "entity"
    name: Label | None = None
    identifiers: tuple[Label, ...] = ()


class SourceIn(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: Name
    kind: SourceKind
    available_at: UtcInstant
    authority: Authority | None = None
    uri: Uri | None = None
    accession: Label | None = None
    form: Label | None = None
    title: Label | None = None
    version: Label | None = None

    @property
    def effective_authority(self) -> Authority:
        return capped_authority(self.kind, self.authority)


class Source(SourceIn):
    recorded_at: UtcInstant


class FactIn(BaseModel):
    """One assertion as a caller states it. ``source`` names a ``SourceIn`` of the same batch or
    one already stored."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    subject: Name
    predicate: Name
    value: Value
    unit: Label | None = None
    valid_from: UtcInstant
    valid_to: UtcInstant | None = None
    kind: FactKind = FactKind.OBSERVATION
    status: Status = Status.ACTIVE
    source: Name | None = None
    owner: Label | None = None
    retention_reason: Text | None = None
    # The caller's classification of how this value differs from the one it replaces; kept on
    # the new version only when the write is in fact a correction.
    change: Change | None = None
    # A TTL's end: from then on the fact no longer holds on the valid axis, so reads for "now"
    # miss it while as-of reads before it still see it. Not part of the assertion key.
    expires_at: UtcInstant | None = None
    # The assertion this version belongs to, when the caller names it: a memory is one
    # assertion per (scope, subject, key) whatever its event time, so that a restated valid
    # time is a new version of it, not a second assertion beside it. None: the period's.
    key: Name | None = None

    @field_validator("value", mode="before")
    @classmethod
    def _strict_value(cls, value: Any) -> Any:
        if not isinstance(value, bool | int | float | str):
            raise ValueError(f"unsupported value type {type(value).__name__}")
        return value

    @field_validator("value")
    @classmethod
    def _checked_value(cls, value: Value) -> Value:
        return check_value(value)

    @model_validator(mode="after")
    def _valid_interval(self) -> FactIn:
        if self.source is None and self.kind is not FactKind.DERIVED:
            raise ValueError(f"a {self.kind.value} fact needs a source (derived facts have none)")
        if self.expires_at is not None and self.expires_at <= self.valid_from:
            raise ValueError("expires_at must be after valid_from")
        if self.valid_to is not None and self.valid_to <= self.valid_from:
            raise ValueError(
                f"valid_to {self.valid_to.isoformat()} must be after "
                f"valid_from {self.valid_from.isoformat()} (intervals are half-open)"
            )
        return self

    def assertion_key(self, scope: Scope) -> str:
        if self.key is not None:
            return self.key
        return assertion_key(scope, self.subject, self.predicate, self.valid_from, self.valid_to,
                             self.unit)

    def content_hash(self) -> str:
        """What makes a write a new version rather than a repeat: the value, its unit, and
        (only when set, so filed facts hash as they always did) a status other than active
        and an expiry. Promoting a candidate or renewing a TTL is therefore a new version."""
        parts: list[object] = [type(self.value).__name__, self.value, self.unit]
        if self.status is not Status.ACTIVE:
            parts.append(self.status.value)
        if self.expires_at is not None:
            parts.append(self.expires_at.isoformat())
        if self.key is not None and (self.valid_from != UNIX_EPOCH or self.valid_to is not None):
            # A named assertion's period may change: a new version then. A memory written
            # before memories had an event time (valid from the epoch) hashes as it did.
            parts.extend(("valid", self.valid_from.isoformat(),
                          self.valid_to.isoformat() if self.valid_to else None))
        return digest(*parts)


def assertion_key(
    scope: Scope, subject: str, predicate: str, valid_from: datetime, valid_to: datetime | None,
    unit: str | None = None,
) -> str:
    """Identity of an assertion (not of a value): what supersede and history group by.

    The unit is part of it: one concept reported in two units for one period (proceeds in COP
    and in USD) is two assertions, not a correction of one by the other. The tenant is not
    hashed in: it is part of every key and constraint beside the id."""
    parts: list[object] = [
        scope.terms(), subject, predicate,
        require_utc(valid_from).isoformat(),
        require_utc(valid_to).isoformat() if valid_to else None,
    ]
    if unit is not None:
        parts.append(unit)
    return "k" + digest(*parts)


def version_id(key: str, revision: int) -> str:
    return f"{key}.r{revision}"


def revision_of(fact_id: str) -> int:
    """The revision a ``version_id`` names."""
    _, _, revision = fact_id.rpartition(".r")
    return int(revision)


class Fact(BaseModel):
    """A stored version of an assertion, with all three axes.

    Instants are normalised to ``datetime.UTC``: a driver may hand back another UTC tzinfo
    (a named zone), which Neo4j would then store as a zone id rather than an offset, and range
    index seeks do not match the two."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    key: str
    revision: int
    tenant: str
    scope: tuple[str, ...]
    kind: FactKind
    status: Status
    subject: str
    predicate: str
    value: Value
    unit: str | None
    valid_from: UtcInstant
    valid_to: UtcInstant | None
    available_at: UtcInstant
    superseded_at: UtcInstant | None
    superseded_recorded_at: UtcInstant | None
    recorded_at: UtcInstant
    invalidated_at: UtcInstant | None
    # System-time gaps [gaps_from[i], gaps_to[i]): the engine stopped holding the fact, then
    # held it again (a retraction undone). Empty for almost every fact.
    gaps_from: tuple[UtcInstant, ...] = ()
    gaps_to: tuple[UtcInstant, ...] = ()
    # Knowledge closures that stopped holding (the version that caused one left the engine, or
    # a later one moved it): closure i ended knowledge at past_superseded_at[i] over system
    # time [past_superseded_from[i], past_superseded_to[i]). Empty for almost every fact.
    past_superseded_at: tuple[UtcInstant, ...] = ()
    past_superseded_from: tuple[UtcInstant, ...] = ()
    past_superseded_to: tuple[UtcInstant, ...] = ()
    authority: int
    owner: str | None
    retention_reason: str | None
    content_hash: str
    event_id: str
    change: Change | None = None
    expires_at: UtcInstant | None = None
    # Erased: the content (value, retention reason) is gone from the store, and the fact is
    # invisible to every read, as-of reads before the erasure included.
    erased_at: UtcInstant | None = None
    # Sealed: its content reaches the disk only as ciphertext (``vintage.graph.sealing.sealed``).
    sealed: bool = False


class DerivationIn(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: Name
    recipe: Name
    version: Name
    formula: Text | None = None
    parameters: dict[str, Value] = Field(default_factory=dict)


def new_event_id() -> str:
    """A fresh event id (events are appended, never keyed by content) that sorts in the order
    ids are made: events of one instant then come back in that order (``stamps``)."""
    return f"e{stamp():016x}{secrets.token_hex(8)}"


class Event(BaseModel):
    """Append-only audit record of one mutation. ``details`` never carries erased content."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    tenant: str
    at: UtcInstant
    actor: str
    action: str
    reason: str | None = None
    details: dict[str, Value] = Field(default_factory=dict)
