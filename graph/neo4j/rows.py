"""What Neo4j hands back, as the store's values, and what a node is written as: rows as dicts,
instants as UTC datetimes, facts, sources, supports and derivations from their properties (and
back). Shared by ``graph.neo4j.tx`` and ``graph.neo4j.store``."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import neo4j
from neo4j.time import DateTime
from pydantic import TypeAdapter

from graph.model import DerivationIn, Fact, Source, Subject
from graph.sealing import CIPHERTEXT, Sealer
from graph.store import StoreError, Support

# What runs a statement: a managed transaction (reads) or an explicit one (writes,
# graph.neo4j.retry).
Runner = neo4j.ManagedTransaction | neo4j.Transaction

_FACT_FIELDS = tuple(Fact.model_fields)

_FACT_LISTS = ("scope", "gaps_from", "gaps_to", "past_superseded_at", "past_superseded_from",
               "past_superseded_to")


def as_dicts(result: Iterable[neo4j.Record]) -> list[dict[str, Any]]:
    """Each record as a dict. Not ``Record.data()``, which walks every value to turn graph
    entities into dicts (a fifth of a warm metric question, profiled): queries here return
    maps, lists and scalars only."""
    return [dict(zip(r.keys(), r.values(), strict=True)) for r in result]


def native(value: Any) -> Any:
    # to_native() keeps the driver's own UTC tzinfo (a named zone); written back as a
    # parameter it would become a zone-id DateTime, which index seeks on offsets miss.
    if isinstance(value, DateTime):
        return value.to_native().astimezone(UTC)
    if isinstance(value, list):
        return [native(v) for v in value]
    return value


_CONVERTED = (DateTime, list)  # a tuple: ``DateTime | list`` built a union on every value


def native_props(record: dict[str, Any]) -> dict[str, Any]:
    # Most values are plain (a fact map renders its instants as text): a call per value was a
    # tenth of a recompute's client time.
    return {k: native(v) if isinstance(v, _CONVERTED) else v for k, v in record.items()}


_INSTANT = TypeAdapter(datetime)


def parse_utc(text: str) -> datetime:
    """An instant Cypher rendered with ``toString`` (nanoseconds and ``Z`` included)."""
    return _INSTANT.validate_python(text).astimezone(UTC)


def support_from(row: dict[str, Any]) -> Support:
    return Support(row["fact_id"], row["source_id"], parse_utc(row["available_at"]),
                   parse_utc(row["recorded_at"]))


def fact_from(props: dict[str, Any], sealer: Sealer | None = None) -> Fact:
    """A fact from its node's properties, unsealed with ``sealer`` if it was written sealed."""
    values = native_props(props)
    if values.get(CIPHERTEXT) is not None:  # fact_map names it on every fact
        if sealer is None:
            raise StoreError(f"fact {values['id']} was written sealed: connect with its key "
                             "store (graph.backends.open_store finds the key file)")
        values = sealer.unseal(values["tenant"], values)
    values = {name: values.get(name) for name in _FACT_FIELDS}  # Neo4j drops null properties
    for name in _FACT_LISTS:
        values[name] = tuple(values[name] or ())
    values["sealed"] = bool(values["sealed"])  # absent on plain facts
    return Fact.model_validate(values)


def fact_row(fact: Fact, sealer: Sealer | None = None) -> dict[str, Any]:
    """A fact's node properties; a sealed fact's content sealed by ``sealer`` (its key already
    created), or written plain without one."""
    row = fact.model_dump()
    row["scope"] = list(fact.scope)
    row["kind"] = fact.kind.value
    row["status"] = fact.status.value
    for name in _FACT_LISTS:
        row[name] = list(getattr(fact, name))
    if not fact.sealed:
        del row["sealed"]
    elif sealer is not None:
        row = sealer.seal(fact.tenant, row)
    return {k: v for k, v in row.items() if v is not None and v != []}


def source_from(props: dict[str, Any]) -> Source:
    values = native_props(props)
    values.pop("tenant", None)
    return Source.model_validate(values)


def subject_from(row: dict[str, Any]) -> Subject:
    """A row of ``cypher_reads.subjects``."""
    return Subject(id=row["id"], kind=row["kind"], name=row["name"],
                   identifiers=tuple(row["identifiers"]))


def derivation_from(props: dict[str, Any]) -> DerivationIn:
    values = native_props(props)
    values["parameters"] = json.loads(values.get("parameters") or "{}")
    return DerivationIn.model_validate(
        {k: v for k, v in values.items() if k not in ("tenant", "recorded_at")})


def derivation_props(derivation: DerivationIn, recorded_at: datetime) -> dict[str, Any]:
    props = derivation.model_dump(exclude={"parameters"}, exclude_none=True)
    props["parameters"] = json.dumps(derivation.parameters, sort_keys=True)
    props["recorded_at"] = recorded_at
    return props
