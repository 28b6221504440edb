"""The call of the launcher's ``vintage.cascade`` procedure, without a server: its instants are
integer microseconds both ways, exact, and its parameters are what the Java side reads
(tests/test_cascade_equivalence.py runs it against the reference on a real server)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from vintage.graph.neo4j.params import instant, micros
from vintage.graph.neo4j.procedures import cascade_call

INSTANTS = st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1),
                        timezones=st.just(UTC))


@given(INSTANTS)
def test_an_instant_survives_the_trip_through_microseconds(at: datetime) -> None:
    assert instant(micros(at)) == at


def test_microseconds_count_from_the_epoch_before_and_after_it() -> None:
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    assert micros(epoch + timedelta(seconds=1, microseconds=5)) == 1_000_005
    assert micros(epoch - timedelta(microseconds=1)) == -1
    assert instant(None) is None


def test_an_open_change_is_sent_as_null_and_a_closed_one_as_its_microseconds() -> None:
    at = datetime(2019, 4, 30, tzinfo=UTC)
    query = cascade_call("acme", {"x": at, "y": None}, "system", at)
    assert query.params == {"tenant": "acme", "axis": "system", "at": micros(at),
                            "changed": {"x": micros(at), "y": None}}
