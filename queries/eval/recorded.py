"""An evaluation's summary kept in the store, so that the service and the explorer show it
(``GET /v1/eval/report``, docs/explorer.md).

``vintage eval --record`` appends one event of action ``eval.report`` to the tenant it runs as,
its details the summary as JSON (what ``vintage eval --json`` prints); the latest one is the
report. An event, as the embedder choice is (``vintage.graph.retrieval.choice``): both backends
keep it with no schema of their own, ``vintage audit`` shows who ran it, and nothing of it lies
beside the store (a Neo4j store has no "beside").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from vintage.graph.core.model import Event, new_event_id
from vintage.graph.store.protocol import Store

ACTION = "eval.report"


@dataclass(frozen=True)
class Recorded:
    event: str
    at: datetime
    actor: str
    summary: dict[str, Any]


def record(store: Store, tenant: str, summary: dict[str, Any], *, actor: str) -> Recorded:
    """Append ``summary`` as the tenant's latest evaluation report."""
    text = json.dumps(summary, default=str, ensure_ascii=False)
    event = Event(id=new_event_id(), tenant=tenant, at=store.now(), actor=actor,
                  action=ACTION, reason="vintage eval --record", details={"summary": text})
    store.write(tenant, lambda tx: tx.append_events(event))
    return Recorded(event.id, event.at, actor, json.loads(text))


def latest(store: Store, tenant: str) -> Recorded | None:
    """The tenant's latest recorded report (None: none was recorded)."""
    found = store.events(tenant, actions=[ACTION])
    if not found:
        return None
    last = found[-1]  # events come in (at, id) order
    return Recorded(last.id, last.at, last.actor, json.loads(str(last.details["summary"])))
