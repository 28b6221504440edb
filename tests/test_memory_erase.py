"""Erasure and summaries on both backends: a forgotten memory's text is nowhere in the store,
its derived summary is gone with it, and a content-free tombstone remains.

Every test that finds a text gone first finds it there, in the same place (the embedded log,
Neo4j's properties, recall), so that it fails when erasure does nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.factories import ACTOR, memory, mine, values
from tests.on_disk import every_byte, fact_rows
from vintage.graph.core.model import Scope, Value
from vintage.graph.memory.forget import forget
from vintage.graph.memory.remember import invalidate_memory, remember
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.sealing.sealed import CIPHERTEXT, Sealer
from vintage.graph.sqlite.store import SqliteStore
from vintage.graph.store.protocol import Store, UnknownReference
from vintage.queries.lineage.asof import facts_as_of
from vintage.queries.memory.recall import audit, recall
from vintage.queries.memory.summaries import SUMMARY_PREDICATE, summarise

SECRET_ISH = "ship to 221B Baker Street please"
# Any property, list-valued ones included, whose text contains $x.
_CONTAINS = ("any(e IN CASE WHEN valueType(v) STARTS WITH 'LIST' THEN v ELSE [v] END "
             "WHERE toString(e) CONTAINS $x)")


def occurrences(store: Store, tenant: str, text: str) -> int:
    """Every place ``text`` is stored, as someone holding the store and its key file reads it:
    in clear, or sealed under a key that still exists (Neo4j nodes and relationships, or the
    embedded log)."""
    if isinstance(store, Neo4jStore):
        with store.driver.session() as session:
            nodes = session.run(
                "MATCH (n) WHERE n.tenant = $t UNWIND keys(n) AS k WITH n[k] AS v "
                f"WHERE {_CONTAINS} RETURN count(*) AS c", t=tenant, x=text).single()
            rels = session.run(
                "MATCH (n)-[r]->() WHERE n.tenant = $t UNWIND keys(r) AS k WITH r[k] AS v "
                f"WHERE {_CONTAINS} RETURN count(*) AS c", t=tenant, x=text).single()
            assert nodes is not None and rels is not None
            sealed = [dict(r["f"]) for r in session.run(
                "MATCH (f:Fact {tenant: $t}) WHERE f.ciphertext IS NOT NULL RETURN f", t=tenant)]
        return int(nodes["c"]) + int(rels["c"]) + _unsealed(store.sealer, tenant, sealed, text)
    assert isinstance(store, SqliteStore) and store.path is not None
    raw = every_byte(store.path)
    rows = fact_rows(store.path, tenant)
    return raw.count(text.encode("utf-8")) + _unsealed(store.sealer, tenant, rows, text)


def _unsealed(sealer: Sealer | None, tenant: str, rows: list[dict[str, Any]], text: str) -> int:
    """How often ``text`` is in the sealed content of ``rows`` that can still be unsealed."""
    rows = [r for r in rows if CIPHERTEXT in r]
    if sealer is None:
        assert not rows, "sealed facts in a store opened without keys"
        return 0
    return sum(json.dumps(sealer.unseal(tenant, r), default=str).count(text) for r in rows)


def summaries(store: Store, scope: Scope) -> list[Value]:
    """The subject's current summaries. ``recall`` never returns them (they are derived facts,
    not memories), so it cannot tell whether one is gone."""
    return [a.fact.value for a in facts_as_of(store, scope, subjects=["user:42"],
                                                predicates=[SUMMARY_PREDICATE])]


def remembered(store: Store, scope: Scope, **fields: Any) -> str:
    done = remember(store, memory(scope, **fields), actor=ACTOR)
    assert done.memory_id is not None
    return done.memory_id


def test_after_erasing_a_memory_its_text_and_summary_are_nowhere_and_a_tombstone_remains(
    store: Store, scope: Scope,
) -> None:
    remembered(store, scope, value=SECRET_ISH, consent=True)
    remembered(store, scope, key="gift.wrap", value="yes", source_id="msg-2")
    summary = summarise(store, mine(scope), "user:42", actor=ACTOR).fact
    assert SECRET_ISH in str(summary.value)
    assert occurrences(store, scope.tenant, SECRET_ISH) >= 2  # the memory and its summary
    assert values(recall(store, mine(scope), "user:42", "shipping.preference")) == [SECRET_ISH]
    assert summaries(store, mine(scope)) == [summary.value]
    gone = forget(store, mine(scope), subject="user:42", key="shipping.preference",
                  actor="user:42", reason="user asked to forget it")
    assert (gone.facts, gone.derived) == (1, 1)
    assert occurrences(store, scope.tenant, SECRET_ISH) == 0
    assert recall(store, mine(scope), "user:42", "shipping.preference") == []
    assert summaries(store, mine(scope)) == []
    assert values(recall(store, mine(scope), "user:42", "gift.wrap")) == ["yes"]
    (tombstone,) = [e for e in audit(store, scope.tenant) if e.action == "erase"]
    assert tombstone.details["facts"] == 1 and SECRET_ISH not in str(tombstone.model_dump())


def test_every_version_of_a_corrected_memory_is_erased(store: Store, scope: Scope) -> None:
    remembered(store, scope, value="first address, 10 Downing Street", consent=True)
    remembered(store, scope, value="second address, 1 Infinite Loop", source_id="msg-2",
               observed_at="2026-05-02T10:00:00Z", consent=True)
    texts = ("10 Downing Street", "1 Infinite Loop")
    assert all(occurrences(store, scope.tenant, text) >= 1 for text in texts)
    forget(store, mine(scope), subject="user:42", key="shipping.preference", actor="x",
           reason="erase request")
    for text in texts:
        assert occurrences(store, scope.tenant, text) == 0


def test_forgetting_what_was_erased_already_is_refused_and_writes_no_second_tombstone(
    store: Store, scope: Scope,
) -> None:
    remembered(store, scope, value="office")
    which = {"subject": "user:42", "key": "shipping.preference", "actor": "x", "reason": "asked"}
    assert forget(store, mine(scope), **which).facts == 1
    erased = [e for e in audit(store, scope.tenant) if e.action == "erase"]
    with pytest.raises(UnknownReference, match="erased already"):
        forget(store, mine(scope), **which)
    with pytest.raises(UnknownReference, match="erased already"):
        forget(store, scope, user="42", actor="admin", reason="account deleted")
    assert [e for e in audit(store, scope.tenant) if e.action == "erase"] == erased
    # By source, what is erased already is not counted again.
    remembered(store, scope, key="gift.wrap", value="yes", source_id="msg-2")
    assert forget(store, scope, source_id="msg-2", actor="x", reason="asked").facts == 1
    assert forget(store, scope, source_id="msg-2", actor="x", reason="asked").facts == 0


def test_forgetting_everything_of_one_user_leaves_the_other_users_alone(
    store: Store, scope: Scope,
) -> None:
    remembered(store, scope, value="office")
    remembered(store, scope, key="gift.wrap", value="yes", source_id="msg-2")
    remembered(store, scope, user="43", subject="user:43", owner="user:43", source_id="msg-3",
               value="home")
    assert sorted(map(str, values(recall(store, mine(scope), "user:42")))) == ["office", "yes"]
    assert occurrences(store, scope.tenant, "office") >= 1
    gone = forget(store, scope, user="42", actor="admin", reason="account deleted")
    assert gone.facts == 2
    assert occurrences(store, scope.tenant, "office") == 0
    assert recall(store, mine(scope), "user:42") == []
    assert values(recall(store, mine(scope, "43"), "user:43")) == ["home"]


def test_forgetting_a_user_also_erases_their_invalidated_memories(
    store: Store, scope: Scope,
) -> None:
    u1 = {"user": "u1", "subject": "user:u1", "owner": "user:u1"}
    remembered(store, scope, **u1, value=SECRET_ISH, consent=True)  # an address: with consent
    remembered(store, scope, **u1, key="gift.wrap", value="yes", source_id="msg-2")
    remembered(store, scope, user="u2", subject="user:u2", owner="user:u2", source_id="msg-3",
               value="the u2 office")
    invalidate_memory(store, mine(scope, "u1"), "user:u1", "shipping.preference", actor="ops",
                      reason="wrong user")
    assert occurrences(store, scope.tenant, SECRET_ISH) == 1  # invisible now, still stored
    gone = forget(store, scope, user="u1", actor="admin", reason="account deleted")
    assert gone.facts == 2
    assert occurrences(store, scope.tenant, SECRET_ISH) == 0
    assert occurrences(store, scope.tenant, "the u2 office") == 1


def test_a_correction_closes_the_summary_of_the_corrected_memory(
    store: Store, scope: Scope,
) -> None:
    remembered(store, scope, value="office")
    summarise(store, mine(scope), "user:42", actor=ACTOR)
    assert summaries(store, mine(scope)) == ["shipping.preference: office"]
    remembered(store, scope, value="home", source_id="msg-2",
               observed_at="2026-05-02T10:00:00Z")
    assert summaries(store, mine(scope)) == []
    fresh = summarise(store, mine(scope), "user:42", actor=ACTOR).fact
    assert fresh.value == "shipping.preference: home"


def test_forgetting_by_source_erases_what_rests_on_it_alone(
    store: Store, scope: Scope,
) -> None:
    remembered(store, scope, value="office")
    remembered(store, scope, key="gift.wrap", value="yes", source_id="msg-2")
    remembered(store, scope, key="gift.wrap", value="yes", source_id="msg-3")
    assert values(recall(store, mine(scope), "user:42", "shipping.preference")) == ["office"]
    assert occurrences(store, scope.tenant, "office") >= 1
    gone = forget(store, mine(scope), source_id="msg-2", actor="x", reason="source withdrawn")
    assert (gone.by, gone.facts, gone.kept, gone.released) == ("source", 0, 1, 0)  # msg-3
    assert values(recall(store, mine(scope), "user:42", "gift.wrap")) == ["yes"]
    gone = forget(store, mine(scope), source_id="msg-1", actor="x", reason="source withdrawn")
    assert (gone.facts, gone.kept, gone.released) == (1, 0, 0)
    assert recall(store, mine(scope), "user:42", "shipping.preference") == []
    assert occurrences(store, scope.tenant, "office") == 0
    with pytest.raises(UnknownReference):
        forget(store, mine(scope), source_id="nope", actor="x", reason="-")


def inferred(store: Store, scope: Scope, evidence: str) -> str:
    done = remember(store, memory(scope, kind="inference", key="lives.near.office", value=True,
                                  source_kind="model_inference", source_id="infer-1",
                                  evidence=(evidence,)), actor=ACTOR)
    assert done.memory_id is not None
    return done.memory_id


def test_an_inference_rests_on_its_evidence_and_is_erased_with_it(
    store: Store, scope: Scope,
) -> None:
    base = remembered(store, scope, value="ship to the office")
    inference = inferred(store, scope, base)
    assert [m.id for m in recall(store, mine(scope), "user:42", "lives.near.office",
                                 candidates=True)] == [inference]
    gone = forget(store, mine(scope), subject="user:42", key="shipping.preference",
                  actor="user:42", reason="forget it")
    assert gone.derived == 1
    assert recall(store, mine(scope), "user:42", "lives.near.office", candidates=True) == []


def test_correcting_the_evidence_closes_the_inference(store: Store, scope: Scope) -> None:
    base = remembered(store, scope, value="ship to the office")
    inference = inferred(store, scope, base)
    assert [m.id for m in recall(store, mine(scope), "user:42", "lives.near.office",
                                 candidates=True)] == [inference]
    remembered(store, scope, value="ship to my home", source_id="msg-2",
               observed_at="2026-05-02T10:00:00Z")
    assert recall(store, mine(scope), "user:42", "lives.near.office", candidates=True) == []


def test_an_inference_citing_unknown_evidence_is_refused_and_writes_nothing(
    store: Store, scope: Scope,
) -> None:
    with pytest.raises(UnknownReference, match="unknown evidence"):
        inferred(store, scope, "no-such-memory")
    assert store.events(scope.tenant) == []
