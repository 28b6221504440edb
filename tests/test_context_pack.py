"""Context packs over both backends: what an agent is handed for a query within a token budget,
the one injection event that records it with its trace (ids and numbers, never values), what
the trace says of any fact version afterwards, and the self-echo check that rests on it."""

from __future__ import annotations

import json
import re

import pytest

from tests.factories import ACTOR, PinnedClock, memory, mine, tools
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.exclusion import SCOPE, SUPERSEDED
from vintage.graph.core.model import Scope
from vintage.graph.memory.gate import Decision
from vintage.graph.memory.remember import remember
from vintage.graph.retrieval.counting import token_counter
from vintage.graph.retrieval.embedder import minilm
from vintage.graph.store.protocol import Store, UnknownReference
from vintage.queries.search.fusion import Mode
from vintage.queries.search.items import Format
from vintage.queries.search.pack import Pack, build_pack
from vintage.queries.search.request import SearchRequest
from vintage.queries.search.trace import Verdict, judge, mark_used, read_injection

COUNTER = token_counter()
TRACE_FIELDS = {"format", "mode", "all_scopes", "read", "form", "period", "matched", "legal",
                "excluded", "considered", "pinned", "final", "tokens", "tokenizer", "budget",
                "cut", "cap", "trimmed", "sources", "positions", "header_tokens", "item_tokens",
                "stale", "closed", "closed_said", "relevance"}
SHIPPING = [("shipping.preference", "ship to the office"),
            ("shipping.carrier", "ship with the express courier"),
            ("shipping.window", "ship on weekdays before noon")]


def said(store: Store, scope: Scope, pairs: list[tuple[str, str]], user: str = "42",
         prefix: str = "msg") -> list[str]:
    ids = []
    for n, (key, value) in enumerate(pairs):
        done = remember(store, memory(scope, key=key, value=value, source_id=f"{prefix}-{n}",
                                      subject=f"user:{user}", owner=f"user:{user}",
                                      user=user), actor=ACTOR)
        assert done.memory_id is not None, done.reason
        ids.append(done.memory_id)
    return ids


def pack(store: Store, scope: Scope, query: str, budget: int = 2000, *,
         fmt: Format = Format.MARKDOWN, mode: Mode = Mode.HYBRID) -> Pack:
    return build_pack(store, minilm(), SearchRequest(query=query, scope=mine(scope), mode=mode),
                      budget=budget, for_thread="t-1", actor=ACTOR, format=fmt)


def injected(store: Store, scope: Scope, injection: str) -> dict[str, object]:
    (event,) = [e for e in store.events(scope.tenant) if e.id == injection]
    assert event.action == "inject"
    return dict(event.details)


def test_building_a_pack_records_one_injection_with_every_trace_field_and_no_value(
    store: Store, scope: Scope,
) -> None:
    ids = said(store, scope, [*SHIPPING, ("constraint.currency", "quote prices in euros")])
    before = len(store.events(scope.tenant))
    built = pack(store, scope, "where should the parcel ship")
    assert len(store.events(scope.tenant)) == before + 1
    details = injected(store, scope, built.injection_id)
    assert built.injection_id in built.text and COUNTER.name in built.text
    assert (details["thread"], details["count"]) == ("t-1", len(built.items))
    assert str(details["memories"]).split(",") == [i.id for i in built.items]
    assert str(details["left_out"]).split(",") == list(built.cut) or not built.cut
    trace = json.loads(str(details["trace"]))
    assert set(trace) == TRACE_FIELDS
    assert trace["pinned"] == [ids[3]] and built.items[0].id == ids[3] and built.pinned == 1
    assert trace["final"] == [i.id for i in built.items]
    # The tokens it used: the header's and each item's line make up the total.
    assert trace["header_tokens"] + sum(trace["item_tokens"].values()) == built.tokens
    assert set(trace["item_tokens"]) == {i.id for i in built.items}
    assert trace["header_tokens"] == built.header_tokens > 0
    assert (trace["tokens"], trace["budget"], trace["tokenizer"]) == (
        COUNTER.count(built.text), 2000, COUNTER.name)
    assert trace["legal"] == 4 and trace["matched"] >= 1 and trace["mode"] == "hybrid"
    assert {c["id"] for c in trace["considered"]} == set(ids)
    assert all({"keyword", "semantic", "exact"} <= set(c["signals"])
               for c in trace["considered"])
    assert trace["sources"] == {"with": trace["final"], "without": []}
    assert trace["read"]["scope"] == ["user=42"]
    everything = json.dumps(details)
    for _, value in [*SHIPPING, ("", "quote prices in euros")]:
        assert value not in everything  # events are not sealed: ids and numbers only
    assert "parcel" not in everything  # nor the query


