"""Memory scope fails closed inside a tenant (issue 11, point 10), on both backends: reads,
contexts and writes name a user, project or thread; a memory about ``user:N`` lies in user N's
scope; a tenant-wide read is an explicit ``all_scopes`` that the audit records."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.factories import ACTOR, PINNED, PinnedClock, batch, fact, memory, mine, source, values
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.model import Scope
from vintage.graph.memory.conflicts import review
from vintage.graph.memory.forget import forget
from vintage.graph.memory.gate import Decision
from vintage.graph.memory.ranking import demote
from vintage.graph.memory.remember import invalidate_memory, remember
from vintage.graph.memory.rollback import rollback
from vintage.graph.memory.scoping import ScopeRequired
from vintage.graph.store.protocol import Store
from vintage.graph.writes.semantics import record
from vintage.queries.lineage.asof import facts_as_of
from vintage.queries.memory.recall import audit, recall
from vintage.queries.memory.summaries import summarise
from vintage.queries.search.context import build_context

ALPHA = "project:alpha"


def three_users_on_alpha(store: Store, scope: Scope) -> None:
    for user in ("1", "2", "3"):
        remember(store, memory(scope, subject=ALPHA, key="deploy.window", user=user,
                               project="alpha", owner=f"user:{user}",
                               value=f"window of user {user}", source_id=f"msg-{user}"),
                 actor=ACTOR)


def test_a_memory_read_or_context_naming_no_scope_fails_closed(
    store: Store, scope: Scope,
) -> None:
    three_users_on_alpha(store, scope)
    before = len(audit(store, scope.tenant))
    with pytest.raises(ScopeRequired, match="names its scope"):
        recall(store, scope, ALPHA)
    with pytest.raises(ScopeRequired, match="--all-scopes"):
        build_context(store, scope, ALPHA, thread="th1", actor=ACTOR)
    with pytest.raises(ScopeRequired):
        review(store, scope)
    assert len(audit(store, scope.tenant)) == before  # nothing handed over, nothing injected
    assert values(recall(store, mine(scope, "2"), ALPHA)) == ["window of user 2"]


def test_a_tenant_wide_read_is_explicit_and_the_audit_names_who_read_what(
    store: Store, scope: Scope, clock: PinnedClock,
) -> None:
    three_users_on_alpha(store, scope)
    found = recall(store, scope, ALPHA, all_scopes=True, actor="ops:alice")
    assert sorted(values(found)) == [f"window of user {u}" for u in ("1", "2", "3")]
    clock.advance(seconds=1)  # events at one instant have no defined order
    context = build_context(store, scope, ALPHA, thread="th1", actor="ops:bob",
                            all_scopes=True)
    assert len(context.memories) == 3
    reads = [e for e in audit(store, scope.tenant, subject=ALPHA) if e.action == "read"]
    assert [(e.actor, e.details["read"]) for e in reads] == [("ops:alice", "memories"),
                                                            ("ops:bob", "context")]
    assert "window of user" not in str([e.model_dump() for e in reads])
    with pytest.raises(InvalidArgument, match="without --user"):
        recall(store, mine(scope), ALPHA, all_scopes=True, actor="ops:alice")
    with pytest.raises(InvalidArgument, match="actor"):
        recall(store, scope, ALPHA, all_scopes=True)


def test_a_memory_about_a_user_lies_in_that_users_scope_and_goes_when_they_are_forgotten(
    store: Store, scope: Scope,
) -> None:
    unscoped = remember(store, memory(scope, subject="user:77", user=None, project="alpha",
                                      owner="user:77"), actor=ACTOR)
    other = remember(store, memory(scope, subject="user:77", user="42", owner="user:77"),
                     actor=ACTOR)
    assert (unscoped.decision, other.decision) == (Decision.REFUSED, Decision.REFUSED)
    assert "user 77's scope: give user 77" in unscoped.reason
    assert "user 77's scope, not user 42's" in other.reason
    kept = remember(store, memory(scope, subject="user:77", user="77", project="alpha",
                                  owner="user:77"), actor=ACTOR)
    assert kept.decision is Decision.ACTIVE
    gone = forget(store, scope, user="77", actor="admin", reason="account deleted")
    assert gone.facts == 1
    assert recall(store, Scope(tenant=scope.tenant, keys={"project": "alpha"}), "user:77") == []


@pytest.mark.parametrize("subject", ["USER:8", "User:8", " user:8", "ｕｓｅｒ:8", "user：8",
                                     "user:８", "user: 8", "user :8", "user\u00a0:8",
                                     "u\u200bser:8", "us\u0435r:8",
                                     "user:8 password is hunter2abc"])
def test_a_subject_that_reads_as_a_user_is_written_user_id_or_refused_without_repeating_it(
    store: Store, scope: Scope, subject: str,
) -> None:
    """Else ``USER:8`` in project alpha is out of reach of ``forget --user 8``; and what
    follows ``user:`` may be anything, so the refusal does not repeat it."""
    written = remember(store, memory(scope, subject=subject, user=None, project="alpha",
                                     owner="user:8"), actor=ACTOR)
    assert written.decision is Decision.REFUSED
    if "password" in subject:  # the sensitive gate comes first, naming only what it found
        assert written.reason.startswith("sensitive content (secret")
    else:
        assert written.reason.endswith("is written user:ID, the user's id as --user takes it "
                                       "(letters, digits and _ . : @ / - only)")
    assert "8" not in written.reason and "hunter2abc" not in str(audit(store, scope.tenant))
    assert recall(store, Scope(tenant=scope.tenant, keys={"project": "alpha"}), subject) == []


def test_a_memory_write_naming_no_scope_is_refused_and_audited(
    store: Store, scope: Scope,
) -> None:
    done = remember(store, memory(scope, subject="account:7", user=None), actor=ACTOR)
    assert done.decision is Decision.REFUSED and "names its scope" in done.reason
    (event,) = audit(store, scope.tenant, subject="account:7")
    assert event.details["decision"] == "refused"


EXITS: dict[str, Callable[[Store, Scope, PinnedClock], object]] = {
    "summarise": lambda s, sc, c: summarise(s, sc, "user:42", actor=ACTOR),
    "demote": lambda s, sc, c: demote(s, sc, "user:42", "shipping.preference", weight=0.5,
                                      actor=ACTOR, reason="rank"),
    "invalidate": lambda s, sc, c: invalidate_memory(s, sc, "user:42", "shipping.preference",
                                                     actor=ACTOR, reason="wrong"),
    "forget a memory": lambda s, sc, c: forget(s, sc, subject="user:42",
                                               key="shipping.preference", actor=ACTOR,
                                               reason="asked"),
    "rollback": lambda s, sc, c: rollback(s, sc, PINNED, actor=ACTOR, reason="undo"),
}


@pytest.mark.parametrize("exit_", sorted(EXITS))
def test_a_memory_exit_naming_no_scope_fails_closed_and_changes_nothing(
    store: Store, scope: Scope, clock: PinnedClock, exit_: str,
) -> None:
    remember(store, memory(scope), actor=ACTOR)
    clock.advance(minutes=1)
    with pytest.raises(ScopeRequired):
        EXITS[exit_](store, scope, clock)
    (held,) = recall(store, mine(scope), "user:42")
    assert (held.value, held.weight) == ("ship to the office", 1.0)


def test_business_facts_are_still_read_tenant_wide(store: Store, scope: Scope) -> None:
    # The scope rule is memory's: SEC and table facts keep the contract's tenant-wide reads.
    record(store, scope, batch(fact(7, "10-Q"), sources=(source("10-Q", "2018-04-24"),)),
           actor=ACTOR)
    (answer,) = facts_as_of(store, scope, subjects=["GOOGL"], predicates=["OperatingIncomeLoss"],
                            known_at=PINNED)
    assert answer.fact.value == 7


@pytest.mark.parametrize(("tenant", "keys"), [
    ("acme\n", {}), ("acme", {"user": "42\n"}), ("acme", {"project\n": "alpha"}),
])
def test_a_scope_part_with_a_trailing_line_break_is_refused(
    tenant: str, keys: dict[str, str],
) -> None:
    # `$` in the pattern matched before a final line break: "42\n" was a user id of its own,
    # another scope than 42's that read the same on every screen.
    with pytest.raises(ValueError, match="letters, digits and"):
        Scope(tenant=tenant, keys=keys)
