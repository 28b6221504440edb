"""The cascade benchmark's graph, built in bulk: one subject, an observation X (revenue, from a
10-K available 2018-04-24), a second input Y, N derived facts ``D_i = X * k_i + Y`` (each its own
assertion ``Metric{i}``, recipe ``scaled`` with parameter ``k = i + 1``) and, for every 10th D_i,
a second level ``E_i = D_i * 2`` (``Metric{i}x2``).

``derive()`` writes one transaction (and several queries) per derived fact, far too slow for
100k. The records here are made exactly as ``vintage.graph.derivations.derived.derive_in`` makes
them (same key, id, value, interval, derivation id and props) and written through the store's own
primitives (``create_facts``, ``put_derivations``), on Neo4j in chunks of their own transactions.
:func:`shape` reads back what was stored, so the benchmark can compare it with one fact made by
``derive()``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from vintage.graph.core.kinds import FactKind, SourceKind, Status
from vintage.graph.core.labels import DERIVATION, FACT, GENERATED
from vintage.graph.core.model import (
    Event,
    Fact,
    FactIn,
    Scope,
    SourceIn,
    Subject,
    assertion_key,
    digest,
)
from vintage.graph.derivations.derived import Output, derive
from vintage.graph.derivations.recipes import Recipe, expression
from vintage.graph.embedded.store import EmbeddedStore
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.store.protocol import DerivationWrite, Store, StoreTx
from vintage.graph.writes.semantics import Batch, record

SUBJECT_ID = "acme"
FY_FROM = datetime(2017, 1, 1, tzinfo=UTC)
FY_TO = datetime(2018, 1, 1, tzinfo=UTC)
S1_AT = datetime(2018, 4, 24, tzinfo=UTC)  # the 10-K that reports X and Y
S2_AT = datetime(2019, 4, 30, tzinfo=UTC)  # the 10-K/A that restates X
X_VALUE, X_RESTATED, Y_VALUE = 1000, 1100, 50
UNIT = "USD"
SECOND_LEVEL_EVERY = 10
NEO4J_CHUNK = 5_000

SCALED = expression("scaled", "1", "x * k + y", k=1)
DOUBLE = expression("double", "1", "d * 2")

_SHAPE = f"""
MATCH (d:{DERIVATION} {{tenant: $tenant, id: $id}})-[r]->(f:{FACT})
RETURN properties(d) AS d, type(r) AS type, properties(r) AS r, properties(f) AS f"""


@dataclass(frozen=True)
class Inputs:
    scope: Scope
    x: Fact
    y: Fact


@dataclass
class Planned:
    facts: list[Fact]
    writes: list[DerivationWrite]
    first_level: list[str]
    second_level: list[str]

    @property
    def derived_ids(self) -> list[str]:
        return self.first_level + self.second_level


def base_batch() -> Batch:
    source = SourceIn(id="S1", kind=SourceKind.FILING, available_at=S1_AT, form="10-K")
    facts = [
        FactIn(subject=SUBJECT_ID, predicate=p, value=v, unit=UNIT, valid_from=FY_FROM,
               valid_to=FY_TO, source="S1")
        for p, v in (("Revenue", X_VALUE), ("Adjustment", Y_VALUE))
    ]
    return Batch(subjects=[Subject(id=SUBJECT_ID, name="Acme Corp")], sources=[source],
                 facts=facts)


def restatement() -> Batch:
    """X restated by an amended annual report: supersedes X at 2019-04-30."""
    source = SourceIn(id="S2", kind=SourceKind.FILING, available_at=S2_AT, form="10-K/A")
    fact = FactIn(subject=SUBJECT_ID, predicate="Revenue", value=X_RESTATED, unit=UNIT,
                  valid_from=FY_FROM, valid_to=FY_TO, source="S2")
    return Batch(sources=[source], facts=[fact])


def record_inputs(store: Store, scope: Scope) -> Inputs:
    created = record(store, scope, base_batch(), actor="bench-setup").created
    facts = store.reading(scope.tenant, lambda tx: tx.get_facts(created))
    by_predicate = {f.predicate: f for f in facts.values()}
    return Inputs(scope, by_predicate["Revenue"], by_predicate["Adjustment"])


def scaled(i: int) -> Recipe:
    return replace(SCALED, parameters={"k": i + 1})


def output(predicate: str) -> Output:
    return Output(SUBJECT_ID, predicate, FY_FROM, FY_TO, UNIT)


def derived_record(
    scope: Scope, recipe: Recipe, inputs: dict[str, Fact], predicate: str, now: datetime,
    event_id: str,
) -> tuple[Fact, DerivationWrite]:
    """The fact and derivation ``derive_in`` would write (inputs current, no earlier version)."""
    key = assertion_key(scope, SUBJECT_ID, predicate, FY_FROM, FY_TO, UNIT)
    ids = {role: f.id for role, f in inputs.items()}
    derivation = recipe.derivation(ids, key)
    value = recipe.evaluate({role: f.value for role, f in inputs.items()})
    available = max(f.available_at for f in inputs.values())
    content = digest(type(value).__name__, value, UNIT)
    fact = Fact(
        id=f"{key}.d{digest(content, available.isoformat())[:12]}", key=key, revision=1,
        tenant=scope.tenant, scope=tuple(scope.terms()), kind=FactKind.DERIVED,
        status=Status.ACTIVE, subject=SUBJECT_ID, predicate=predicate, value=value, unit=UNIT,
        valid_from=FY_FROM, valid_to=FY_TO, available_at=available, superseded_at=None,
        superseded_recorded_at=None, recorded_at=now, invalidated_at=None,
        authority=min(f.authority for f in inputs.values()), owner=None, retention_reason=None,
        content_hash=content, event_id=event_id,
    )
    used = tuple(sorted((fid, role) for role, fid in ids.items()))
    return fact, DerivationWrite(derivation, used, (fact.id,), now)


def plan_graph(inputs: Inputs, n: int, now: datetime) -> tuple[Planned, Event]:
    event_id = "e" + uuid.uuid4().hex
    planned = Planned([], [], [], [])
    for i in range(n):
        d, write = derived_record(inputs.scope, scaled(i), {"x": inputs.x, "y": inputs.y},
                                  f"Metric{i}", now, event_id)
        planned.facts.append(d)
        planned.writes.append(write)
        planned.first_level.append(d.id)
        if i % SECOND_LEVEL_EVERY == 0:
            e, write = derived_record(inputs.scope, DOUBLE, {"d": d}, f"Metric{i}x2", now,
                                      event_id)
            planned.facts.append(e)
            planned.writes.append(write)
            planned.second_level.append(e.id)
    # One audit event for the whole bulk load (derive() appends one per derivation).
    event = Event(id=event_id, tenant=inputs.scope.tenant, at=now, actor="bench-setup",
                  action="derive", details={"bulk": True, "derivations": len(planned.writes)})
    return planned, event


def build_embedded(store: EmbeddedStore, inputs: Inputs, n: int) -> Planned:
    planned, event = plan_graph(inputs, n, store.now())

    def work(tx: StoreTx) -> None:
        tx.create_facts(planned.facts)
        tx.put_derivations(*planned.writes)
        tx.append_events(event)

    store.write(inputs.scope.tenant, work)
    return planned


def build_neo4j(store: Neo4jStore, inputs: Inputs, n: int) -> Planned:
    planned, event = plan_graph(inputs, n, store.now())
    tenant = inputs.scope.tenant
    write_neo4j(store, tenant, planned.facts, planned.writes)
    store.write(tenant, lambda tx: tx.append_events(event))
    return planned


def write_neo4j(store: Neo4jStore, tenant: str, facts: list[Fact],
                writes: list[DerivationWrite]) -> None:
    """Facts, then derivations, through the store's primitives, in chunks of their own
    transactions: a whole 100k graph in one would not fit the launcher's default heap."""
    def facts_of(chunk: list[Fact]) -> Callable[[StoreTx], None]:
        return lambda tx: tx.create_facts(chunk)

    def derivations_of(chunk: list[DerivationWrite]) -> Callable[[StoreTx], None]:
        return lambda tx: tx.put_derivations(*chunk)

    for start in range(0, len(facts), NEO4J_CHUNK):
        store.write(tenant, facts_of(facts[start:start + NEO4J_CHUNK]))
    for start in range(0, len(writes), NEO4J_CHUNK):
        store.write(tenant, derivations_of(writes[start:start + NEO4J_CHUNK]))


