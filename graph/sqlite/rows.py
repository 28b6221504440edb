"""Records to table rows and back: the columns a query filters on, and the ``body`` that holds
the whole record, sealed as the embedded codec seals it (``vintage.graph.embedded.codec``): the
database holds a sealed fact's content and search entry only as ciphertext."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Fact
from vintage.graph.embedded import codec
from vintage.graph.embedded.entries import Entry, Indexed
from vintage.graph.sealing.sealed import Sealer
from vintage.graph.sqlite.asof import instant, micros
from vintage.graph.store.protocol import Edge

FACT_COLUMNS = ("tenant", "id", "key", "revision", "subject", "predicate", "kind", "status",
                "scope", "available_at", "superseded_at", "superseded_recorded_at",
                "recorded_at", "invalidated_at", "valid_from", "holds_until", "expires_at",
                "gaps", "past", "erased", "sealed", "body")
UPSERT_FACT = (f"INSERT OR REPLACE INTO facts ({', '.join(FACT_COLUMNS)}) VALUES "
               f"({', '.join('?' * len(FACT_COLUMNS))})")
# The instants an edge keeps among its properties (the rest are text).
_EDGE_INSTANTS = ("available_at", "at")


def fact_row(fact: Fact, sealer: Sealer | None) -> tuple[Any, ...]:
    """The row of ``fact`` (its key already made: ``Sealer.prepare``)."""
    ends = [t for t in (fact.valid_to, fact.expires_at) if t is not None]
    gaps = [[micros(a), micros(b)] for a, b in zip(fact.gaps_from, fact.gaps_to, strict=True)]
    past = [[micros(a), micros(b), micros(c)] for a, b, c in zip(
        fact.past_superseded_at, fact.past_superseded_from, fact.past_superseded_to,
        strict=True)]
    body = codec.encode("fact", fact, fact.tenant, sealer)[1]
    return (fact.tenant, fact.id, fact.key, fact.revision, fact.subject, fact.predicate,
            fact.kind.value, fact.status.value, json.dumps(list(fact.scope)),
            micros(fact.available_at), micros(fact.superseded_at),
            micros(fact.superseded_recorded_at), micros(fact.recorded_at),
            micros(fact.invalidated_at), micros(fact.valid_from),
            micros(min(ends)) if ends else None, micros(fact.expires_at),
            json.dumps(gaps) if gaps else None, json.dumps(past) if past else None,
            int(fact.erased_at is not None), int(fact.sealed),
            json.dumps(body, separators=(",", ":")))


def fact_of(body: str, tenant: str, sealer: Sealer | None) -> Fact:
    fact = codec.decode(["fact", json.loads(body)], tenant, sealer)[1]
    assert isinstance(fact, Fact)
    return fact


def visible_facts(bodies: Sequence[tuple[str]], spec: AsOf,
                  sealer: Sealer | None) -> list[Fact]:
    """Facts the SQL predicate admitted, decoded. A fact sealed under a key since destroyed
    (a backup restored after its erasure) decodes as the erased shell it became, which the
    predicate no longer admits: that shell is dropped here."""
    tenant = spec.scope.tenant
    facts = [fact_of(b, tenant, sealer) for (b,) in bodies]
    return [f for f in facts if f.erased_at is None]


def entry_row(rec: Indexed, tenant: str,
              sealer: Sealer | None) -> tuple[str | None, bytes | None, str | None]:
    """(terms, vector, sealed) of an entry: a sealed fact's entry only as ciphertext."""
    if rec.sealed and sealer is not None:
        return None, None, json.dumps(codec.encode("index", rec, tenant, sealer)[1],
                                      separators=(",", ":"))
    assert rec.entry is not None, "an entry read back without its key is never written"
    import numpy as np  # here: a command that reads no vector (asof, remember) never loads it

    return (" ".join(rec.entry.terms), np.asarray(rec.entry.vector, dtype="<f4").tobytes(),
            None)


def entry_of(model: str, terms: str | None, vector: bytes | None, sealed: str | None,
             tenant: str, sealer: Sealer | None) -> Entry | None:
    """The entry of a row; None for a sealed one whose key is destroyed (gone with its fact)."""
    if sealed is not None:
        rec = codec.decode(["index", json.loads(sealed)], tenant, sealer)[1]
        assert isinstance(rec, Indexed)
        return rec.entry
    assert terms is not None and vector is not None
    import numpy as np  # as in entry_row

    return Entry(tuple(terms.split(" ")) if terms else (),
                 np.frombuffer(vector, dtype="<f4").astype(np.float32), model)


def edge_props(**props: Any) -> str:
    return json.dumps({k: v.isoformat() if isinstance(v, datetime) else v
                       for k, v in props.items() if v is not None}, separators=(",", ":"))


def edge_data(recorded_at: int, invalidated_at: int | None, gaps: str | None,
              props: str) -> dict[str, Any]:
    """An edge's properties as the reference model keeps them (instants as datetimes)."""
    data: dict[str, Any] = {k: datetime.fromisoformat(v) if k in _EDGE_INSTANTS else v
                            for k, v in json.loads(props).items()}
    data["recorded_at"] = instant(recorded_at)
    if invalidated_at is not None:
        data["invalidated_at"] = instant(invalidated_at)
    if gaps is not None:
        pairs = json.loads(gaps)
        data["gaps_from"] = tuple(instant(a) for a, _ in pairs)
        data["gaps_to"] = tuple(instant(b) for _, b in pairs)
    return data


def edge_of(src: str, type_: str, dst: str, recorded_at: int, invalidated_at: int | None,
            gaps: str | None, props: str) -> Edge:
    return Edge(src, type_, dst, edge_data(recorded_at, invalidated_at, gaps, props))
