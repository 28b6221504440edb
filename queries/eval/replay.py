"""Replaying a scenario's steps through the engine, on a tenant of its own, at the steps' instants.

Each step calls the function the CLI, HTTP and MCP call for that operation (``remember_checked``,
``correct_by_id``, ``forget``, ``ingest_table``, ``build_pack`` ...), as its principal, with the
store's clock set to the step's instant. What each step wrote is kept by name (:class:`Written`),
so that asks can say which items must or must not reach a context, and so that a peer that keeps
no store of its own shape (the naive RAG peer) can be fed the same texts.
"""


from __future__ import annotations

import threading
from datetime import datetime
from typing import Any

from vintage.graph.core.errors import UserError
from vintage.graph.retrieval.embedder import Embedder
from vintage.graph.store.protocol import Store
from vintage.queries.eval import scenario as sc
from vintage.queries.eval.steps import RUN, remember_step
from vintage.queries.eval.written import IngestFile, Replay, Settable, Written


def replay(store: Store, clock: Settable, embedder: Embedder, s: sc.Scenario,
           tenant: str, ingest: IngestFile | None = None) -> Replay:
    """Run every step of ``s`` in ``tenant``; a step the engine refuses with an error is kept
    with its error (the write layer reports it), and the replay goes on."""
    done = Replay(tenant, ingest=ingest, scenario=s)
    instants, _ = s.timeline()
    steps = list(zip(s.steps, instants, strict=True))
    n = 0
    while n < len(steps):
        step, at = steps[n]
        group = [(step, at)]
        if isinstance(step, sc.Remember) and step.concurrent:
            while n + len(group) < len(steps):
                nxt = steps[n + len(group)][0]
                if not (isinstance(nxt, sc.Remember) and nxt.concurrent):
                    break
                group.append(steps[n + len(group)])
        clock.now = at
        if len(group) > 1:
            _at_once(store, embedder, done, group, n)
        else:
            _one(store, embedder, done, step, at, n)
        n += len(group)
    return done


def _one(store: Store, embedder: Embedder, done: Replay, step: Any, at: datetime,
         n: int) -> None:
    w = Written(name=step.name or f"step-{n + 1}", op=step.op, at=at)
    try:
        RUN[type(step)](store, embedder, done, step, w)
    except UserError as exc:
        w.error = str(exc).splitlines()[0][:200]
    _snapshot(store, done.tenant, w)
    done.keep(w)


def _at_once(store: Store, embedder: Embedder, done: Replay, group: list[tuple[Any, datetime]],
             first: int) -> None:
    """Concurrent writes: each in its own thread, started together."""
    gate = threading.Barrier(len(group))
    records = [Written(name=s.name or f"step-{first + i + 1}", op=s.op, at=at)
               for i, (s, at) in enumerate(group)]

    def run(i: int) -> None:
        gate.wait()
        try:
            remember_step(store, embedder, done, group[i][0], records[i])
        except UserError as exc:
            records[i].error = str(exc).splitlines()[0][:200]

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(group))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for w in records:
        _snapshot(store, done.tenant, w)
        done.keep(w)


def _snapshot(store: Store, tenant: str, w: Written) -> None:
    """The versions the step created, as stored right after it (a later erasure or
    correction must not make the write look unfaithful)."""
    if w.ids:
        ids = list(w.ids)
        w.stored = dict(store.reading(tenant, lambda tx: tx.get_facts(ids)))

