"""The Neo4j backend: runs the builders of ``vintage.graph.neo4j.cypher*``; holds no query text."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any, TypeVar

import neo4j
from neo4j.exceptions import ConstraintError, ResultFailedError

from vintage.graph.core.asof import AsOf
from vintage.graph.core.labels import LINEAGE_TYPES, SOURCE
from vintage.graph.core.model import Event, Fact, Source, Subject
from vintage.graph.neo4j import cypher, cypher_held, procedures
from vintage.graph.neo4j import cypher_lineage as lineage
from vintage.graph.neo4j import cypher_reads as reads
from vintage.graph.neo4j.memory import within_memory
from vintage.graph.neo4j.ranker import search_write
from vintage.graph.neo4j.retry import answering, committed, constraint_error
from vintage.graph.neo4j.rows import (
    as_dicts,
    fact_from,
    native_props,
    parse_utc,
    source_from,
    subject_from,
    support_from,
)
from vintage.graph.neo4j.schema import SCHEMA_STATEMENTS
from vintage.graph.neo4j.search import SearchTx, prepare
from vintage.graph.neo4j.search import rank as rank_hits
from vintage.graph.neo4j.tx import Neo4jTx
from vintage.graph.retrieval.index import Hits, TextQuery
from vintage.graph.sealing.sealed import KeyStore, Sealer, gone_among
from vintage.graph.store.capabilities import Held, known_now, tallied
from vintage.graph.store.protocol import (
    Clock,
    Confirmation,
    ConflictError,
    Direction,
    Support,
    Walk,
)

T = TypeVar("T")
_CONSTRAINT_RETRIES = 3
# The driver's own default: long enough to ride out a cluster's leader election. A service
# answering requests passes less (``vintage.http.service.STORE_RETRY_SECONDS``).
DEFAULT_RETRY_SECONDS = 30.0


class Neo4jStore:
    """Reads run in read transactions (the driver's managed ones), writes in write
    transactions (explicit ones, retried by ``vintage.graph.neo4j.retry``): behind a ``neo4j://``
    routing URI a cluster serves reads from its secondaries and writes from its leader. Every
    session shares one bookmark manager, so a read waits for the writes this store committed
    before it (read-your-writes, across its threads)."""

    def __init__(self, driver: neo4j.Driver, clock: Clock, database: str | None = None,
                 uri: str = "the configured address", keys: KeyStore | None = None,
                 retry_seconds: float = DEFAULT_RETRY_SECONDS) -> None:
        self.driver = driver
        self.uri = uri
        self.database = database
        self._clock = clock
        self.bookmarks = neo4j.GraphDatabase.bookmark_manager()
        # With a key store, sealed facts are written as ciphertext
        # (``vintage.graph.sealing.sealed``) and erasing one destroys its key; without, everything
        # is written plain.
        self.sealer = Sealer(keys) if keys is not None else None
        # The plugin's server-side cascade (vintage.graph.neo4j.procedures): asked for by
        # ensure_schema, so a store whose schema is not prepared decides in Python.
        self.procedures = False
        # Whether a search ranks through the plugin's columns (vintage.graph.neo4j.ranker) when it
        # can; found with the procedures.
        self.server_ranker = False
        # How long a write is retried on transient failures (vintage.graph.neo4j.retry).
        self.retry_seconds = retry_seconds
        # Per thread, the tenant and transaction of a ``whole`` in progress: a ``write`` inside
        # it runs in that transaction instead of committing one of its own.
        self._whole = threading.local()

    @classmethod
    def connect(
        cls, uri: str, clock: Clock, auth: tuple[str, str] | None = None,
        database: str | None = None, keys: KeyStore | None = None,
        retry_seconds: float | None = None,
    ) -> Neo4jStore:
        """``retry_seconds``: how long a transaction is retried on transient failures (a
        leader election, a server that went away) before ``StoreUnreachable``; None is
        ``DEFAULT_RETRY_SECONDS``."""
        retry = DEFAULT_RETRY_SECONDS if retry_seconds is None else retry_seconds
        # "Unrecognized" is Neo4j noting property keys no node has yet (gaps_from on a young
        # database); expected here, and logged by the driver as a warning on every query.
        driver = neo4j.GraphDatabase.driver(
            uri, auth=auth, max_transaction_retry_time=retry,  # reads' managed transactions
            notifications_disabled_classifications=[
                neo4j.NotificationDisabledClassification.UNRECOGNIZED],
        )
        try:
            with answering(uri):
                driver.verify_connectivity()
        except BaseException:
            driver.close()
            raise
        return cls(driver, clock, database, uri, keys, retry)

    def now(self) -> datetime:
        return self._clock()

    def close(self) -> None:
        self.driver.close()

    @contextlib.contextmanager
    def _session(self) -> Iterator[neo4j.Session]:
        with answering(self.uri), self.driver.session(
                database=self.database, bookmark_manager=self.bookmarks) as session:
            yield session

    def ensure_schema(self) -> None:
        with self._session() as session:
            prepare(session)
            for statement in SCHEMA_STATEMENTS:
                session.run(statement).consume()
            session.run("CALL db.awaitIndexes(300)").consume()
            self.procedures = self.server_ranker = procedures.handshake(session)
        self.finish_destruction()

    def finish_destruction(self) -> None:
        """Destroy the keys that an erasure marked, committed and did not live to destroy (a
        crash in between); a mark whose facts are not erased (a transaction that failed, or
        one still running elsewhere) is left alone."""
        if self.sealer is None:
            return
        for tenant, ids in self.sealer.marked().items():
            rows = self.run(lineage.erased_among(tenant, sorted(ids)))
            if rows:
                self.sealer.destroy(tenant, {r["id"] for r in rows},
                                    max(parse_utc(r["at"]) for r in rows))

    def run(self, query: cypher.Query) -> list[dict[str, Any]]:
        """Run one read query in its own transaction."""
        def work(tx: neo4j.ManagedTransaction) -> list[dict[str, Any]]:
            with within_memory():
                return as_dicts(tx.run(query.text, query.params))
        with self._session() as session:
            return session.execute_read(work)

    def write(self, tenant: str, work: Callable[[Any], T]) -> T:
        held: tuple[str, Neo4jTx] | None = getattr(self._whole, "held", None)
        if held is not None:  # inside ``whole``: part of its one transaction
            if held[0] != tenant:
                raise ValueError(f"a write for tenant {tenant!r} inside a whole write of "
                                 f"another tenant")
            return work(held[1])
        # Two writers that plan the same new version collide on the (tenant, id) constraint;
        # the loser replans on the state the winner left (a CAS then reports the conflict).
        for attempt in range(_CONSTRAINT_RETRIES):
            try:
                with self._session() as session:
                    return self._committed(session, tenant, work)
            except (ConstraintError, ResultFailedError) as exc:
                # The driver may report the collision as the failed result it left behind.
                collision = constraint_error(exc)
                if collision is None:
                    raise
                if attempt == _CONSTRAINT_RETRIES - 1:
                    raise ConflictError(
                        f"concurrent write kept colliding: {collision.message}") from exc
        raise AssertionError("unreachable")

    def whole(self, tenant: str, work: Callable[[], T]) -> T:
        """``work`` as one transaction: every ``write`` it makes (in this thread) runs in it,
        and commits with it or not at all (an ingest's batches: a file lands whole,
        docs/storage.md, "A file lands whole"). A transaction killed before its commit (the
        client killed, the connection lost) is rolled back by the server. Its size is bounded by
        the server's transaction memory: past it, ``TransactionTooLarge`` and nothing written.
        A transient failure or a collision runs ``work`` again from the start."""
        if getattr(self._whole, "held", None) is not None:
            return work()  # already inside one

        def unit(tx: Neo4jTx) -> T:
            self._whole.held = (tenant, tx)
            try:
                return work()
            finally:
                self._whole.held = None

        return self.write(tenant, unit)

    def _committed(self, session: neo4j.Session, tenant: str, work: Callable[[Any], T]) -> T:
        """Run ``work`` in a write transaction. The keys of what it erased are marked before
        it commits and destroyed after: every copy of their ciphertext (store files,
        transaction logs, backups) becomes unreadable at once."""
        last: list[Neo4jTx] = []  # a transient failure runs the unit again

        def unit(tx: neo4j.Transaction) -> T:
            last[:] = [SearchTx(tx, tenant, self.sealer, self.procedures, writing=True)]
            result = work(last[0])
            if last[0].erased and self.sealer is not None:
                self.sealer.mark(tenant, set(last[0].erased))
            return result

        result = committed(session, unit, self.retry_seconds)
        erased = last[0].erased if last else {}
        if erased and self.sealer is not None:
            self.sealer.destroy(tenant, set(erased), max(erased.values()))
        return result

    def purge_tenant(self, tenant: str) -> None:
        with self._session() as session, self._announced(tenant):
            for query in cypher.purge_tenant(tenant):
                session.run(query.text, query.params).consume()

    @contextlib.contextmanager
    def _announced(self, tenant: str) -> Iterator[None]:
        """A transaction held open for the duration that names the tenant to the ranker
        (vintage.graph.neo4j.ranker), for statements that commit in batches of their own: no columns
        of the tenant are used or built until the block ends. Nothing on a stock server."""
        if not self.procedures:
            yield
            return
        with self._session() as session, session.begin_transaction() as held:
            mark = search_write(tenant)
            held.run(mark.text, mark.params).consume()
            yield

    def read(self, spec: AsOf, limit: int | None = None) -> list[Fact]:
        rows = self.run(reads.read_facts(spec.resolved(self.now()), limit))
        return [f for f in (fact_from(r["f"], self.sealer) for r in rows) if f.erased_at is None]

    def read_cited(
        self, spec: AsOf, limit: int | None = None,
    ) -> list[tuple[Fact, tuple[Source, ...]]]:
        rows = self.run(reads.read_cited_facts(spec.resolved(self.now()), limit))
        cited = [(fact_from(r["f"], self.sealer), tuple(source_from(s) for s in r["sources"]))
                 for r in rows]
        return [(f, sources) for f, sources in cited if f.erased_at is None]

    def read_confirmed(self, spec: AsOf) -> list[tuple[Fact, Confirmation | None]]:
        resolved = spec.resolved(self.now())
        return self.reading(spec.scope.tenant, lambda tx: tx.read_confirmed(resolved))

    def held(self, tenant: str) -> Held:
        # Each a read of its own, as the composed reads are (Neo4j reads what is committed).
        spec = known_now(tenant).resolved(self.now())
        sealed = self.run(cypher_held.held_sealed(spec))[0]["ids"]
        gone = gone_among(self.sealer, tenant, sealed)
        groups = [(r["predicate"], r["kind"], r["n"], parse_utc(r["first"]),
                   parse_utc(r["last"])) for r in self.run(cypher_held.held_facts(spec, gone))]
        sources = self.run(cypher_held.held_sources(spec, gone))[0]["n"]
        return tallied(groups, sources)

    def rank(self, spec: AsOf, query: TextQuery) -> Hits:
        return rank_hits(self.run, self.sealer, spec.resolved(self.now()), query,
                         server_ranker=self.server_ranker)

    def history(self, tenant: str, key: str) -> list[Fact]:
        return [fact_from(r["f"], self.sealer) for r in self.run(cypher.history(tenant, key))]

    def supports(
        self, tenant: str, fact_ids: Sequence[str], at: datetime | None = None,
    ) -> list[Support]:
        query = reads.supports(tenant, fact_ids, at or self.now())
        return [support_from(r) for r in self.run(query)]

    def confirmations(
        self, tenant: str, fact_ids: Sequence[str], known_at: datetime,
        at: datetime | None = None,
    ) -> dict[str, Confirmation]:
        rows = self.run(reads.confirmations(tenant, fact_ids, known_at, at or self.now()))
        return {r["fact_id"]: Confirmation(r["first_source"], parse_utc(r["first_at"]),
                                           parse_utc(r["last_at"])) for r in rows}

    def sources(self, tenant: str, ids: Sequence[str]) -> list[Source]:
        rows = self.run(cypher.nodes_by_id(tenant, SOURCE, ids))
        return [source_from(r["n"]) for r in rows]

    def subjects(self, tenant: str, names: Sequence[str] | None = None) -> list[Subject]:
        return [subject_from(r) for r in self.run(reads.subjects(tenant, names))]

    def events(self, tenant: str, actions: Sequence[str] | None = None,
               ids: Sequence[str] | None = None) -> list[Event]:
        return [_event(r["e"]) for r in self.run(reads.events(tenant, actions, ids))]

    def tenants(self) -> list[str]:
        return [r["tenant"] for r in self.run(reads.tenants())]

    def walk(
        self, tenant: str, start_ids: Sequence[str], direction: Direction,
        system_at: datetime, max_depth: int = 32, types: Sequence[str] = LINEAGE_TYPES,
    ) -> Walk:
        def work(tx: Neo4jTx) -> Walk:
            return tx.walk(start_ids, direction, system_at, max_depth, types)

        return self.reading(tenant, work)

    def reading(self, tenant: str, work: Callable[[Any], T]) -> T:
        with self._session() as session:
            return session.execute_read(
                lambda tx: _bounded(work, SearchTx(tx, tenant, self.sealer, self.procedures,
                                                   columns=self.server_ranker)))


def _event(props: dict[str, Any]) -> Event:
    values = native_props(props)
    values["details"] = json.loads(values.get("details") or "{}")
    return Event.model_validate(values)


def _bounded(work: Callable[[Any], T], tx: Neo4jTx) -> T:
    with within_memory():
        return work(tx)
