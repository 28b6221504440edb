"""Authority bound to real things (issue 40), on both backends: a tool result carries a tool's
authority only from a tool the tenant registered, at a registered version, reported by a
principal the registration names; anything else is held as a candidate with the reason in the
decision and in the audit trail. Registration is audited like document trust."""

from __future__ import annotations

from typing import Any

import pytest

from tests.factories import ACTOR, memory, mine, values
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.model import Scope
from vintage.graph.memory.gate import Decision, MemoryIn
from vintage.graph.memory.remember import remember
from vintage.graph.memory.tools import register_tool, registered_tools, unregister_tool
from vintage.graph.store.protocol import Store
from vintage.queries.memory.recall import audit, recall

REFUND = "7 days full refund"
ADMIN = "user:ops-admin"


def tool_result(scope: Scope, tool: str | None, version: str = "v2", **extra: Any) -> MemoryIn:
    fields: dict[str, Any] = {
        "kind": "fact", "subject": "policy:returns", "key": "refund.window", "value": REFUND,
        "source_kind": "tool_result", "source_id": "call-7781", "tool": tool,
        "tool_version": version, "owner": "ops", "retention_reason": "policy"}
    return memory(scope, **fields | extra)


def test_a_tool_result_from_a_tool_nobody_registered_is_a_candidate_naming_why(
    store: Store, scope: Scope,
) -> None:
    said = remember(store, tool_result(scope, "refund-oracle"), actor="key:k1(support-bot)")
    assert said.decision is Decision.CANDIDATE
    assert "tool refund-oracle is not registered in this tenant" in said.reason
    assert recall(store, mine(scope), "policy:returns") == []  # never answers
    (held,) = recall(store, mine(scope), "policy:returns", candidates=True)
    assert held.status == "candidate"
    (event,) = audit(store, scope.tenant, key="refund.window")
    assert "not registered" in str(event.reason) and event.details["tool"] == "refund-oracle"
    assert REFUND not in str(event.model_dump())  # the decision never copies the value


def test_a_registered_tool_makes_its_result_active_and_an_unregistered_version_does_not(
    store: Store, scope: Scope,
) -> None:
    register_tool(store, scope.tenant, "policy-service", version="v2", actor=ADMIN,
                  reason="the policy service")
    old = remember(store, tool_result(scope, "policy-service", "v1", key="refund.old",
                                      source_id="call-1"), actor=ACTOR)
    assert old.decision is Decision.CANDIDATE
    assert "version v1 of tool policy-service is not registered" in old.reason
    now = remember(store, tool_result(scope, "policy-service"), actor=ACTOR)
    assert now.decision is Decision.ACTIVE
    assert values(recall(store, mine(scope), "policy:returns", "refund.window")) == [REFUND]


def test_only_the_reporters_a_registration_names_may_report_for_the_tool(
    store: Store, scope: Scope,
) -> None:
    register_tool(store, scope.tenant, "inventory-api", reporters=("warehouse-bot",),
                  actor=ADMIN, reason="stock counts")
    stranger = remember(store, tool_result(scope, "inventory-api"), actor="key:k9(chat-bot)")
    assert stranger.decision is Decision.CANDIDATE
    assert "key:k9(chat-bot) is not registered to report for tool inventory-api" in \
        stranger.reason
    named = remember(store, tool_result(scope, "inventory-api", source_id="call-2"),
                     actor="key:k7(warehouse-bot)")
    assert named.decision is Decision.ACTIVE  # named by its key's name


def test_withdrawing_a_registration_holds_later_results_and_keeps_what_it_made_active(
    store: Store, scope: Scope,
) -> None:
    register_tool(store, scope.tenant, "crm", actor=ADMIN, reason="the CRM")
    assert remember(store, tool_result(scope, "crm"), actor=ACTOR).decision is Decision.ACTIVE
    unregister_tool(store, scope.tenant, "crm", actor=ADMIN, reason="the CRM was replaced")
    assert registered_tools(store, scope.tenant) == []  # withdrawn at the same instant too
    for _ in range(4):  # the latest decision holds, however many share the clock's instant
        register_tool(store, scope.tenant, "erp", actor=ADMIN, reason="the ERP")
        assert [t.name for t in registered_tools(store, scope.tenant)] == ["erp"]
        unregister_tool(store, scope.tenant, "erp", actor=ADMIN, reason="not yet")
        assert registered_tools(store, scope.tenant) == []
    later = remember(store, tool_result(scope, "crm", key="plan", value="team",
                                        source_id="call-3"), actor=ACTOR)
    assert later.decision is Decision.CANDIDATE
    assert values(recall(store, mine(scope), "policy:returns", "refund.window")) == [REFUND]
    trust = [e for e in audit(store, scope.tenant) if e.action == "trust"][:2]
    assert [(e.details["decision"], e.actor, e.reason) for e in trust] == [
        ("trusted", ADMIN, "the CRM"), ("distrusted", ADMIN, "the CRM was replaced")]


def test_a_tool_name_or_version_that_is_malformed_or_not_registered_is_refused_with_nothing_kept(
    store: Store, scope: Scope,
) -> None:
    with pytest.raises(InvalidArgument, match="without blanks"):
        register_tool(store, scope.tenant, "two words", actor=ADMIN, reason="x")
    with pytest.raises(InvalidArgument, match=r"logged\) is empty"):
        register_tool(store, scope.tenant, "crm", actor=ADMIN, reason=" ")
    with pytest.raises(InvalidArgument, match="not registered"):
        unregister_tool(store, scope.tenant, "crm", actor=ADMIN, reason="gone")
    assert audit(store, scope.tenant) == []
    with pytest.raises(ValueError, match="one version"):
        tool_result(scope, "crm", "v2", source_version="v3")
    with pytest.raises(ValueError, match="tool_result only"):
        memory(scope, tool="crm")
