"""The closed vocabularies of the model: kinds of fact and source, statuses, change classes,
and the authority each kind of source carries at most."""

from __future__ import annotations

from enum import IntEnum, StrEnum

from vintage.graph.core.errors import InvalidArgument


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


class Risk(StrEnum):
    """How much a wrong answer costs the caller: a read's risk requires a minimum authority
    (``RISK_AUTHORITY``; docs/contract.md, "Retrieval and context")."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


# Low: anything of known origin (text of unknown origin is out). Medium: a person stood behind
# it (an approved summary, an authoritative source or the user). High: an authoritative source
# or the user's own statement only; model guesses and inferences never answer a high-risk read.
RISK_AUTHORITY: dict[Risk, Authority] = {
    Risk.LOW: Authority.MODEL_GUESS,
    Risk.MEDIUM: Authority.APPROVED_SUMMARY,
    Risk.HIGH: Authority.AUTHORITATIVE,
}


def authority_named(name: str | Authority) -> Authority:
    """An authority by its name (``authoritative``, ``USER_STATEMENT``), case aside."""
    if isinstance(name, Authority):
        return name
    try:
        return Authority[str(name).strip().upper().replace("-", "_")]
    except KeyError:
        raise InvalidArgument(f"authority {str(name)[:40]!r}: one of "
                         f"{', '.join(a.name.lower() for a in Authority)}") from None


def required_authority(min_authority: str | Authority | None,
                       risk: str | Risk | None) -> Authority | None:
    """The least authority a read admits: the stricter of ``min_authority`` and the one
    ``risk`` maps to (None: any authority)."""
    wanted = [] if min_authority is None else [authority_named(min_authority)]
    if risk is not None:
        try:
            wanted.append(RISK_AUTHORITY[Risk(str(risk).strip().lower())])
        except ValueError:
            raise InvalidArgument(f"risk {str(risk)[:40]!r}: one of "
                             f"{', '.join(r.value for r in Risk)}") from None
    return max(wanted) if wanted else None
