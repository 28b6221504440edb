"""What Neo4j hands back, as the store's values, and what a node is written as: rows as dicts,
instants as UTC datetimes, facts, sources, supports and derivations from their properties (and
back). Shared by ``vintage.graph.neo4j.tx`` and ``vintage.graph.neo4j.store``."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, get_args

import neo4j
from neo4j.time import DateTime

from vintage.graph.core.kinds import Change, FactKind, Status
from vintage.graph.core.model import DerivationIn, Fact, Source, Subject
from vintage.graph.core.temporal import require_utc
from vintage.graph.neo4j.params import FACT_INSTANT_LISTS, FACT_INSTANTS
from vintage.graph.sealing.sealed import CIPHERTEXT, Sealer
from vintage.graph.store.protocol import StoreError, Support

# What runs a statement: a managed transaction (reads) or an explicit one (writes,
# vintage.graph.neo4j.retry).
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


def parse_utc(text: str) -> datetime:
    """An instant Cypher rendered with ``toString`` (nanoseconds and ``Z`` included), in UTC;
    one without an offset is refused (``require_utc``), never read as local time."""
    return require_utc(datetime.fromisoformat(text))


def support_from(row: dict[str, Any]) -> Support:
    return Support(row["fact_id"], row["source_id"], parse_utc(row["available_at"]),
                   parse_utc(row["recorded_at"]))


def fact_from(props: dict[str, Any], sealer: Sealer | None = None) -> Fact:
    """A fact from its node's properties, unsealed with ``sealer`` if it was written sealed."""
    if props.get(CIPHERTEXT) is None:  # fact_map names it on every fact
        return _stored_fact(props)
    values = native_props(props)
    if sealer is None:
        raise StoreError(f"fact {values['id']} was written sealed: connect with its key "
                         "store (vintage.graph.store.backends.open_store finds the key file)")
    values = sealer.unseal(values["tenant"], values)
    values = {name: values.get(name) for name in _FACT_FIELDS}  # Neo4j drops null properties
    for name in _FACT_LISTS:
        values[name] = tuple(values[name] or ())
    values["sealed"] = bool(values["sealed"])  # absent on plain facts
    return Fact.model_validate(values)


def _instant(value: Any) -> datetime:
    if isinstance(value, str):  # fact_map's text
        return parse_utc(value)
    if isinstance(value, DateTime):
        return require_utc(value.to_native())
    raise ValueError(f"an instant is {type(value).__name__}, not a datetime")


def _instants(values: Any) -> tuple[datetime, ...]:
    return tuple(_instant(v) for v in values) if values else ()


def _nullable(name: str) -> bool:
    return type(None) in get_args(Fact.model_fields[name].annotation)


_REQUIRED = tuple(n for n, f in Fact.model_fields.items()
                  if f.is_required() and not _nullable(n) and n not in _FACT_LISTS)
_OPEN = tuple(n for n in FACT_INSTANTS if _nullable(n))  # an end, or an event yet to come
_SHUT = tuple(n for n in FACT_INSTANTS if not _nullable(n))


def _stored_fact(props: dict[str, Any]) -> Fact:
    """A plain fact's node as the store wrote it: its values were validated when the fact was
    written, so only what the driver changes is converted (text or driver instants to UTC
    datetimes, lists to tuples, names to enums); a required value missing, an instant without
    an offset, an unknown name is a StoreError. ``Fact.model_validate`` took a fifth of a
    filing question's re-read (124 facts: 3.2 ms against 1.7 ms)."""
    values: dict[str, Any] = {name: props.get(name) for name in _FACT_FIELDS}
    missing = [n for n in _REQUIRED if values[n] is None]
    try:
        if missing:
            raise ValueError(f"missing {', '.join(missing)}")
        for name in _SHUT:
            values[name] = _instant(values[name])
        for name in _OPEN:
            if values[name] is not None:
                values[name] = _instant(values[name])
        for name in FACT_INSTANT_LISTS:
            values[name] = _instants(values[name])
        values["scope"] = tuple(values["scope"] or ())
        values["kind"] = FactKind(values["kind"])
        values["status"] = Status(values["status"])
        if values["change"] is not None:
            values["change"] = Change(values["change"])
    except ValueError as e:
        raise StoreError(f"fact {props.get('id')} is malformed in the store: {e}") from None
    values["sealed"] = bool(values["sealed"])  # absent on plain facts
    return _built(values)


def _built(values: dict[str, Any]) -> Fact:
    """The fact of ``values`` (every field), as ``Fact.model_validate`` leaves it, without its
    checks: what ``BaseModel.model_construct`` does, less its loop over defaults and aliases
    (that loop alone cost more than the validation it skips). tests/test_stored_facts.py
    holds it to ``model_validate``'s result."""
    fact = Fact.__new__(Fact)
    object.__setattr__(fact, "__dict__", values)
    object.__setattr__(fact, "__pydantic_fields_set__", set(_FACT_FIELDS))
    object.__setattr__(fact, "__pydantic_extra__", None)
    object.__setattr__(fact, "__pydantic_private__", None)
    return fact


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
