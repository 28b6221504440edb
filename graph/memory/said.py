"""One source says one thing about a memory.

A source id names one message, tool call or document version. If it already supports a version
of this memory (any version ever recorded, invalidated or retracted ones included, or a side of
the memory's open conflict set), a write from it again is either a retry or a contradiction:

* the same value: a retry, one memory (``duplicate``), even after a later correction, an
  invalidation or a retraction, so a redelivered message never brings a value back;
* another value: refused, "source msg-1 already said X"; a change comes from a new source.

The refusal's audit event never holds the value (events never do); the answer to the caller
repeats what the source said, unless that text reads as sensitive or was erased.
"""

from __future__ import annotations

from collections.abc import Sequence

from vintage.graph.core.model import Fact
from vintage.graph.memory.gate import Decision, MemoryIn, Verdict, refused, same_value
from vintage.graph.memory.primitives import memory_tx
from vintage.graph.memory.sensitive import sensitive_categories
from vintage.graph.store.protocol import StoreTx

RETRY = "the same write again (same source): one memory"


def said_before(tx: StoreTx, m: MemoryIn, key: str,
                rivals: Sequence[Fact] = ()) -> tuple[Verdict, str] | None:
    """The decision when ``m``'s source already spoke about this memory, and the reason to show
    the caller (which may quote the earlier value); None when it never did."""
    if m.source_id is None or m.missing() is not None:
        return None  # the gate names the missing field
    stored = tx.get_sources([m.source_id]).get(m.source_id)
    if stored is None:  # a new source (the usual case): nothing to compare, no more reads
        return None
    versions = [*memory_tx(tx).facts_in(m.scope(), keys=[key]), *rivals]
    backed = {s.fact_id for s in tx.supports_of([f.id for f in versions])
              if s.source_id == m.source_id}
    said = [f for f in versions if f.id in backed]
    if not said:
        return None
    if any(f.erased_at is None and same_value(f.value, m.value) for f in said):
        if stored.available_at != m.observed_at:
            return None  # the same id with another time: the write refuses the source
        return Verdict(Decision.DUPLICATE, RETRY), RETRY
    last = said[-1]
    why = ("one source says one thing about a memory; a change comes from a new source "
           f"(revision {last.revision})")
    verdict = refused(f"source {m.source_id} already said another value: {why}")
    return verdict, f"source {m.source_id} already said {_shown(last)}: {why}"


def _shown(fact: Fact) -> str:
    """The earlier value, quoted, unless it was erased or reads as sensitive."""
    if fact.erased_at is not None:
        return "something since erased"
    if isinstance(fact.value, str) and sensitive_categories(fact.value):
        return "another value (not shown: sensitive)"
    return repr(fact.value)
