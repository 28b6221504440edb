"""A plain fact read back from Neo4j (``vintage.graph.neo4j.rows.fact_from``) is built without
pydantic's validation, and must be the very fact it was written as (``fact_row``), as
``Fact.model_validate`` builds it: equal, the same type in every field, the same fields set,
the same hash, as frozen; instants as Neo4j's ``toString`` renders them read too; and a node
the store could not have written is a clear StoreError, never a half-built fact."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from neo4j.time import DateTime
from pydantic import ValidationError

from vintage.graph.core.kinds import Change, FactKind, Status
from vintage.graph.core.model import Fact
from vintage.graph.neo4j.params import FACT_INSTANT_LISTS, FACT_INSTANTS
from vintage.graph.neo4j.rows import fact_from, fact_row
from vintage.graph.store.protocol import StoreError

BASE: dict[str, Any] = {
    "id": "k1.r2", "key": "k1", "revision": 2, "tenant": "acme", "scope": ("user=42",),
    "kind": FactKind.OBSERVATION, "status": Status.ACTIVE, "subject": "GOOGL",
    "predicate": "us-gaap:OperatingIncomeLoss", "value": 7, "unit": "USD",
    "valid_from": datetime(2018, 1, 1, tzinfo=UTC), "valid_to": None,
    "available_at": datetime(2018, 4, 24, tzinfo=UTC), "superseded_at": None,
    "superseded_recorded_at": None, "recorded_at": datetime(2026, 5, 1, 9, 30, 1, 250, UTC),
    "invalidated_at": None, "authority": 4, "owner": None, "retention_reason": None,
    "content_hash": "c0ffee", "event_id": "e1",
}
instants = st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2100, 1, 1),
                        timezones=st.sampled_from([UTC, timezone(timedelta(hours=-5))]))


@st.composite
def facts(draw: st.DrawFn) -> Fact:
    values = dict(BASE)
    for name in ("valid_to", "superseded_at", "superseded_recorded_at", "invalidated_at",
                 "expires_at", "erased_at"):
        values[name] = draw(st.none() | instants)
    values["valid_from"], values["recorded_at"] = draw(instants), draw(instants)
    gaps = draw(st.integers(0, 2))
    values["gaps_from"] = tuple(draw(instants) for _ in range(gaps))
    values["gaps_to"] = tuple(draw(instants) for _ in range(gaps))
    past = draw(st.integers(0, 2))
    for name in ("past_superseded_at", "past_superseded_from", "past_superseded_to"):
        values[name] = tuple(draw(instants) for _ in range(past))
    values["value"] = draw(st.booleans() | st.integers(-10**12, 10**12)
                           | st.floats(allow_nan=False) | st.text(max_size=20))
    values["unit"] = draw(st.none() | st.just("USD"))
    values["scope"] = draw(st.sampled_from([(), ("user=42",), ("project=p", "user=42")]))
    values["kind"] = draw(st.sampled_from(FactKind))
    values["status"] = draw(st.sampled_from(Status))
    values["change"] = draw(st.none() | st.sampled_from(Change))
    values["sealed"] = draw(st.booleans())  # an erased sealed fact keeps its flag, plain
    # every field named, as a read of the node names them (the fields set included)
    return Fact.model_validate(Fact.model_validate(values).model_dump())


def as_neo4j_hands_it_back(fact: Fact, text: bool, zone: tzinfo = UTC) -> dict[str, Any]:
    """The node's properties as a read returns them: ``fact_map``'s text instants (or the
    driver's DateTime values), in ``zone``, absent properties named with null, no ciphertext."""
    row = fact_row(fact)
    def out(value: datetime) -> Any:
        value = value.astimezone(zone)
        return value.isoformat().replace("+00:00", "Z") if text else DateTime.from_native(value)
    for name in FACT_INSTANTS:
        if row.get(name) is not None:
            row[name] = out(row[name])
    for name in FACT_INSTANT_LISTS:
        if row.get(name):
            row[name] = [out(v) for v in row[name]]
    return {name: row.get(name) for name in (*Fact.model_fields, "ciphertext")}


@settings(max_examples=200, deadline=None)
@given(fact=facts(), text=st.booleans(), zone=st.sampled_from(
    [UTC, ZoneInfo("Etc/UTC"), ZoneInfo("Europe/Berlin"), timezone(timedelta(hours=-5))]))
def test_a_stored_fact_reads_back_as_the_fact_validation_gives(fact: Fact, text: bool,
                                                               zone: tzinfo) -> None:
    read = fact_from(as_neo4j_hands_it_back(fact, text, zone))
    assert read == fact
    assert read.model_dump() == fact.model_dump()
    for name in Fact.model_fields:
        assert type(getattr(read, name)) is type(getattr(fact, name)), name
        if isinstance(getattr(read, name), datetime):
            assert getattr(read, name).tzinfo is UTC, name
    assert read.model_fields_set == fact.model_fields_set
    assert hash(read) == hash(fact)
    with pytest.raises(ValidationError):
        read.value = 8  # type: ignore[misc]  # frozen, as a validated fact is


@pytest.mark.parametrize(("text", "instant"), [
    ("2018-01-01T00:00Z", datetime(2018, 1, 1, tzinfo=UTC)),  # toString drops zero seconds
    ("2026-05-01T09:30:01.000250Z", datetime(2026, 5, 1, 9, 30, 1, 250, UTC)),
    ("2026-05-01T09:30:01.000250000Z", datetime(2026, 5, 1, 9, 30, 1, 250, UTC)),
    ("2018-04-24T02:00+02:00", datetime(2018, 4, 24, tzinfo=UTC)),
])
def test_an_instant_in_neo4js_text_reads_as_its_utc_instant(text: str,
                                                             instant: datetime) -> None:
    row = {**as_neo4j_hands_it_back(Fact.model_validate(BASE), text=True), "valid_from": text}
    assert fact_from(row).valid_from == instant
    assert fact_from(row).valid_from.tzinfo is UTC


@pytest.mark.parametrize(("change", "wrong"), [
    ({"kind": None}, "missing kind"),
    ({"status": "retired"}, "retired"),
    ({"valid_from": "2018-01-01T00:00:00"}, "naive datetime"),
    ({"available_at": 1524528000}, "int, not a datetime"),
    ({"gaps_from": ["2018-01-01"]}, "naive datetime"),
    ({"expires_at": "0001-01-01T00:00+01:00"}, "k1.r2"),  # before year 1 in UTC
])
def test_a_node_the_store_could_not_have_written_is_a_store_error(
        change: dict[str, Any], wrong: str) -> None:
    row = {**as_neo4j_hands_it_back(Fact.model_validate(BASE), text=True), **change}
    with pytest.raises(StoreError, match=wrong):
        fact_from(row)
