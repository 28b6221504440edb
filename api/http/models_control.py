"""Request and response models of the memory verbs that erase, summarise, review, settle,
undo and weigh (``vintage.http.routes_memory`` and ``vintage.http.routes_memory_control``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pydantic import ConfigDict, Field

from vintage.graph.core.model import Value
from vintage.graph.memory.conflicts import ConflictSet
from vintage.graph.memory.forget import Forgotten as Erased
from vintage.graph.memory.held import Held
from vintage.graph.memory.promotion import DEFAULT_SUCCESS_RATE, DEFAULT_VALIDATIONS
from vintage.http.models import Instant, JsonBool, JsonFloat, JsonInt, Out
from vintage.http.models_memory import Name, Named, Scoped, Text


class Forget(Scoped):
    """Erase exactly one of: a memory (subject and key), a source's facts, everything of the
    user (``everything``: the key's user, or the one named)."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "subject": "user:42", "key": "shipping.preference", "reason": "user asked"}]})

    reason: Text
    subject: Name | None = None
    key: Name | None = None
    source: Name | None = None
    everything: JsonBool = False


class Forgotten(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "by": "source", "facts": 2, "derived": 1, "kept": 1, "released": 0,
        "event": "e-90ab"}]})

    by: str
    facts: int = Field(description="Versions whose content was erased.")
    derived: int = Field(description="Facts derived from them, erased with them.")
    kept: int = Field(description="By source: facts another source also said, kept without "
                                  "this one's support (0 otherwise).")
    released: int = Field(description="Of those kept, how many no live support holds any more.")
    event: str

    @classmethod
    def of(cls, gone: Erased) -> Forgotten:
        return cls(by=gone.by, facts=gone.facts, derived=gone.derived, kept=gone.kept,
                   released=gone.released, event=gone.event_id)


class Summarise(Scoped):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "subject": "user:42", "user": "42"}]})

    subject: Name = Field(examples=["user:42"])
    keys: list[Name] | None = None


class Summary(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "fact": "f-51aa-1", "derivation": "d-0c2e", "value": "shipping.preference: office"}]})

    fact: str
    derivation: str
    value: Value


class Side(Out):
    id: str
    value: Value
    known_from: datetime


class ConflictOut(Out):
    subject: str
    key: str
    scope: list[str]
    sides: list[Side]


class HeldOut(Out):
    """A candidate held because it reads as instructions to the model: named, never quoted."""

    id: str
    subject: str
    key: str
    scope: list[str]
    why: str


class Conflicts(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [{"sets": [{
        "subject": "user:42", "key": "plan", "scope": ["user=42"],
        "sides": [{"id": "m-1", "value": "pro", "known_from": "2026-05-01T10:00:00Z"},
                  {"id": "m-2", "value": "team", "known_from": "2026-05-02T10:00:00Z"}]}],
        "held": [{"id": "m-3", "subject": "user:42", "key": "note", "scope": ["user=42"],
                  "why": "its value reads as instructions to the model (an address to the "
                         "assistant)"}]}]})

    sets: list[ConflictOut]
    held: list[HeldOut] = Field(default_factory=list, description="Candidates held because "
                                "they read as instructions to the model: named, never quoted.")


def review_out(sets: Sequence[ConflictSet], held: Sequence[Held]) -> Conflicts:
    """A review's answer, the same over HTTP and MCP."""
    return Conflicts(sets=[
        ConflictOut(subject=c.subject, key=c.key, scope=list(c.scope), sides=[
            Side(id=f.id, value=f.value, known_from=f.available_at) for f in c.sides])
        for c in sets], held=[HeldOut(id=h.memory_id, subject=h.subject, key=h.key,
                                      scope=list(h.scope), why=h.why) for h in held])


class ReviewQuery(Scoped):
    model_config = ConfigDict(json_schema_extra={"examples": [{"user": "42"}]})

    all_scopes: bool = False


class Resolve(Named):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "subject": "user:42", "key": "plan", "keep": "pro", "source_id": "ticket-9",
        "owner": "user:42", "reason": "the user confirmed", "user": "42"}]})

    keep: Value
    source_id: Name
    owner: Name
    reason: Text
    observed_at: Instant | None = None


class Written(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "event": "e-5150", "created": ["m-77c0-3"]}]})

    event: str | None
    created: list[str]


class Rollback(Scoped):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "to": "2026-06-01T11:00:00Z", "reason": "a buggy agent's batch", "user": "42"}]})

    to: Instant
    reason: Text


class RolledBackOut(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "event": "e-4411", "restored": 1, "retired": 1}]})

    event: str | None
    restored: int
    retired: int


class Invalidate(Named):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "subject": "user:42", "key": "shipping.preference", "reason": "moved", "user": "42"}]})

    reason: Text


class Demote(Named):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "subject": "user:42", "key": "gift.wrap", "reason": "rarely useful", "weight": 0.2,
        "user": "42"}]})

    reason: Text
    weight: JsonFloat = Field(0.5, ge=0.0, le=1.0, description="1 restores.")


class DemotedOut(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "memory_id": "m-8d1f-1", "weight": 0.2, "previous": 1.0, "event": "e-31d2"}]})

    memory_id: str
    weight: float
    previous: float
    event: str


class OutcomeIn(Named):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "subject": "agent:billing", "key": "refunds", "task": "ticket-311",
        "project": "billing"}]})

    task: Name
    failed: JsonBool = False
    at: Instant | None = None
    reporter: Name | None = None


class Promote(Named):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "subject": "agent:billing", "key": "refunds", "project": "billing"}]})

    by_user: JsonBool = Field(False, description="The user's explicit action (needs source_id).")
    source_id: Name | None = None
    needed: JsonInt = Field(DEFAULT_VALIDATIONS, ge=1)
    min_success_rate: JsonFloat = Field(DEFAULT_SUCCESS_RATE, ge=0.0, le=1.0)
