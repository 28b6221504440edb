"""The closed vocabularies of the model: kinds of fact and source, statuses, change classes,
and the authority each kind of source carries at most."""

from __future__ import annotations

from enum import IntEnum, StrEnum


class FactKind(StrEnum):
    OBSERVATION = "observation"
    DERIVED = "derived"
    PREFERENCE = "preference"
    EXPERIENCE = "experience"
    TASK_STATE = "task_state"
    INFERENCE = "inference"


class Status(StrEnum):
    ACTIVE = "active"
    CANDIDATE = "candidate"
    CONFLICTED = "conflicted"


class Change(StrEnum):
    """Why a later source gave an assertion another value (recorded on the new version)."""

    ROUNDING = "rounding"
    SPLIT_ADJUSTMENT = "split_adjustment"
    RECLASSIFICATION = "reclassification"
    RESTATEMENT = "restatement"


class SourceKind(StrEnum):
    FILING = "filing"
    EARNINGS_RELEASE = "earnings_release"
    USER_MESSAGE = "user_message"
    TOOL_RESULT = "tool_result"
    DOCUMENT = "document"
    APPROVED_SUMMARY = "approved_summary"
    AGENT_OUTPUT = "agent_output"
    MODEL_INFERENCE = "model_inference"
    UNKNOWN = "unknown"


class Authority(IntEnum):
    """Higher wins. The order is the one the memory gates use (issue 5)."""

    UNKNOWN_TEXT = 0
    MODEL_GUESS = 1
    MULTI_TURN_INFERENCE = 2
    APPROVED_SUMMARY = 3
    AUTHORITATIVE = 4
    USER_STATEMENT = 5


DEFAULT_AUTHORITY: dict[SourceKind, Authority] = {
    SourceKind.FILING: Authority.AUTHORITATIVE,
    SourceKind.EARNINGS_RELEASE: Authority.AUTHORITATIVE,
    SourceKind.USER_MESSAGE: Authority.USER_STATEMENT,
    SourceKind.TOOL_RESULT: Authority.AUTHORITATIVE,
    SourceKind.DOCUMENT: Authority.AUTHORITATIVE,
    SourceKind.APPROVED_SUMMARY: Authority.APPROVED_SUMMARY,
    SourceKind.AGENT_OUTPUT: Authority.MODEL_GUESS,
    SourceKind.MODEL_INFERENCE: Authority.MODEL_GUESS,
    SourceKind.UNKNOWN: Authority.UNKNOWN_TEXT,
}


def capped_authority(kind: SourceKind, claimed: Authority | None) -> Authority:
    """A caller may lower a source's authority, never raise it above its kind's ceiling."""
    ceiling = DEFAULT_AUTHORITY[kind]
    return ceiling if claimed is None else min(claimed, ceiling)