def test_the_pack_never_exceeds_a_tight_budget_and_keeps_ids_and_sources(
    store: Store, scope: Scope,
) -> None:
    (notes,) = said(store, scope, [("shipping.notes", "leave it by the door " * 100)],
                    prefix="long")
    said(store, scope, SHIPPING)
    roomy = pack(store, scope, "ship")
    assert roomy.trimmed == () and roomy.cut == ()
    for budget in (roomy.tokens - 150, roomy.tokens // 2, 250):
        built = pack(store, scope, "ship", budget)
        assert built.tokens == COUNTER.count(built.text) <= budget
        if budget == roomy.tokens - 150:  # a long value is trimmed before any item goes
            assert built.trimmed == (notes,) and built.cut == ()
        lines = {p.id: p.line for p in built.positions}
        for item in built.items:
            line = built.text.splitlines()[lines[item.id] - 1]
            assert f"explain {item.id}" in line and re.search(r"\| source (msg|long)-", line)
        trace = json.loads(str(injected(store, scope, built.injection_id)["trace"]))
        assert trace["cut"] == list(built.cut)
        assert [t["id"] for t in trace["trimmed"]] == list(built.trimmed)


@pytest.mark.parametrize("fmt", list(Format))
def test_each_position_points_at_its_item_in_the_rendered_text(
    store: Store, scope: Scope, fmt: Format,
) -> None:
    said(store, scope, [*SHIPPING, ("constraint.currency", "quote prices in euros")])
    built = pack(store, scope, "ship", fmt=fmt)
    lines = built.text.split("\n")
    assert [p.id for p in built.positions] == [i.id for i in built.items]
    for p in built.positions:
        assert p.id in lines[p.line - 1]
        before = "\n".join(lines[:p.line - 1]) + "\n"
        assert p.token == COUNTER.count(before) and p.token < built.tokens
    trace = json.loads(str(injected(store, scope, built.injection_id)["trace"]))
    assert trace["positions"] == [{"id": p.id, "line": p.line, "token": p.token}
                                  for p in built.positions]
    if fmt is Format.JSON:
        doc = json.loads(built.text)
        assert [i["id"] for i in doc["constraints"] + doc["evidence"]] == [
            p.id for p in built.positions]


def test_a_budget_too_small_for_the_header_is_refused_and_records_nothing(
    store: Store, scope: Scope,
) -> None:
    said(store, scope, SHIPPING)
    before = len(store.events(scope.tenant))
    for budget in (0, 40):
        with pytest.raises(InvalidArgument, match="budget"):
            pack(store, scope, "ship", budget)
    with pytest.raises(InvalidArgument, match="thread"):
        build_pack(store, minilm(), SearchRequest(query="ship", scope=mine(scope)),
                   budget=500, for_thread=" ", actor=ACTOR)
    assert len(store.events(scope.tenant)) == before


def test_both_sides_of_a_conflict_are_handed_over_together(store: Store, scope: Scope) -> None:
    tool = {"source_kind": "tool_result", "source_version": "v3", "kind": "fact",
            "subject": "account:7", "key": "plan", "owner": "ops", "user": "42"}
    tools(store, scope.tenant, "crm-1", "billing-1")
    for value, source in (("enterprise plan", "crm-1"), ("team plan", "billing-1")):
        remember(store, memory(scope, value=value, source_id=source, **tool), actor=ACTOR)
    said(store, scope, SHIPPING)
    built = pack(store, scope, "which plan is the account on")
    sides = [i for i in built.items if i.status == "conflicted"]
    assert len(sides) == 2 and {i.value for i in sides} == {"enterprise plan", "team plan"}
    lines = {p.id: p.line for p in built.positions}
    assert abs(lines[sides[0].id] - lines[sides[1].id]) == 1
    assert all("conflicted with [" in built.text.splitlines()[lines[i.id] - 1] for i in sides)


def test_an_agent_repeating_a_value_it_was_handed_is_an_echo_of_that_pack(
    store: Store, scope: Scope,
) -> None:
    said(store, scope, SHIPPING)
    built = pack(store, scope, "ship to the office")
    assert "ship to the office" in built.text
    echo = remember(store, memory(scope, value="ship to the office", source_id="reply-1",
                                  source_kind="agent_output"), actor=ACTOR)
    assert echo.decision is Decision.DUPLICATE
    assert built.injection_id in echo.reason and "t-1" in echo.reason


@pytest.mark.parametrize("fmt", [Format.MARKDOWN, Format.JSON])
def test_a_pack_written_back_as_a_memory_is_refused_naming_its_injection_not_its_text(
    store: Store, scope: Scope, fmt: Format,
) -> None:
    said(store, scope, SHIPPING)
    built = pack(store, scope, "where should orders ship", fmt=fmt)
    for key, value in (("agent.notes", built.text), ("agent.digest", "notes:\n" + built.text)):
        echo = remember(store, memory(scope, key=key, value=value, source_id=f"echo-{key}",
                                      source_kind="agent_output"), actor=ACTOR)
        assert echo.decision is Decision.REFUSED, echo.reason
        assert built.injection_id in echo.reason and "office" not in echo.reason
    # A note about a context, not a pack's text, is a memory like any other.
    plain = remember(store, memory(scope, key="agent.todo", value="# Context for thread t-1 is "
                                   "long; injection ids look like e0f", source_id="todo-1",
                                   source_kind="agent_output"), actor=ACTOR)
    assert plain.decision is Decision.CANDIDATE or plain.decision is Decision.ACTIVE


def test_used_then_trace_tells_each_of_the_six_verdicts(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    first = said(store, scope, [("shipping.preference", "ship to the depot")], prefix="old")
    clock.advance(minutes=1)
    corrected = remember(store, memory(scope, value="ship to the office", source_id="msg-9",
                                       observed_at="2026-05-02T10:00:00Z"), actor=ACTOR)
    assert corrected.decision is Decision.ACTIVE and corrected.revision == 2
    carrier, window, language = said(store, scope, [*SHIPPING[1:], ("language", "en-GB")])
    (elsewhere,) = said(store, scope, [("shipping.preference", "ship to the warehouse")],
                        user="7", prefix="u7")
    clock.advance(minutes=1)
    roomy = pack(store, scope, "ship", mode=Mode.KEYWORD)
    assert language not in [c.id for c in roomy.items]
    third = next(p for p in roomy.positions if p.id == roomy.items[2].id)
    # The header's count varies a little with the (random) injection id: a margin for it.
    built = pack(store, scope, "ship", third.token + 20, mode=Mode.KEYWORD)
    kept, cut = [i.id for i in built.items], built.cut
    assert len(kept) == 2 and len(cut) == 1
    clock.advance(minutes=1)
    (later,) = said(store, scope, [("shipping.label", "ship with a printed label")],
                    prefix="late")
    events = len(store.events(scope.tenant))
    mark_used(store, scope.tenant, built.injection_id, [kept[0]], actor=ACTOR)
    assert len(store.events(scope.tenant)) == events + 1
    asked = [kept[0], kept[1], cut[0], language, elsewhere, first[0], later, "k-none.r1"]
    verdicts = [(j.verdict, j.reason)
                for j in judge(store, read_injection(store, scope.tenant, built.injection_id),
                               asked)]
    assert verdicts == [(Verdict.USED, None), (Verdict.UNUSED, None), (Verdict.CUT, None),
                        (Verdict.NOT_FOUND, None), (Verdict.FILTERED, SCOPE),
                        (Verdict.FILTERED, SUPERSEDED), (Verdict.NOT_SAVED, None),
                        (Verdict.NOT_SAVED, None)]
    assert corrected.memory_id in kept + list(cut) and {carrier, window} <= set(kept) | set(cut)


def test_only_an_injected_item_can_be_marked_used_and_a_refusal_records_nothing(
    store: Store, scope: Scope,
) -> None:
    said(store, scope, SHIPPING)
    built = pack(store, scope, "ship")
    events = len(store.events(scope.tenant))
    with pytest.raises(InvalidArgument, match="not in context"):
        mark_used(store, scope.tenant, built.injection_id, [built.items[0].id, "k-other.r1"],
                  actor=ACTOR)
    with pytest.raises(InvalidArgument, match="at least one"):
        mark_used(store, scope.tenant, built.injection_id, [" "], actor=ACTOR)
    with pytest.raises(UnknownReference, match="no injection"):
        mark_used(store, scope.tenant, "e-none", [built.items[0].id], actor=ACTOR)
    assert len(store.events(scope.tenant)) == events
