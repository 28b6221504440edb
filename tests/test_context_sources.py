"""Every item of a context pack cites a source (issue 40): a derived figure or a summary cites
none of its own, so its line names the sources its inputs cite, at any depth, public by the
read's cutoff, and says that they are its inputs' (docs/retrieval.md, "Context packs and the
injection trace"). The walk is the store's, one query, the same on every backend."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import store_for
from tests.factories import ACTOR, WITH_STOCK, PinnedClock, mine
from tests.test_staleness import pack, said, trace_of
from vintage.graph.core.model import FactIn, Scope, SourceIn, Subject
from vintage.graph.core.temporal import parse_instant as t
from vintage.graph.derivations.derived import Output, derive
from vintage.graph.derivations.recipes import expression
from vintage.graph.retrieval.embedder import minilm
from vintage.graph.store.protocol import Store
from vintage.graph.writes.semantics import Batch, record
from vintage.queries.memory.summaries import summarise
from vintage.queries.search.items import Format
from vintage.queries.search.pack import build_pack
from vintage.queries.search.request import SearchRequest

START, END = t("2025-07-01"), t("2025-10-01")
Q3 = {"valid_from": START, "valid_to": END, "unit": "USD"}


@pytest.fixture(params=WITH_STOCK)
def any_store(request: pytest.FixtureRequest, clock: PinnedClock, tmp_path: Path,
              tenant: str) -> Iterator[Store]:
    """Every backend, a stock Neo4j without the plugin and the reference model too."""
    yield from store_for(request, clock, tmp_path, tenant)


def take_rate(store: Store, scope: Scope) -> dict[str, str]:
    """A take rate from a release's two figures, and a rate derived from that rate (depth 2);
    a 10-Q filed later corrects revenue (recomputed)."""
    report = record(store, scope, Batch(
        subjects=[Subject(id="PYPL", kind="company")],
        sources=[SourceIn(id="q3-release", kind="earnings_release",
                          available_at=t("2025-10-28")),
                 SourceIn(id="q3-deck", kind="earnings_release", available_at=t("2025-10-28"))],
        facts=[FactIn(subject="PYPL", predicate="kpi:TPV", value=458_000_000_000,
                      source="q3-release", **Q3),
               FactIn(subject="PYPL", predicate="revenue", value=8_419_000_000,
                      source="q3-deck", **Q3)]), actor=ACTOR)
    tpv, revenue = report.created
    rate = derive(store, scope, expression("take_rate", "1", "100 * revenue / volume"),
                  {"revenue": revenue, "volume": tpv},
                  Output("PYPL", "kpi:TakeRate", START, END, "percent"),
                  actor=ACTOR).fact.id
    bps = derive(store, scope, expression("in_bps", "1", "100 * rate"), {"rate": rate},
                 Output("PYPL", "kpi:TakeRateBps", START, END, "bps"),
                 actor=ACTOR).fact.id
    return {"tpv": tpv, "revenue": revenue, "rate": rate, "bps": bps}


def cited(store: Store, scope: Scope, ids: list[str], known: str) -> dict[str, list[str]]:
    found = store.reading(scope.tenant, lambda tx: tx.input_sources(ids, t(known), store.now()))
    return {item: [s.id for s in sources] for item, sources in found.items()}


def test_a_derived_fact_cites_its_inputs_sources_at_any_depth_and_a_filed_one_is_absent(
        any_store: Store, scope: Scope) -> None:
    ids = take_rate(any_store, scope)
    assert cited(any_store, scope, [ids["bps"], ids["rate"], ids["tpv"]], "2025-10-30") == {
        ids["bps"]: ["q3-deck", "q3-release"], ids["rate"]: ["q3-deck", "q3-release"]}


def test_an_input_source_not_yet_public_at_the_cutoff_is_not_cited(
        any_store: Store, scope: Scope) -> None:
    ids = take_rate(any_store, scope)
    assert cited(any_store, scope, [ids["rate"]], "2025-10-27") == {}


def test_a_derived_figure_in_a_context_pack_names_its_inputs_sources_and_says_so(
        store: Store, scope: Scope) -> None:
    ids = take_rate(store, scope)
    request = SearchRequest(query="PYPL take rate", scope=scope, cutoff=t("2025-10-30"))
    packed = build_pack(store, minilm(), request, budget=2000, for_thread="t-1", actor=ACTOR)
    (line,) = [x for x in packed.text.splitlines() if f"explain {ids['rate']}" in x]
    assert "| source via inputs q3-deck (earnings_release) +1 more |" in line
    trace = trace_of(store, scope, packed)
    assert trace["sources"]["without"] == []
    assert all(i.sources for i in packed.items)


def test_a_summary_in_a_context_pack_names_the_messages_of_the_memories_it_summarises(
        store: Store, scope: Scope, clock: PinnedClock) -> None:
    said(store, scope, clock, "trip.hotel", "the Harbour Inn in Galway")
    said(store, scope, clock, "行程.酒店", "上海外滩的和平饭店")
    summary = summarise(store, mine(scope), "user:42", actor=ACTOR).fact.id
    for fmt in (Format.MARKDOWN, Format.JSON):
        packed = pack(store, scope, "酒店 hotel summary", fmt=fmt)
        (line,) = [x for x in packed.text.splitlines() if summary in x]
        if fmt is Format.JSON:
            doc = json.loads(line.rstrip(","))  # an item of the pack's evidence list
            assert (doc["source"]["id"], doc["more_sources"], doc["source_of"]) == (
                "msg-trip.hotel", 1, "inputs")
        else:
            assert "| source via inputs msg-trip.hotel (user_message) +1 more |" in line
