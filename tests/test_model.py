"""Validation: bad input gets a clear error naming the field."""

from __future__ import annotations

from datetime import datetime

import pytest
from pydantic import ValidationError

from vintage.graph.core.limits import MAX_TEXT_BYTES
from vintage.graph.core.model import FactIn, Scope, SourceIn
from vintage.graph.core.temporal import (
    TimeError,
    as_of,
    between,
    from_to,
    parse_instant,
    require_utc,
)

START = parse_instant("2018-01-01")
END = parse_instant("2018-04-01")


def draft(**overrides: object) -> FactIn:
    values: dict[str, object] = {
        "subject": "GOOGL", "predicate": "Revenues", "value": 1, "unit": "USD",
        "valid_from": START, "valid_to": END, "source": "s1",
    }
    values.update(overrides)
    return FactIn.model_validate(values)


def test_naive_datetimes_are_refused() -> None:
    with pytest.raises(ValidationError, match="naive datetime"):
        draft(valid_from=datetime(2018, 1, 1))
    with pytest.raises(TimeError, match="naive"):
        require_utc(datetime(2018, 1, 1))


def test_other_offsets_are_converted_to_utc() -> None:
    assert draft(valid_from=parse_instant("2018-01-01T02:00:00+02:00")).valid_from == START


@pytest.mark.parametrize("valid_to", [START, parse_instant("2017-12-31")])
def test_a_period_must_end_after_it_starts(valid_to: datetime) -> None:
    with pytest.raises(ValidationError, match="must be after valid_from"):
        draft(valid_to=valid_to)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_nan_and_infinity_are_not_values(value: float) -> None:
    with pytest.raises(ValidationError, match="NaN and infinity"):
        draft(value=value)


def test_oversized_values_are_refused() -> None:
    with pytest.raises(ValidationError, match="larger than"):
        draft(value="x" * (MAX_TEXT_BYTES + 1))
    with pytest.raises(ValidationError, match="64-bit"):
        draft(value=2**63)


def test_unsupported_value_types_are_refused() -> None:
    with pytest.raises(ValidationError, match="unsupported value type"):
        draft(value=[1, 2])


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValidationError, match="kind"):
        draft(kind="rumour")


def test_missing_tenant_is_refused() -> None:
    with pytest.raises(ValidationError, match="tenant"):
        Scope.model_validate({"keys": {"user": "42"}})
    with pytest.raises(ValidationError, match="tenant"):
        Scope(tenant="   ")


def test_scope_keys_cannot_smuggle_a_second_tenant() -> None:
    with pytest.raises(ValidationError, match="not a further scope key"):
        Scope(tenant="a", keys={"tenant": "b"})


def test_a_fact_other_than_derived_needs_a_source() -> None:
    with pytest.raises(ValidationError, match="needs a source"):
        draft(source=None)


def test_a_source_cannot_claim_more_authority_than_its_kind_allows() -> None:
    guess = SourceIn(id="s", kind="agent_output", available_at=START, authority=5)
    assert guess.effective_authority == 1


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(ValidationError, match="extra"):
        draft(colour="red")


def test_time_vocabulary_bounds() -> None:
    t = parse_instant("2020-01-01")
    assert as_of(t).contains(t)
    assert not from_to(START, END).contains(END)
    assert from_to(START, END).contains(START)
    assert between(START, END).contains(END)
    with pytest.raises(TimeError, match="before its start"):
        from_to(END, START)
    with pytest.raises(TimeError, match="not an ISO"):
        parse_instant("31/12/2020")
