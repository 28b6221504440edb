"""Agent memory: what a memory write carries, and the gate that decides what becomes of it.

A memory is a fact about a subject (``user:42``) under a key (``shipping.preference``), held in
the caller's scope (tenant, and user / project / thread where given). One (scope, subject, key)
is one assertion whose versions form its history (its key is hashed with ``MEMORY_EPOCH``, never
with its event time). Each version holds in the world over its event time ``[valid_from,
valid_to)``: given by the caller ("moved to Shanghai in March 2025"), else from when it was
observed (a statement about the present), open-ended. A TTL is retention: it ends what the engine
holds at ``expires_at`` on the knowledge axis (docs/memory.md). The gate is pure: given the draft
and the memory's current version, it returns the decision and why (``remember`` writes it).

Authority, highest first (``vintage.graph.core.model.Authority``): the user's own statement; an
authoritative document or tool result; a summary a person approved; a multi-turn inference; a
single model guess; text of unknown origin. A source kind's authority is a ceiling a caller may
lower, never raise.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum

from vintage.graph.core.kinds import Authority, SourceKind, Status
from vintage.graph.core.model import (
    Fact,
)
from vintage.graph.memory import experience
from vintage.graph.memory.draft import (
    FACT_KIND,
    MAX_TTL_SECONDS,
    MEMORY_EPOCH,
    REQUIRED,
    MemoryIn,
    MemoryKind,
    event_time_of,
    memory_key,
    memory_scope,
    same_statement,
    same_value,
)
from vintage.graph.memory.echo import echoed_pack
from vintage.graph.memory.injection import scan_write
from vintage.graph.memory.scoping import subject_refusal
from vintage.graph.memory.sensitive import sensitive_write

# What a write carries lives in ``draft``; callers import it from here, with the gate.
__all__ = [
    "FACT_KIND", "MAX_TTL_SECONDS", "MEMORY_EPOCH", "MEMORY_KIND", "NOT_EVIDENCE", "REQUIRED",
    "Decision", "MemoryIn", "MemoryKind", "Verdict", "event_time_of", "gate", "memory_key",
    "memory_scope", "refused", "same_statement", "same_value",
]

NOT_EVIDENCE = frozenset({SourceKind.AGENT_OUTPUT})


MEMORY_KIND = {v: k for k, v in FACT_KIND.items()}


class Decision(StrEnum):
    ACTIVE = "active"
    CANDIDATE = "candidate"
    REFUSED = "refused"
    DUPLICATE = "duplicate"
    CONFLICT = "conflict"


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
    # Sensitive content first: a refusal says what kind it found, never the text, while the
    # scope's refusal names the subject.
    if not m.consent:  # every free-text field, the key included
        found = sensitive_write(dict(m))
        if found:
            return refused(f"sensitive content ({found}): not stored without explicit consent")
    misplaced = subject_refusal(m.subject, m.user, m.project, m.thread)
    if misplaced is not None:
        return refused(misplaced)
    echoed = echoed_pack(m.value)
    if echoed is not None:
        return refused(f"an echo of context pack {echoed}: what was handed over is not new "
                       "evidence (the memories it holds are kept where they are)")
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
    repeat = same_statement(current, m) and (
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
    if same_statement(current, m):
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
    if same_statement(current, m) or any(same_value(r.value, m.value) for r in rivals):
        if same_statement(current, m) and m.source_id in current_sources:
            return Verdict(Decision.DUPLICATE, "the same write again (same source): one memory")
        return Verdict(Decision.CONFLICT, "the same value as one side of the open conflict: "
                                          "support added; still for review")
    return Verdict(Decision.CONFLICT, "equal authority, another value: joins the open "
                                      "conflict for review")
