"""Diagnostic for ``bench.memory`` (untimed, after every timed phase): the transactions and
Cypher queries one memory operation sends to Neo4j, counted by wrapping the driver's
``Session.execute_read`` / ``begin_transaction`` (writes, vintage.graph.neo4j.retry) and each
transaction's ``run`` for one call."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import neo4j

from bench.memory.work import ACTOR, CONTEXT_LIMIT, Result, Workload, Write, clock, draft, subject
from bench.neo4j_raw import plan_operators
from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import Status
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import as_of
from vintage.graph.memory.forget import forget
from vintage.graph.memory.gate import FACT_KIND, memory_scope
from vintage.graph.memory.ranking import DEMOTE
from vintage.graph.memory.remember import remember
from vintage.graph.neo4j import cypher
from vintage.graph.neo4j import cypher_reads as reads
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.store.protocol import Store
from vintage.queries.memory.recall import recall
from vintage.queries.search.context import build_context


def _short(text: object) -> str:
    return re.sub(r"\s+", " ", str(text)).strip()[:90]


@contextmanager
def traced() -> Iterator[list[str]]:
    """Collect ``tx <kind>`` per transaction and the first characters of each query run."""
    found: list[str] = []
    read, write = neo4j.Session.execute_read, neo4j.Session.begin_transaction
    managed_run, explicit_run = neo4j.ManagedTransaction.run, neo4j.Transaction.run

    def transaction(kind: str, original: Any) -> Callable[..., Any]:
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            found.append(f"tx {kind}")
            return original(self, *args, **kwargs)
        return wrapper

    def query(run: Any) -> Callable[..., Any]:
        def wrapper(self: Any, text: Any, parameters: Any = None, **kwargs: Any) -> Any:
            found.append(_short(text))
            return run(self, text, parameters, **kwargs)
        return wrapper

    with mock.patch.object(neo4j.Session, "execute_read", transaction("read", read)), \
            mock.patch.object(neo4j.Session, "begin_transaction", transaction("write", write)), \
            mock.patch.object(neo4j.ManagedTransaction, "run", query(managed_run)), \
            mock.patch.object(neo4j.Transaction, "run", query(explicit_run)):
        yield found


def _one(call: Callable[[], object]) -> Result:
    with traced() as found:
        call()
    return {"transactions": sum(f.startswith("tx ") for f in found),
            "queries": sum(not f.startswith("tx ") for f in found), "trace": found}


def trace(store: Store, tenant: str, work: Workload) -> Result:
    """One call of each operation, on a user that was not erased (none left: no trace)."""
    user = next((u for u in work.users if u not in work.erased), None)
    if user is None:
        return {}
    key = work.keys[0]
    value = work.expected[(user, key)]
    scope = memory_scope(tenant, user=user)
    corrected = Write(user, key, f"{value}-traced", f"msg-{user}-{key}-traced", "correction")
    restated = Write(user, key, corrected.value, f"msg-{user}-{key}-again", "restated")
    return {
        "remember (correction)": _one(
            lambda: remember(store, draft(tenant, corrected, clock()), actor=ACTOR)),
        "remember (restated)": _one(
            lambda: remember(store, draft(tenant, restated, clock()), actor=ACTOR)),
        "recall (one key)": _one(lambda: recall(store, scope, subject(user), key)),
        "recall (all keys)": _one(lambda: recall(store, scope, subject(user))),
        "build_context": _one(lambda: build_context(
            store, scope, subject(user), thread="bench-trace", limit=CONTEXT_LIMIT,
            actor=ACTOR)),
        "forget (user)": _one(lambda: forget(store, Scope(tenant=tenant), user=user,
                                             actor=ACTOR, reason="bench: trace")),
    }


def plans(store: Neo4jStore, tenant: str, work: Workload) -> dict[str, list[str]]:
    """The planner's choice (EXPLAIN: nothing runs) for the reads a memory call makes."""
    user, key = work.users[0], work.keys[0]
    scope = memory_scope(tenant, user=user)
    now = clock()

    def read(key: str | None) -> cypher.Query:
        spec = AsOf(scope, known_at=now, valid=as_of(now), subjects=(subject(user),),
                    predicates=None if key is None else (key,),
                    statuses=frozenset({Status.ACTIVE, Status.CONFLICTED}),
                    kinds=tuple(FACT_KIND.values()))
        return reads.read_facts(spec.resolved(now), None)

    ident = draft(tenant, Write(user, key, "-", "-", "new"), now).assertion_key()
    queries = {
        "gate read (history)": cypher.history(tenant, ident),
        "recall one key (read_facts)": read(key),
        "recall all keys (read_facts)": read(None),
        "ranking weights (events, demote)": reads.events(tenant, [DEMOTE]),
        "forget user (facts_in)": cypher.facts_in(
            Scope(tenant=tenant, keys={"user": user}), tuple(FACT_KIND.values())),
    }
    return {name: plan_operators(store.driver, q.text, q.params) for name, q in queries.items()}
