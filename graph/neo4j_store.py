"""The Neo4j backend: runs the builders of ``graph.cypher``; holds no query text of its own."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any, TypeVar

import neo4j
from neo4j.exceptions import ConstraintError, ResultFailedError
from neo4j.time import DateTime
from pydantic import TypeAdapter

from graph import cypher
from graph import cypher_lineage as lineage
from graph.asof import AsOf
from graph.model import DerivationIn, Event, Fact, Source, Subject
from graph.schema import FACT, LINEAGE_TYPES, SCHEMA_STATEMENTS, SOURCE
from graph.store import (
    Clock,
    Closure,
    Confirmation,
    Conflict,
    ConflictError,
    DerivationWrite,
    Direction,
    Edge,
    Erasure,
    Invalidation,
    Justification,
    Reached,
    Reopening,
    Supersession,
    Support,
    Walk,
)

T = TypeVar("T")
_FACT_FIELDS = tuple(Fact.model_fields)
_CONSTRAINT_RETRIES = 3


def native(value: Any) -> Any:
    # to_native() keeps the driver's own UTC tzinfo (a named zone); written back as a
    # parameter it would become a zone-id DateTime, which index seeks on offsets miss.
    if isinstance(value, DateTime):
        return value.to_native().astimezone(UTC)
    if isinstance(value, list):
        return [native(v) for v in value]
    return value


def _props(record: dict[str, Any]) -> dict[str, Any]:
    return {k: native(v) for k, v in record.items()}


_INSTANT = TypeAdapter(datetime)


def parse_utc(text: str) -> datetime:
    """An instant Cypher rendered with ``toString`` (nanoseconds and ``Z`` included)."""
    return _INSTANT.validate_python(text).astimezone(UTC)


def _constraint_error(exc: BaseException | None) -> ConstraintError | None:
    """The uniqueness violation behind ``exc``, following its cause and context chain."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, ConstraintError):
            return exc
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return None


def _support(row: dict[str, Any]) -> Support:
    return Support(row["fact_id"], row["source_id"], parse_utc(row["available_at"]),
                   parse_utc(row["recorded_at"]))


def fact_from(props: dict[str, Any]) -> Fact:
    values = _props(props)
    values = {name: values.get(name) for name in _FACT_FIELDS}  # Neo4j drops null properties
    values["scope"] = tuple(values["scope"] or ())
    values["gaps_from"] = tuple(values["gaps_from"] or ())
    values["gaps_to"] = tuple(values["gaps_to"] or ())
    return Fact.model_validate(values)


def fact_row(fact: Fact) -> dict[str, Any]:
    row = fact.model_dump()
    row["scope"] = list(fact.scope)
    row["kind"] = fact.kind.value
    row["status"] = fact.status.value
    row["gaps_from"], row["gaps_to"] = list(fact.gaps_from), list(fact.gaps_to)
    return {k: v for k, v in row.items() if v is not None and v != []}


