"""Request and response models of the memory verbs that write, read, correct and audit
(the others: ``vintage.http.models_control``).

A request names its scope (``user``, ``project``, ``thread``) only within what its key allows:
a key bound to user 42 writes and reads user 42's memories whatever the request says (naming
another user is 403); the tenant is never named, it is the key's.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from vintage.graph.core.kinds import Risk, SourceKind
from vintage.graph.core.model import Event, Value
from vintage.graph.memory.gate import Decision, MemoryKind
from vintage.http.models import Cursor, Instant, JsonBool, JsonInt, Limit, Out
from vintage.queries.memory.recall import MemoryView

Text = Annotated[str, Field(min_length=1, max_length=2000)]
Name = Annotated[str, Field(min_length=1, max_length=256)]
ScopePart = Annotated[str | None, Field(None, pattern=r"^[A-Za-z0-9_.:@/-]{1,128}$")]
VALID_FROM = ("Event time: from when it holds in the world (default: observed_at, for a "
              "statement about the present; a restated value keeps its own).")
VALID_TO = "Event time: until when it holds, exclusive (default: open)."


# An authority by name (``vintage.graph.core.kinds.Authority``), lowest first.
AuthorityName = Literal["unknown_text", "model_guess", "multi_turn_inference",
                        "approved_summary", "authoritative", "user_statement"]


class In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Scoped(In):
    """Where the memory lives: within the key's binding (a bound key need name none)."""

    user: ScopePart = None
    project: ScopePart = None
    thread: ScopePart = None


class Named(Scoped):
    subject: Name = Field(examples=["user:42"])
    key: Name = Field(examples=["shipping.preference"])


class MemoryWrite(Named):
    """One memory write, through the gates. ``source_kind`` is what the key claims; the key
    decides whether it may (an agent key never writes ``user_message``)."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "kind": "preference", "subject": "user:42", "key": "shipping.preference",
        "value": "ship to the office", "source_kind": "user_message", "source_id": "msg-1",
        "observed_at": "2026-05-01T10:00:00Z", "owner": "user:42",
        "retention_reason": "user asked us to remember", "user": "42"}]})

    kind: MemoryKind
    value: Value
    source_kind: SourceKind | None = None
    source_id: Name | None = None
    source_version: Name | None = None
    tool: Name | None = Field(None, description="The tool a `tool_result` comes from; "
                              "registered (`POST /v1/tools`), its results carry authority.")
    tool_version: Name | None = Field(None, description="The tool's version (the source "
                                      "version of a `tool_result`).")
    observed_at: Instant | None = None
    owner: Name | None = None
    retention_reason: Text | None = None
    ttl_seconds: JsonInt | None = Field(None, ge=1)
    valid_from: Instant | None = Field(None, description=VALID_FROM)
    valid_to: Instant | None = Field(None, description=VALID_TO)
    evidence: list[Name] = Field(default_factory=list, max_length=100)
    consent: JsonBool = False


class Decided(Out):
    """The gate's decision on one write, why, and the version it left current (if any)."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "decision": "active", "reason": "new preference", "memory_id": "m-8d1f-1",
        "revision": 1, "event": "e-77a0"}]})

    decision: Decision
    reason: str
    memory_id: str | None
    revision: int | None
    event: str
    validated_tasks: int | None = None  # outcomes: distinct tasks succeeded on
    failed_tasks: int | None = None


class MemoryOut(MemoryView):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "id": "m-8d1f-1", "subject": "user:42", "key": "shipping.preference",
        "kind": "preference", "value": "ship to the office", "status": "active", "revision": 1,
        "owner": "user:42", "retention_reason": "user asked us to remember",
        "scope": ["user=42"], "known_from": "2026-05-01T10:00:00Z", "known_until": None,
        "expires_at": None, "sources": [], "weight": 1.0}]})


class MemoriesQuery(Scoped):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "subject": "user:42", "user": "42", "limit": 20}]})

    subject: Name = Field(examples=["user:42"])
    key: Name | None = None
    at: Instant | None = Field(None, description="As known and holding then (default now).")
    system_at: Instant | None = Field(None, description="As the engine held them then.")
    valid_at: Instant | None = Field(None, description="Holding at this instant of event time "
                                                        "(default: at), as known at `at`.")
    candidates: bool = False
    hindsight: bool = False
    all_scopes: bool = Field(False, description="Every scope of the tenant (admin, audited).")
    min_authority: AuthorityName | None = Field(None, description="Only memories holding at "
                                                "least this authority.")
    risk: Risk | None = Field(None, description="low, medium or high: a minimum authority "
                                                "(the stricter of it and `min_authority`).")
    limit: Limit = 50
    cursor: Cursor = None


class CurrentQuery(Scoped):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "subject": "user:42", "key": "shipping.preference", "user": "42"}]})

    subject: Name = Field(examples=["user:42"])
    key: Name = Field(examples=["shipping.preference"])


class MemoriesPage(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "items": [], "next_cursor": None}]})

    items: list[MemoryOut]
    next_cursor: str | None = None


class Correction(In):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "value": "ship to my home", "source_id": "msg-7"}]})

    value: Value
    source_id: Name
    observed_at: Instant | None = None
    valid_from: Instant | None = Field(None, description="Event time: from when the corrected "
                                                          "value holds (default: the version's).")
    valid_to: Instant | None = Field(None, description="Event time: until when, exclusive "
                                                        "(default: the version's).")
    consent: JsonBool = False


class AuditQuery(In):
    model_config = ConfigDict(json_schema_extra={"examples": [{"subject": "user:42"}]})

    subject: Name | None = None
    key: Name | None = None
    since: Instant | None = None
    until: Instant | None = None
    limit: Limit = 100
    cursor: Cursor = None


class EventOut(Event):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "id": "e-77a0", "tenant": "acme", "at": "2026-06-01T12:00:00Z",
        "actor": "key:k3f9a0c1d2e4b5a6(support-bot)", "action": "remember",
        "reason": "remember: new preference",
        "details": {"decision": "active", "subject": "user:42", "key": "shipping.preference",
                    "scope": "user=42"}}]})


class AuditPage(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "items": [], "next_cursor": None}]})

    items: list[EventOut]
    next_cursor: str | None = None
