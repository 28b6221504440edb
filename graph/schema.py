"""Labels, relationship types and the Neo4j schema.

Names are DESIGN.md's vocabulary and nothing else: a Graphiti graph may share the database, and
Graphiti matches, overwrites and deletes by its own names (``Entity``, ``RELATES_TO``, ...).
Cypher is only ever built from these constants, never from caller strings.
"""

from __future__ import annotations

from typing import Final

SUBJECT: Final = "Subject"
SOURCE: Final = "Source"
FACT: Final = "Fact"
DERIVATION: Final = "Derivation"
EVENT: Final = "Event"
LABELS: Final = (SUBJECT, SOURCE, FACT, DERIVATION, EVENT)

ABOUT: Final = "ABOUT"
SUPPORTED_BY: Final = "SUPPORTED_BY"
USED: Final = "USED"
GENERATED: Final = "GENERATED"
SUPERSEDES: Final = "SUPERSEDES"
CONFLICTS_WITH: Final = "CONFLICTS_WITH"
REL_TYPES: Final = (ABOUT, SUPPORTED_BY, USED, GENERATED, SUPERSEDES, CONFLICTS_WITH)

# Walking "upstream" (towards evidence) follows these edges forward, except GENERATED, which
# points from a derivation to its output and is therefore followed backwards.
LINEAGE_TYPES: Final = (SUPPORTED_BY, USED, GENERATED, SUPERSEDES)
BACKWARD_UPSTREAM: Final = frozenset({GENERATED})

FORBIDDEN_NAMES: Final = frozenset(
    {"Entity", "Episodic", "Community", "Saga",
     "RELATES_TO", "MENTIONS", "HAS_MEMBER", "HAS_EPISODE", "NEXT_EPISODE"}
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
