"""Diversity (docs/retrieval.md, "Search: the legal set first", its paragraph "Diversity"): a
memory whose key an answer above it already has steps down by ``DIVERSITY`` in fused score,
once; a business fact's concept repeated over periods does not; identifiers still order first;
a conflict set moves as one answer. Then a project's own on-call note is found among the first
five on both backends with the real local model, above its members' many "status summary" notes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.factories import ACTOR, memory
from vintage.graph.core.kinds import FactKind, Status
from vintage.graph.core.model import Fact, Scope
from vintage.graph.memory.gate import Decision
from vintage.graph.memory.remember import remember
from vintage.graph.retrieval.embedder import minilm
from vintage.graph.store.protocol import Store
from vintage.queries.search.checks import Checked
from vintage.queries.search.diverse import DIVERSITY, diversified, diversify
from vintage.queries.search.fusion import Mode, Scored
from vintage.queries.search.request import SearchRequest
from vintage.queries.search.run import search

AT = datetime(2026, 6, 1, tzinfo=UTC)


def fact(n: int, predicate: str, *, memory_scope: bool = True, month: int = 1) -> Fact:
    start = datetime(2025, month, 1, tzinfo=UTC)
    return Fact(id=f"f{n:04}", key=f"k{n}", revision=1, tenant="t",
                scope=(f"user=u{n}",) if memory_scope else (),
                kind=FactKind.PREFERENCE if memory_scope else FactKind.OBSERVATION,
                status=Status.ACTIVE, subject=f"user:u{n}" if memory_scope else "GOOGL",
                predicate=predicate, value=f"value {n}", unit=None, valid_from=start,
                valid_to=None, available_at=AT, superseded_at=None,
                superseded_recorded_at=None, recorded_at=AT, invalidated_at=None, authority=1,
                owner=None, retention_reason=None, content_hash="h", event_id="e")


def checked(f: Fact, fused: float, exact: float = 0.0,
            conflicts_with: tuple[str, ...] = ()) -> Checked:
    return Checked(f, (), Scored(f.id, exact + fused, {"exact": exact, "fused": fused}),
                   conflicts_with)


def ids(order: list[Checked]) -> list[str]:
    return [c.fact.id for c in order]


def test_a_memory_whose_key_an_answer_above_has_steps_down_below_another_kind_of_note() -> None:
    first, second = checked(fact(1, "report.day"), 0.20), checked(fact(2, "report.day"), 0.17)
    other = checked(fact(3, "oncall"), 0.12)
    order = diversify([first, second, other])
    assert ids(order) == ["f0001", "f0003", "f0002"]
    moved = order[2]  # its own score is kept; what it was taken at is less the penalty
    assert moved.scored.score == 0.17 and moved.scored.signals["diversity"] == DIVERSITY
    assert diversified(moved) == pytest.approx(0.17 - DIVERSITY)
    assert "diversity" not in order[0].scored.signals


def test_a_clearly_better_repeat_keeps_its_place_and_the_penalty_applies_once() -> None:
    notes = [checked(fact(n, "report.day"), 0.30 - n / 100) for n in range(1, 4)]
    other = checked(fact(9, "oncall"), 0.10)
    order = diversify([*notes, other])
    assert ids(order) == ["f0001", "f0002", "f0003", "f0009"]
    assert [c.scored.signals.get("diversity", 0.0) for c in order] == [0.0, DIVERSITY,
                                                                       DIVERSITY, 0.0]


def test_a_business_figure_over_several_periods_is_not_stepped_down() -> None:
    # Two quarters of one concept are two answers: the question names the period.
    quarters = [checked(fact(n, "us-gaap:OperatingIncomeLoss", memory_scope=False, month=n),
                        0.70 - n / 1000) for n in range(1, 4)]
    other = checked(fact(9, "us-gaap:Revenues", memory_scope=False), 0.69)
    assert ids(diversify([*quarters, other])) == ["f0001", "f0002", "f0003", "f0009"]


def test_an_item_carrying_more_identifiers_still_ranks_first_however_it_repeats_a_key() -> None:
    first = checked(fact(1, "issue.code"), 0.05, exact=1.0)
    repeat = checked(fact(2, "issue.code"), 0.02, exact=1.0)
    plain = checked(fact(3, "oncall"), 0.90)
    order = diversify([first, repeat, plain])
    assert ids(order) == ["f0001", "f0002", "f0003"]
    assert diversified(order[1]) == 1.0  # the fused part floors at 0, the exact tier holds


def test_a_conflict_set_moves_as_one_answer_with_its_sides_together() -> None:
    top = checked(fact(1, "account.plan"), 0.30)
    side_a = checked(fact(2, "account.plan"), 0.25, conflicts_with=("f0003",))
    side_b = checked(fact(3, "account.plan"), 0.0, conflicts_with=("f0002",))
    other = checked(fact(4, "team"), 0.20)
    assert ids(diversify([top, side_a, side_b, other])) == ["f0001", "f0004", "f0002", "f0003"]


MEMBERS = ("Wants the status summary on Wednesdays", "Wants the status summary on Thursdays",
           "Wants the status summary on Mondays", "Wants the status summary on Fridays",
           "Send the weekly status report every Tuesday",
           "Send the weekly status report every Monday")


def test_a_projects_on_call_note_is_found_among_its_members_many_status_summary_notes(
        store: Store, scope: Scope) -> None:
    # bench/notes/issue40-recall.md: without diversity the six report-day notes, each a cosine
    # of 0.15-0.25 to the question, held the first five places above the on-call note (0.14).
    for n, value in enumerate(MEMBERS):
        member = Scope(tenant=scope.tenant, keys={"project": "falcon", "user": f"u{n}"})
        done = remember(store, memory(member, key="report.day", value=value,
                                      subject=f"user:u{n}", owner=f"user:u{n}", user=f"u{n}",
                                      project="falcon", source_id=f"msg-{n}"), actor=ACTOR)
        assert done.decision is Decision.ACTIVE, done.reason
    project = Scope(tenant=scope.tenant, keys={"project": "falcon"})
    done = remember(store, memory(project, key="oncall",
                                  value="Pager for Falcon goes to Aiko Tanaka",
                                  subject="project:falcon", owner="user:lead", user=None,
                                  project="falcon", source_id="msg-oncall"), actor=ACTOR)
    assert done.decision is Decision.ACTIVE, done.reason
    found = search(store, minilm(), SearchRequest("current incident responder", project,
                                                  mode=Mode.HYBRID, limit=5))
    values = [f.value for f in found.results]
    assert "Pager for Falcon goes to Aiko Tanaka" in values, values
    assert str(values[0]).startswith("Wants the status summary")  # the best keeps its place
