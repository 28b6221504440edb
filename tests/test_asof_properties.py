"""Invariants of the as-of predicate, checked by hypothesis without a server."""

from __future__ import annotations

from datetime import datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from vintage.graph.core.asof import AsOf, to_predicate
from vintage.graph.core.kinds import FactKind, Status
from vintage.graph.core.model import Fact, Scope
from vintage.graph.core.temporal import UTC, Interval, as_of

BASE = datetime(2020, 1, 1, tzinfo=UTC)
instants = st.integers(min_value=0, max_value=50).map(lambda d: BASE + timedelta(days=d))
maybe = st.one_of(st.none(), instants)


def fact(vf: datetime, vt: datetime | None, av: datetime, sup: datetime | None) -> Fact:
    return Fact(
        id="f", key="k", revision=1, tenant="t", scope=(), kind=FactKind.OBSERVATION,
        status=Status.ACTIVE, subject="s", predicate="p", value=1, unit=None,
        valid_from=vf, valid_to=vt, available_at=av, superseded_at=sup,
        superseded_recorded_at=None if sup is None else BASE, recorded_at=BASE,
        invalidated_at=None, authority=4, owner=None, retention_reason=None,
        content_hash="h", event_id="e",
    )


@given(instants, instants, instants, maybe)
def test_knowledge_interval_is_half_open(av: datetime, cutoff: datetime, vf: datetime,
                                         sup: datetime | None) -> None:
    if sup is not None and sup <= av:
        sup = av + timedelta(days=1)
    visible = to_predicate(AsOf(Scope(tenant="t"), known_at=cutoff, system_at=BASE))
    expected = av <= cutoff and (sup is None or cutoff < sup)
    assert visible(fact(vf, None, av, sup)) is expected


@given(instants, maybe, instants)
def test_valid_instant_is_half_open(vf: datetime, vt: datetime | None, at: datetime) -> None:
    if vt is not None and vt <= vf:
        vt = vf + timedelta(days=1)
    visible = to_predicate(AsOf(Scope(tenant="t"), valid=as_of(at), known_at=BASE,
                                system_at=BASE))
    assert visible(fact(vf, vt, BASE, None)) is (vf <= at and (vt is None or at < vt))


@given(instants, maybe, maybe, maybe)
def test_window_overlap_matches_pointwise_definition(
    vf: datetime, vt: datetime | None, a: datetime | None, b: datetime | None,
) -> None:
    if vt is not None and vt <= vf:
        vt = vf + timedelta(days=1)
    if a is not None and b is not None and b <= a:
        b = a + timedelta(days=1)
    window = Interval(a, b)
    stored = Interval(vf, vt)
    points = [BASE + timedelta(days=d) for d in range(-1, 53)]
    pointwise = any(window.contains(p) and stored.contains(p) for p in points)
    assert window.overlaps(vf, vt) is pointwise


@given(instants, instants)
def test_a_later_cutoff_never_hides_an_open_fact(av: datetime, cutoff: datetime) -> None:
    visible = to_predicate(AsOf(Scope(tenant="t"), known_at=cutoff, system_at=BASE))
    later = to_predicate(AsOf(Scope(tenant="t"), known_at=cutoff + timedelta(days=9),
                              system_at=BASE))
    f = fact(BASE, None, av, None)
    assert not visible(f) or later(f)