def shape(store: Store, tenant: str, derivation_id: str) -> dict[str, Any]:
    """Property keys of a stored derivation, of its edges (per type) and of its output fact."""
    if isinstance(store, Neo4jStore):
        with store.driver.session(database=store.database) as session:
            rows = [r.data() for r in session.run(_SHAPE, tenant=tenant, id=derivation_id)]
        node = rows[0]["d"] if rows else {}
        edges = [(r["type"], r["r"], r["f"]) for r in rows]
    else:
        assert isinstance(store, EmbeddedStore)
        g = store.graph
        start = (DERIVATION, tenant, derivation_id)
        node = {**g.nodes[start]["record"].model_dump(), "tenant": tenant,
                "recorded_at": g.nodes[start]["recorded_at"]}
        edges = [(k, {a: v for a, v in data.items() if v is not None},
                  g.nodes[dst]["record"].model_dump(exclude_none=True))
                 for _, dst, k, data in g.out_edges(start, keys=True, data=True)]
    return {
        "derivation": sorted(node),
        "edges": sorted((t, tuple(sorted(r)), r.get("role")) for t, r, _ in edges),
        "output": sorted({k for t, _, f in edges if t == GENERATED for k in f}),
    }


def check_shape(store: Store, scope: Scope) -> dict[str, Any]:
    """Bulk-build two derived facts, derive a third through ``derive()``, and compare: the
    derive()-made fact must have the id and derivation id the bulk builder predicts for it,
    and its stored shape must equal that of a bulk-made one."""
    inputs = record_inputs(store, scope)
    if isinstance(store, EmbeddedStore):
        planned = build_embedded(store, inputs, 2)
    else:
        assert isinstance(store, Neo4jStore)
        planned = build_neo4j(store, inputs, 2)
    made = derive(store, scope, scaled(2), {"x": inputs.x.id, "y": inputs.y.id},
                  output("Metric2"), actor="bench-shape")
    predicted, write = derived_record(scope, scaled(2), {"x": inputs.x, "y": inputs.y},
                                      "Metric2", made.fact.recorded_at, made.fact.event_id)
    bulk = shape(store, scope.tenant, planned.writes[-1].derivation.id)
    real = shape(store, scope.tenant, made.derivation_id)
    same_record = predicted == made.fact and write.derivation.id == made.derivation_id
    return {"same_ids_and_values": same_record, "same_shape": bulk == real, "shape": real,
            "bulk_shape": bulk}
