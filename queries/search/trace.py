"""The injection trace: what a context pack considered, filtered, kept, cut and where each item
went, and which items the agent then used (docs/retrieval.md, "Context packs and the injection
trace").

A pack's injection event (``action=inject``, ``vintage.graph.memory.ranking``) carries its trace as
a JSON string in ``details["trace"]``: ids, reasons from ``vintage.graph.core.exclusion`` and
numbers only, never a value, a query or any text of an item, since events are not sealed. It keeps
the read's instants and filters, so any fact version can be judged against the very read that built
the pack:

* **not saved**: no such version in the tenant, or recorded after the read's system instant;
* **filtered**: there, and excluded by a hard filter of that read (the first reason, as
  ``vintage.graph.core.exclusion.why_excluded`` gives it);
* **not found**: legal for that read, yet the query did not rank it among the considered;
* **cut**: considered, and left out by the budget;
* **seen but unused**: injected, and not marked used;
* **used**: injected, and marked used (``mark_used``: a ``used`` event, ids only).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from vintage.graph.core.asof import AsOf
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.exclusion import ID, why_excluded
from vintage.graph.core.kinds import Authority, FactKind, Status
from vintage.graph.core.model import Event, Scope, new_event_id
from vintage.graph.core.temporal import Interval, parse_instant
from vintage.graph.memory.ranking import INJECT
from vintage.graph.store.protocol import Store, UnknownReference
from vintage.queries.search.request import two_stage_ids

USED = "used"


class Verdict(StrEnum):
    NOT_SAVED = "not saved"
    FILTERED = "filtered"
    NOT_FOUND = "not found"
    CUT = "cut"
    UNUSED = "seen but unused"
    USED = "used"


@dataclass(frozen=True)
class Judged:
    item: str
    verdict: Verdict
    reason: str | None = None  # the hard filter, for "filtered"


@dataclass(frozen=True)
class Injection:
    id: str
    tenant: str
    thread: str
    at: datetime
    actor: str
    trace: dict[str, Any]  # the pack's trace (docs/retrieval.md lists its fields)
    used: tuple[str, ...]  # items marked used, in the order they were first marked

    @property
    def final(self) -> tuple[str, ...]:
        return tuple(self.trace.get("final", ()))


def read_injection(store: Store, tenant: str, injection_id: str) -> Injection:
    """The pack injection ``injection_id`` of the tenant with the items marked used since."""
    found = [e for e in store.events(tenant, actions=[INJECT]) if e.id == injection_id]
    if not found:
        raise UnknownReference(f"no injection {injection_id[:40]!r} in this tenant")
    (event,) = found
    raw = event.details.get("trace")
    if not isinstance(raw, str):
        raise InvalidArgument(f"injection {injection_id} was recorded without a trace (a "
                              "context built by subject, before context packs)")
    used: list[str] = []
    for e in store.events(tenant, actions=[USED]):
        if e.details.get("injection") == injection_id:
            used.extend(i for i in str(e.details.get("items", "")).split(",")
                        if i and i not in used)
    return Injection(event.id, tenant, str(event.details.get("thread", "")), event.at,
                     event.actor, json.loads(raw), tuple(used))


def mark_used(store: Store, tenant: str, injection_id: str, item_ids: Sequence[str], *,
              actor: str) -> str:
    """Record that the agent used these injected items (an event of ids only). An item the
    injection did not carry is refused, and nothing is recorded."""
    wanted = list(dict.fromkeys(i.strip() for i in item_ids if i.strip()))
    if not wanted:
        raise InvalidArgument("name at least one item the agent used")
    injection = read_injection(store, tenant, injection_id)
    strangers = [i for i in wanted if i not in injection.final]
    if strangers:
        raise InvalidArgument(f"not in context {injection_id}: {', '.join(strangers[:3])}"
                              + (f" and {len(strangers) - 3} more" if len(strangers) > 3
                                 else ""))
    event = Event(id=new_event_id(), tenant=tenant, at=store.now(), actor=actor, action=USED,
                  reason=f"used from context {injection_id}",
                  details={"injection": injection_id, "thread": injection.thread,
                           "items": ",".join(wanted), "count": len(wanted)})
    store.write(tenant, lambda tx: tx.append_events(event))
    return event.id


def spec_document(spec: AsOf) -> dict[str, Any]:
    """The read's hard filters and instants, as the trace keeps them (``read_spec`` inverts)."""
    assert spec.known_at is not None and spec.system_at is not None
    return {
        "scope": spec.scope.terms(), "known_at": spec.known_at.isoformat(),
        "system_at": spec.system_at.isoformat(),
        "valid": [None if t is None else t.isoformat() for t in (spec.valid.start,
                                                                  spec.valid.end)],
        "statuses": sorted(s.value for s in spec.statuses),
        "subjects": None if spec.subjects is None else list(spec.subjects),
        "kinds": None if spec.kinds is None else [k.value for k in spec.kinds],
        "min_authority": None if spec.min_authority is None else spec.min_authority.name,
    }


def read_spec(injection: Injection) -> AsOf:
    """The hard filters of the read that built the pack, at its instants."""
    read = injection.trace["read"]
    start, end = (None if t is None else parse_instant(t, "valid") for t in read["valid"])
    kinds, subjects = read["kinds"], read["subjects"]
    least = read.get("min_authority")  # absent from traces recorded before it existed
    return AsOf(Scope.from_terms(injection.tenant, list(read["scope"])),
                known_at=parse_instant(read["known_at"], "known_at"),
                system_at=parse_instant(read["system_at"], "system_at"),
                valid=Interval(start, end),
                statuses=frozenset(Status(s) for s in read["statuses"]),
                kinds=None if kinds is None else tuple(FactKind(k) for k in kinds),
                subjects=None if subjects is None else tuple(subjects),
                min_authority=None if least is None else Authority[least])


def judge(store: Store, injection: Injection, item_ids: Sequence[str]) -> tuple[Judged, ...]:
    """Each item's verdict for this injection (see the module's docstring)."""
    t = injection.trace
    final, cut = set(injection.final), set(t.get("cut", ()))
    facts = store.reading(injection.tenant, lambda tx: tx.get_facts(sorted(set(item_ids))))
    spec = read_spec(injection)
    reason_of = why_excluded(spec)
    staged: set[str] | None = None

    def _two_stage(item: str) -> str | None:
        """A two-stage search ranked only the ids of its form and period."""
        nonlocal staged
        if t.get("form") is None and t.get("period") is None:
            return None
        if staged is None:
            staged = set(two_stage_ids(store, spec, t.get("form"), t.get("period")))
        return None if item in staged else ID

    judged = []
    for item in item_ids:
        fact = facts.get(item)
        if item in final:
            verdict = Verdict.USED if item in injection.used else Verdict.UNUSED
            judged.append(Judged(item, verdict))
        elif item in cut:
            judged.append(Judged(item, Verdict.CUT))
        elif fact is None or spec.system_at is None or fact.recorded_at > spec.system_at:
            judged.append(Judged(item, Verdict.NOT_SAVED))
        elif (reason := reason_of(fact) or _two_stage(item)) is not None:
            judged.append(Judged(item, Verdict.FILTERED, reason))
        else:
            judged.append(Judged(item, Verdict.NOT_FOUND))
    return tuple(judged)