class Neo4jStore:
    def __init__(self, driver: neo4j.Driver, clock: Clock, database: str | None = None) -> None:
        self.driver = driver
        self.database = database
        self._clock = clock

    @classmethod
    def connect(
        cls, uri: str, clock: Clock, auth: tuple[str, str] | None = None,
        database: str | None = None,
    ) -> Neo4jStore:
        # "Unrecognized" is Neo4j noting property keys no node has yet (gaps_from on a young
        # database); expected here, and logged by the driver as a warning on every query.
        driver = neo4j.GraphDatabase.driver(
            uri, auth=auth,
            notifications_disabled_classifications=[
                neo4j.NotificationDisabledClassification.UNRECOGNIZED],
        )
        driver.verify_connectivity()
        return cls(driver, clock, database)

    def now(self) -> datetime:
        return self._clock()

    def close(self) -> None:
        self.driver.close()

    def _session(self) -> neo4j.Session:
        return self.driver.session(database=self.database)

    def ensure_schema(self) -> None:
        with self._session() as session:
            for statement in SCHEMA_STATEMENTS:
                session.run(statement).consume()
            session.run("CALL db.awaitIndexes(300)").consume()

    def run(self, query: cypher.Query) -> list[dict[str, Any]]:
        """Run one read query in its own transaction."""
        def work(tx: neo4j.ManagedTransaction) -> list[dict[str, Any]]:
            return [r.data() for r in tx.run(query.text, query.params)]
        with self._session() as session:
            return session.execute_read(work)

    def write(self, tenant: str, work: Callable[[Any], T]) -> T:
        # Two writers that plan the same new version collide on the (tenant, id) constraint;
        # the loser replans on the state the winner left (a CAS then reports the conflict).
        for attempt in range(_CONSTRAINT_RETRIES):
            try:
                with self._session() as session:
                    return session.execute_write(lambda tx: work(_Tx(tx, tenant)))
            except (ConstraintError, ResultFailedError) as exc:
                # The driver may report the collision as the failed result it left behind.
                collision = _constraint_error(exc)
                if collision is None:
                    raise
                if attempt == _CONSTRAINT_RETRIES - 1:
                    raise ConflictError(
                        f"concurrent write kept colliding: {collision.message}") from exc
        raise AssertionError("unreachable")

    def purge_tenant(self, tenant: str) -> None:
        with self._session() as session:
            for query in cypher.purge_tenant(tenant):
                session.run(query.text, query.params).consume()

    def read(self, spec: AsOf, limit: int | None = None) -> list[Fact]:
        rows = self.run(cypher.read_facts(spec.resolved(self.now()), limit))
        return [fact_from(r["f"]) for r in rows]

    def history(self, tenant: str, key: str) -> list[Fact]:
        return [fact_from(r["f"]) for r in self.run(cypher.history(tenant, key))]

    def supports(self, tenant: str, fact_ids: Sequence[str]) -> list[Support]:
        return [_support(r) for r in self.run(cypher.supports(tenant, fact_ids))]

    def confirmations(
        self, tenant: str, fact_ids: Sequence[str], known_at: datetime,
    ) -> dict[str, Confirmation]:
        rows = self.run(cypher.confirmations(tenant, fact_ids, known_at))
        return {r["fact_id"]: Confirmation(r["first_source"], parse_utc(r["first_at"]),
                                           parse_utc(r["last_at"])) for r in rows}

    def sources(self, tenant: str, ids: Sequence[str]) -> list[Source]:
        rows = self.run(cypher.nodes_by_id(tenant, SOURCE, ids))
        return [_source(r["n"]) for r in rows]

    def events(self, tenant: str) -> list[Event]:
        return [_event(r["e"]) for r in self.run(cypher.events(tenant))]

    def walk(
        self, tenant: str, start_ids: Sequence[str], direction: Direction,
        system_at: datetime, max_depth: int = 32, types: Sequence[str] = LINEAGE_TYPES,
    ) -> Walk:
        def work(tx: _Tx) -> Walk:
            return tx.walk(start_ids, direction, system_at, max_depth, types)

        return self.reading(tenant, work)

    def reading(self, tenant: str, work: Callable[[Any], T]) -> T:
        with self._session() as session:
            return session.execute_read(lambda tx: work(_Tx(tx, tenant)))


def _source(props: dict[str, Any]) -> Source:
    values = _props(props)
    values.pop("tenant", None)
    return Source.model_validate(values)


def _event(props: dict[str, Any]) -> Event:
    values = _props(props)
    values["details"] = json.loads(values.get("details") or "{}")
    return Event.model_validate(values)


