"""The Neo4j schema: uniqueness constraints and the indexes the hot-path queries seek on."""

from __future__ import annotations

from typing import Final

from graph.labels import (
    EVENT,
    FACT,
    GENERATED,
    LABELS,
    SUPERSEDES,
    SUPPORTED_BY,
    USED,
)


def _constraints() -> list[str]:
    return [
        f"CREATE CONSTRAINT vintage_{label.lower()}_key IF NOT EXISTS "
        f"FOR (n:{label}) REQUIRE (n.tenant, n.id) IS UNIQUE"
        for label in LABELS
    ]


def _indexes() -> list[str]:
    fact_indexes = {
        # The as-of read: tenant + subject + predicate narrow to a handful of versions, whose
        # stamps are then checked; the knowledge and valid stamps serve range scans.
        "fact_lookup": "(n.tenant, n.subject, n.predicate)",
        "fact_assertion": "(n.tenant, n.key)",  # not *_key: that names a constraint
        "fact_available": "(n.tenant, n.available_at)",
        "fact_valid": "(n.tenant, n.valid_from)",
        "fact_recorded": "(n.tenant, n.recorded_at)",
        "fact_event": "(n.tenant, n.event_id)",
    }
    statements = [
        f"CREATE INDEX vintage_{name} IF NOT EXISTS FOR (n:{FACT}) ON {props}"
        for name, props in fact_indexes.items()
    ]
    statements.append(
        f"CREATE INDEX vintage_event_at IF NOT EXISTS FOR (n:{EVENT}) ON (n.tenant, n.at)"
    )
    statements.append(  # a tenant's demotions and injections, without its other events
        f"CREATE INDEX vintage_event_action IF NOT EXISTS FOR (n:{EVENT}) "
        "ON (n.tenant, n.action)"
    )
    # Traversals prune at the edge on system time: index the stamps they filter on.
    for rel in (SUPPORTED_BY, USED, GENERATED, SUPERSEDES):
        statements.append(
            f"CREATE INDEX vintage_{rel.lower()}_recorded IF NOT EXISTS "
            f"FOR ()-[r:{rel}]-() ON (r.recorded_at, r.invalidated_at)"
        )
    return statements


SCHEMA_STATEMENTS: Final = tuple(_constraints() + _indexes())
