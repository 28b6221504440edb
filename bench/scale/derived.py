"""Derived metrics over the scale tenant, built in bulk in the shape ``derive()`` makes.

Per company and period: revenue in EUR (``revenue / rate``, the rate being the year's shared
``fx:USDPerEUR`` fact) and operating margin (``100 * operating_income / revenue``); per year,
operating income in EUR (``revenue_eur * margin / 100``, over the two derived facts: depth 2 and
a diamond on revenue). Each is computed on the inputs current when the build runs.

``derive()`` costs a transaction and ~10 queries per fact, far too slow for 360,000 of them, so
the records are made as ``vintage.graph.derivations.derived.derive_in`` makes them (the
generalisation of
``bench.cascade.setup.derived_record`` to any subject and period) and written with that
module's bulk writers: ``create_facts`` in chunks, then one ``UNWIND`` per chunk that creates
the same ``Derivation`` node and ``USED`` / ``GENERATED`` edges as ``cypher.create_derivations``.
:func:`check_shape` proves the copy faithful on a scratch tenant: one fact made by ``derive()``
must get the id, value and derivation id predicted here, and the stored shape of a bulk-made
derivation must equal the real one's.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.cascade import setup as cascade_setup
from bench.scale import data as scale_data
from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import FactKind, Status
from vintage.graph.core.model import Event, Fact, Scope, assertion_key, digest
from vintage.graph.derivations.derived import Output, derive
from vintage.graph.derivations.recipes import Recipe, expression
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.store.protocol import DerivationWrite
from vintage.graph.writes.semantics import record
from vintage.ingest.sec.companyfacts import ingest_companyfacts

REVENUE_EUR = expression("revenue_eur", "1", "revenue / rate")
MARGIN = expression("operating_margin", "1", "100 * operating_income / revenue")
OPINC_EUR = expression("operating_income_eur", "1", "revenue_eur * margin / 100")
DERIVED = ("derived:RevenuesEUR", "derived:OperatingMargin", "derived:OperatingIncomeLossEUR")
_REVENUE, _OPINC = "us-gaap:Revenues", "us-gaap:OperatingIncomeLoss"
SUBJECTS_PER_CHUNK = 200  # what one read brings into memory: ~13,000 current facts


@dataclass
class Planned:
    facts: list[Fact] = field(default_factory=list)
    writes: list[DerivationWrite] = field(default_factory=list)
    on_cascade_rate: int = 0  # derived facts downstream of the restated year's rate


def derived_record(scope: Scope, recipe: Recipe, inputs: dict[str, Fact], out: Output,
                   now: datetime, event_id: str) -> tuple[Fact, DerivationWrite]:
    """The fact and derivation ``derive_in`` writes for current inputs and no earlier version."""
    key = assertion_key(scope, out.subject, out.predicate, out.valid_from, out.valid_to,
                        out.unit)
    ids = {role: f.id for role, f in inputs.items()}
    value = recipe.evaluate({role: f.value for role, f in inputs.items()})
    available = max(f.available_at for f in inputs.values())
    content = digest(type(value).__name__, value, out.unit)
    fact = Fact(
        id=f"{key}.d{digest(content, available.isoformat())[:12]}", key=key, revision=1,
        tenant=scope.tenant, scope=tuple(scope.terms()), kind=FactKind.DERIVED,
        status=Status.ACTIVE, subject=out.subject, predicate=out.predicate, value=value,
        unit=out.unit, valid_from=out.valid_from, valid_to=out.valid_to, available_at=available,
        superseded_at=None, superseded_recorded_at=None, recorded_at=now, invalidated_at=None,
        authority=min(f.authority for f in inputs.values()), owner=None, retention_reason=None,
        content_hash=content, event_id=event_id,
    )
    used = tuple(sorted((fid, role) for role, fid in ids.items()))
    return fact, DerivationWrite(recipe.derivation(ids, key), used, (fact.id,), now)


def _output(subject: str, predicate: str, p: scale_data.Period, unit: str) -> Output:
    return Output(subject, predicate, p.valid_from, p.valid_to, unit)


def plan_company(scope: Scope, facts: Sequence[Fact], rates: dict[int, Fact], now: datetime,
                 event_id: str) -> Planned:
    """The 36 derived records of one company from its current facts."""
    planned = Planned()
    by = {(f.predicate, f.valid_from, f.valid_to): f for f in facts}

    def add(recipe: Recipe, inputs: dict[str, Fact], out: Output) -> Fact:
        fact, write = derived_record(scope, recipe, inputs, out, now, event_id)
        planned.facts.append(fact)
        planned.writes.append(write)
        return fact

    subject = facts[0].subject
    for p in scale_data.all_periods():
        revenue = by[_REVENUE, p.valid_from, p.valid_to]
        opinc = by[_OPINC, p.valid_from, p.valid_to]
        eur = add(REVENUE_EUR, {"revenue": revenue, "rate": rates[p.year]},
                  _output(subject, DERIVED[0], p, "EUR"))
        margin = add(MARGIN, {"operating_income": opinc, "revenue": revenue},
                     _output(subject, DERIVED[1], p, "percent"))
        planned.on_cascade_rate += p.year == scale_data.CASCADE_YEAR
        if p.fp == "FY":
            add(OPINC_EUR, {"revenue_eur": eur, "margin": margin},
                _output(subject, DERIVED[2], p, "EUR"))
            planned.on_cascade_rate += p.year == scale_data.CASCADE_YEAR
    return planned


def _rates(store: Neo4jStore, scope: Scope) -> dict[int, Fact]:
    found = store.read(AsOf(scope, subjects=(scale_data.FX_SUBJECT,),
                            predicates=(scale_data.FX_PREDICATE,)))
    return {f.valid_from.year: f for f in found}


def build(store: Neo4jStore, scope: Scope, n_subjects: int) -> dict[str, Any]:
    """Every company's derived facts, ``SUBJECTS_PER_CHUNK`` companies per read and write."""
    began = time.perf_counter()
    rates = _rates(store, scope)
    event_id = "e" + uuid.uuid4().hex
    made = on_rate = 0
    names = list(scale_data.tickers(n_subjects))
    for start in range(0, len(names), SUBJECTS_PER_CHUNK):
        chunk = tuple(names[start:start + SUBJECTS_PER_CHUNK])
        current = store.read(AsOf(scope, subjects=chunk, predicates=(_REVENUE, _OPINC)))
        per: dict[str, list[Fact]] = {}
        for f in current:
            per.setdefault(f.subject, []).append(f)
        planned = Planned()
        for facts in per.values():
            one = plan_company(scope, facts, rates, store.now(), event_id)
            planned.facts += one.facts
            planned.writes += one.writes
            planned.on_cascade_rate += one.on_cascade_rate
        cascade_setup.write_neo4j(store, scope.tenant, planned.facts, planned.writes)
        made += len(planned.facts)
        on_rate += planned.on_cascade_rate
    # One audit event for the bulk build, as bench.cascade.setup does (derive() writes one each).
    store.write(scope.tenant, lambda tx: tx.append_events(Event(
        id=event_id, tenant=scope.tenant, at=store.now(), actor="bench-scale", action="derive",
        details={"bulk": True, "derivations": made})))
    return {"derived": made, "on_restated_rate": on_rate,
            "seconds": time.perf_counter() - began}


