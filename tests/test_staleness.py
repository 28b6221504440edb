"""Stale is said, never silent, on both backends: what rests on a premise that stopped holding as
of a read's instants is either closed by the cascade, and the read that would have matched it
says so (premise, when, by what), or handed over marked stale naming the premise; an update
outside the read's instants marks nothing (docs/semantics.md, "Staleness")."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import store_for
from tests.factories import ACTOR, WITH_STOCK, PinnedClock, memory, mine
from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import Status
from vintage.graph.core.model import Scope
from vintage.graph.memory.amend import correct
from vintage.graph.memory.remember import remember
from vintage.graph.retrieval.embedder import minilm
from vintage.graph.store.protocol import Store
from vintage.queries.lineage.staleness import (
    BELOW_AUTHORITY,
    EXPIRED,
    SUPERSEDED,
    ReadInstants,
    staleness,
)
from vintage.queries.memory.summaries import summarise
from vintage.queries.search.items import Format
from vintage.queries.search.pack import Pack, build_pack
from vintage.queries.search.request import SearchRequest


def said(store: Store, scope: Scope, clock: PinnedClock, key: str, value: str, *,
         evidence: tuple[str, ...] = (), ttl: int | None = None) -> str:
    fields: dict[str, object] = {"key": key, "value": value, "source_id": f"msg-{key}",
                                 "observed_at": clock.now.isoformat()}
    if evidence:
        fields |= {"kind": "inference", "source_kind": "model_inference",
                   "evidence": list(evidence)}
    if ttl is not None:
        fields["ttl_seconds"] = ttl
    done = remember(store, memory(scope, **fields), actor=ACTOR)
    assert done.memory_id is not None, done.reason
    return done.memory_id


def moved(store: Store, scope: Scope, clock: PinnedClock, memory_id: str, value: str) -> str:
    done = correct(store, scope.tenant, memory_id, value, source_id=f"fix-{memory_id}",
                   observed_at=clock.now, actor=ACTOR)
    assert done.memory_id is not None, done.reason
    return done.memory_id


def pack(store: Store, scope: Scope, query: str, *, cutoff: datetime | None = None,
         fmt: Format = Format.MARKDOWN) -> Pack:
    request = SearchRequest(query=query, scope=mine(scope), cutoff=cutoff)
    return build_pack(store, minilm(), request, budget=2000, for_thread="t-1", actor=ACTOR,
                      format=fmt)


def trace_of(store: Store, scope: Scope, p: Pack) -> dict[str, Any]:
    (event,) = [e for e in store.events(scope.tenant) if e.id == p.injection_id]
    return dict(json.loads(str(event.details["trace"])))


@pytest.fixture(params=WITH_STOCK)
def any_store(request: pytest.FixtureRequest, clock: PinnedClock, tmp_path: Path,
              tenant: str) -> Iterator[Store]:
    """Every backend, a stock Neo4j without the plugin and the reference model too."""
    yield from store_for(request, clock, tmp_path, tenant)


def test_the_store_names_only_replaced_versions_a_derivation_used_as_where_closures_start(
        any_store: Store, scope: Scope, clock: PinnedClock) -> None:
    # What a search asks before it looks for closures (queries.search.closed): a restated
    # memory nothing was derived from is no start, so a scope of plain memories costs no read
    # of its legal set; a replaced premise is one, from the cutoff its replacement was known.
    store = any_store
    city = said(store, scope, clock, "home.city", "Denver")
    said(store, scope, clock, "travel.home_airport", "DEN", evidence=(city,))
    diet = said(store, scope, clock, "diet", "vegetarian")
    before = clock.advance(days=2)
    moved(store, scope, clock, diet, "vegan")
    clock.advance(days=1)
    moved(store, scope, clock, city, "Boston")
    legal = AsOf(mine(scope), statuses=frozenset({Status.ACTIVE, Status.CANDIDATE}))

    def starts(spec: AsOf) -> list[str]:
        resolved = spec.resolved(clock.now)
        return store.reading(scope.tenant, lambda tx: tx.replaced_premises(resolved))

    assert starts(legal) == [city]
    assert starts(replace(legal, known_at=before)) == []  # not yet replaced then
    assert starts(AsOf(Scope(tenant=scope.tenant, keys={"user": "someone-else"}))) == []


def test_an_inference_the_cascade_closed_is_said_by_the_read_naming_premise_when_and_by_what(
        store: Store, scope: Scope, clock: PinnedClock) -> None:
    city = said(store, scope, clock, "home.city", "Denver")
    airport = said(store, scope, clock, "travel.home_airport", "DEN (Denver International)",
                    evidence=(city,))
    clock.advance(days=2)
    boston = moved(store, scope, clock, city, "Boston")
    got = pack(store, scope, "which airport do my flights leave from")
    assert airport not in {i.id for i in got.items}  # closed: never handed over as evidence
    (notice,) = [c for c in got.closed if c.item == airport]
    assert (notice.premise, notice.key, notice.reason, notice.by, notice.when, notice.closed) \
        == (city, "home.city", SUPERSEDED, boston, clock.now, True)
    assert [c["item"] for c in trace_of(store, scope, got)["closed"]] == [airport]
    # Nothing else answers for the airport: the text an agent reads says why, value withheld.
    (line,) = [ln for ln in got.text.splitlines() if airport in ln]
    assert line.startswith("- user:42 travel.home_airport: closed; premise user:42 home.city")
    assert line.count(boston) == 1 and "DEN" not in got.text
    as_json = json.loads(pack(store, scope, "which airport do I fly from", fmt=Format.JSON).text)
    assert [(c["item"], c["by"]) for c in as_json["closed"]] == [(airport, boston)]


def test_a_closure_two_hops_on_names_the_premise_that_changed_not_the_inference_between(
        store: Store, scope: Scope, clock: PinnedClock) -> None:
    employer = said(store, scope, clock, "work.employer", "Contoso Analytics")
    office = said(store, scope, clock, "work.office", "Redmond campus", evidence=(employer,))
    commute = said(store, scope, clock, "work.commute", "takes the 545 express bus",
                   evidence=(office,))
    clock.advance(days=1)
    moved(store, scope, clock, employer, "Fabrikam in Austin")
    notices = {c.item: c for c in pack(store, scope, "how do I get to work").closed}
    assert (notices[commute].premise, notices[commute].depth) == (employer, 2)
    assert notices[office].premise == employer


def test_a_summary_whose_premise_expired_is_handed_over_marked_stale_in_english_and_chinese(
        store: Store, scope: Scope, clock: PinnedClock) -> None:
    hotel = said(store, scope, clock, "trip.hotel", "入住杭州西湖边的望湖宾馆", ttl=3 * 86400)
    said(store, scope, clock, "dining.table", "吃饭喜欢靠窗的安静座位")
    summary = summarise(store, mine(scope), "user:42", actor=ACTOR).fact.id
    clock.advance(days=4)
    got = pack(store, scope, "林悦这次杭州出行的记忆摘要")
    (item,) = [i for i in got.items if i.id == summary]
    assert item.stale is not None
    assert (item.stale.premise, item.stale.reason, item.stale.closed) == (hotel, EXPIRED, False)
    assert item.stale.when == clock.now - timedelta(days=1)
    (line,) = [ln for ln in got.text.splitlines() if summary in ln]
    assert f"STALE: premise user:42 trip.hotel ({hotel}) expired" in line
    as_json = pack(store, scope, "杭州出行的记忆摘要", fmt=Format.JSON)
    (row,) = [i for i in json.loads(as_json.text)["evidence"] if i["id"] == summary]
    assert row["stale"]["premise"] == hotel
    assert trace_of(store, scope, got)["stale"][summary]["reason"] == EXPIRED


def test_an_update_after_the_reads_cutoff_marks_nothing_and_closes_nothing_then(
        store: Store, scope: Scope, clock: PinnedClock) -> None:
    city = said(store, scope, clock, "home.city", "Lyon")
    said(store, scope, clock, "travel.home_airport", "Lyon Saint-Exupery", evidence=(city,))
    summary = summarise(store, mine(scope), "user:42", actor=ACTOR).fact.id
    before = clock.advance(days=10)
    clock.advance(days=30)
    moved(store, scope, clock, city, "Marseille")
    then = pack(store, scope, "summary of where I live", cutoff=before)
    assert summary in {i.id for i in then.items}
    assert [i.id for i in then.items if i.stale] == [] and then.closed == ()
    now = pack(store, scope, "summary of where I live")
    assert summary in {c.item for c in now.closed}  # the same read today says what closed


def test_a_premise_below_the_authority_a_read_requires_marks_what_rests_on_it(
        store: Store, scope: Scope, clock: PinnedClock) -> None:
    said(store, scope, clock, "shipping.preference", "ship to the office")
    summary = summarise(store, mine(scope), "user:42", actor=ACTOR).fact.id
    at = ReadInstants(known_at=clock.now, system_at=clock.now)
    assert staleness(store, scope.tenant, [summary], at) == {}
    strict = ReadInstants(known_at=clock.now, system_at=clock.now, min_authority=10**6)
    assert staleness(store, scope.tenant, [summary], strict)[summary].reason == BELOW_AUTHORITY
