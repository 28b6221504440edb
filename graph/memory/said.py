"""One source says one thing about a memory.

A source id names one message, tool call or document version. If it already supports a version
of this memory (any version ever recorded, invalidated or retracted ones included, or a side of
the memory's open conflict set), a write from it again is either a retry or a contradiction:

* the same value: a retry, one memory (``duplicate``), even after a later correction, an
  invalidation or a retraction, so a redelivered message never brings a value back;
* another value: refused, "source msg-1 already said another value (revision N)"; a change
  comes from a new source.

Neither the refusal's audit event nor the answer to the caller holds a value: the earlier one
may have been held (it read as instructions to the model), refused in part, or erased, and a
message must never hand such text back. The revision names it; a read shows it, under the
read's own rules (a held candidate only to a review).
"""

from __future__ import annotations

from collections.abc import Sequence

from vintage.graph.core.model import Fact
from vintage.graph.memory.gate import Decision, MemoryIn, Verdict, refused, same_value
from vintage.graph.memory.primitives import memory_tx
from vintage.graph.store.protocol import StoreTx

RETRY = "the same write again (same source): one memory"


def said_before(tx: StoreTx, m: MemoryIn, key: str,
                rivals: Sequence[Fact] = ()) -> tuple[Verdict, str] | None:
    """The decision when ``m``'s source already spoke about this memory, and the reason to show
    the caller (never a value); None when it never did."""
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
    verdict = refused(f"source {m.source_id} already said another value (revision "
                      f"{last.revision}): one source says one thing about a memory; a change "
                      "comes from a new source")
    return verdict, verdict.reason