def check_shape(store: Neo4jStore, first_file: Path) -> dict[str, Any]:
    """On a scratch tenant: one company and the rates ingested, its derived facts planned; one
    made by ``derive()`` must equal its prediction, and a bulk-made one must be stored in the
    same shape. The tenant is purged afterwards."""
    scope = Scope(tenant=f"bench-scale-shape-{uuid.uuid4().hex[:8]}")
    try:
        ingest_companyfacts(store, scope, first_file, actor="bench-shape")
        record(store, scope, scale_data.fx_batch(), actor="bench-shape")
        facts = store.read(AsOf(scope, predicates=(_REVENUE, _OPINC)))
        planned = plan_company(scope, facts, _rates(store, scope), store.now(), "e-shape")
        real_fact, real_write = planned.facts[1], planned.writes[1]  # a margin: 2 inputs
        recipe = MARGIN
        made = derive(store, scope, recipe, {role: fid for fid, role in real_write.used},
                      Output(real_fact.subject, real_fact.predicate, real_fact.valid_from,
                             real_fact.valid_to, real_fact.unit), actor="bench-shape")
        predicted, write = derived_record(
            scope, recipe, {role: next(f for f in facts if f.id == fid)
                            for fid, role in real_write.used},
            Output(real_fact.subject, real_fact.predicate, real_fact.valid_from,
                   real_fact.valid_to, real_fact.unit), made.fact.recorded_at,
            made.fact.event_id)
        bulk = Planned(planned.facts[3:4], planned.writes[3:4])  # the next period's margin
        cascade_setup.write_neo4j(store, scope.tenant, bulk.facts, bulk.writes)
        same_record = predicted == made.fact and write.derivation.id == made.derivation_id
        real = cascade_setup.shape(store, scope.tenant, made.derivation_id)
        bulk_shape = cascade_setup.shape(store, scope.tenant, bulk.writes[0].derivation.id)
        return {"same_ids_and_values": same_record, "same_shape": real == bulk_shape,
                "ok": same_record and real == bulk_shape}
    finally:
        store.purge_tenant(scope.tenant)