class _Tx:
    def __init__(self, tx: neo4j.ManagedTransaction, tenant: str) -> None:
        self.tx = tx
        self.tenant = tenant

    def _run(self, query: cypher.Query) -> list[dict[str, Any]]:
        return [r.data() for r in self.tx.run(query.text, query.params)]

    def lock_subjects(self, ids: Sequence[str]) -> None:
        if ids:
            self._run(cypher.lock_subjects(self.tenant, ids))

    def versions(self, keys: Sequence[str]) -> dict[str, list[Fact]]:
        found: dict[str, list[Fact]] = {}
        for row in self._run(cypher.live_versions(self.tenant, keys)):
            fact = fact_from(row["f"])
            found.setdefault(fact.key, []).append(fact)
        return found

    def existing(self, label: str, ids: Sequence[str]) -> set[str]:
        if not ids:
            return set()
        return {r["id"] for r in self._run(cypher.existing(self.tenant, label, ids))}

    def get_sources(self, ids: Sequence[str]) -> dict[str, Source]:
        rows = self._run(cypher.nodes_by_id(self.tenant, SOURCE, ids)) if ids else []
        return {s.id: s for s in map(_source, (r["n"] for r in rows))}

    def get_facts(self, ids: Sequence[str]) -> dict[str, Fact]:
        rows = self._run(cypher.nodes_by_id(self.tenant, FACT, ids)) if ids else []
        return {f.id: f for f in (fact_from(r["n"]) for r in rows)}

    def supports_of(self, fact_ids: Sequence[str]) -> list[Support]:
        if not fact_ids:
            return []
        return [_support(r) for r in self._run(cypher.supports(self.tenant, fact_ids))]

    def put_subjects(self, subjects: Sequence[Subject]) -> None:
        if subjects:
            rows = [{k: v for k, v in s.model_dump().items() if v is not None} for s in subjects]
            for row in rows:
                row["identifiers"] = list(row["identifiers"])
            self._run(cypher.merge_subjects(self.tenant, rows))

    def put_sources(self, sources: Sequence[Source]) -> None:
        if sources:
            rows = [s.model_dump(mode="python", exclude_none=True) for s in sources]
            for row, source in zip(rows, sources, strict=True):
                row["kind"] = source.kind.value
                if source.authority is not None:
                    row["authority"] = int(source.authority)
            self._run(cypher.create_sources(self.tenant, rows))

    def create_facts(self, facts: Sequence[Fact]) -> None:
        if facts:
            self._run(cypher.create_facts(self.tenant, [fact_row(f) for f in facts]))

    def add_support(self, rows: Sequence[Support]) -> None:
        if rows:
            self._run(cypher.add_support(self.tenant, [asdict(r) for r in rows]))

    def close_knowledge(self, rows: Sequence[Closure]) -> None:
        if rows:
            closed = self._run(cypher.close_knowledge(self.tenant, [asdict(r) for r in rows]))
            if closed[0]["closed"] != len(rows):
                raise ConflictError("another writer closed one of these facts first")

    def link_supersedes(self, rows: Sequence[Supersession]) -> None:
        if rows:
            self._run(cypher.link_supersedes(self.tenant, [asdict(r) for r in rows]))

    def put_derivation(self, write: DerivationWrite) -> None:
        self._run(cypher.create_derivation(
            self.tenant,
            _derivation_props(write.derivation, write.recorded_at),
            [{"fact_id": fid, "role": role} for fid, role in write.used],
            list(write.generated),
        ))

    def walk(
        self, start_ids: Sequence[str], direction: Direction, at: datetime, max_depth: int,
        types: Sequence[str] = LINEAGE_TYPES,
    ) -> Walk:
        # Two queries: reach (one variable-length traversal), then the live edges among it.
        reach = self._run(lineage.walk_reach(self.tenant, start_ids, direction, at, max_depth,
                                            types))
        frontier = [r["element"] for r in self._run(lineage.start_elements(self.tenant,
                                                                          start_ids))]
        frontier += [r["element"] for r in reach if r["depth"] < max_depth]
        edges = {
            Edge(r["start"], r["type"], r["end"], _props(r["props"]))
            for r in self._run(lineage.walk_edges(self.tenant, frontier, direction, at, types))
        }
        reached = tuple(Reached(r["id"], r["label"], r["depth"]) for r in reach)
        return Walk(reached, tuple(sorted(edges, key=lambda e: (e.type, e.start, e.end))))

    def justifications(self, fact_ids: Sequence[str], at: datetime) -> list[Justification]:
        if not fact_ids:
            return []
        rows = self._run(lineage.justifications(self.tenant, fact_ids, at))
        return [
            Justification(_derivation(r["derivation"]), r["output"],
                          tuple(sorted((i, role) for i, role in r["inputs"] if i is not None)))
            for r in rows
        ]

    def link_conflicts(self, rows: Sequence[Conflict]) -> None:
        if rows:
            self._run(cypher.link_conflicts(self.tenant, [asdict(r) for r in rows]))

    def erase_facts(self, rows: Sequence[Erasure]) -> None:
        if rows:
            self._run(lineage.erase_facts(self.tenant, [asdict(r) for r in rows]))

    def invalidate_facts(self, rows: Sequence[Invalidation]) -> None:
        if rows:
            self._run(lineage.invalidate_facts(self.tenant, [asdict(r) for r in rows]))

    def retract_support(self, source_id: str, at: datetime) -> list[str]:
        return [r["id"] for r in self._run(lineage.retract_support(self.tenant, source_id, at))]

    def retracted_at(self, source_id: str) -> datetime | None:
        rows = self._run(lineage.retracted_at(self.tenant, source_id))
        at: datetime | None = native(rows[0]["at"]) if rows else None
        return at

    def restore_support(self, source_id: str, retracted: datetime, at: datetime) -> list[str]:
        query = lineage.restore_support(self.tenant, source_id, retracted, at)
        return [r["id"] for r in self._run(query)]

    def reopen_facts(self, rows: Sequence[Reopening]) -> None:
        if rows:
            self._run(lineage.reopen_facts(self.tenant, [asdict(r) for r in rows]))

    def generated_by(self, derivation_ids: Sequence[str]) -> dict[str, Fact]:
        rows = self._run(lineage.generated_by(self.tenant, derivation_ids))
        return {r["derivation"]: fact_from(r["f"]) for r in rows}

    def append_event(self, event: Event) -> None:
        props = event.model_dump(exclude={"details"}, exclude_none=True)
        props["details"] = json.dumps(event.details, sort_keys=True)
        self._run(cypher.create_event(self.tenant, props))


def _derivation(props: dict[str, Any]) -> DerivationIn:
    values = _props(props)
    values["parameters"] = json.loads(values.get("parameters") or "{}")
    return DerivationIn.model_validate(
        {k: v for k, v in values.items() if k not in ("tenant", "recorded_at")})


def _derivation_props(derivation: DerivationIn, recorded_at: datetime) -> dict[str, Any]:
    props = derivation.model_dump(exclude={"parameters"}, exclude_none=True)
    props["parameters"] = json.dumps(derivation.parameters, sort_keys=True)
    props["recorded_at"] = recorded_at
    return props
