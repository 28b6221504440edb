"""The Neo4j schema: uniqueness constraints and the indexes the hot-path queries seek on.

Each index names the queries that seek it; ``tests/test_neo4j_plans.py`` EXPLAINs those queries
and fails when a plan scans, or seeks an index not named for it here.
"""

from __future__ import annotations

from typing import Final

from vintage.graph.core.labels import EVENT, FACT, LABELS, UNINDEXED

# (tenant, id) per label: the writes' MERGE and MATCH by id, nodes_by_id, existing, supports,
# justifications, generated_by, the support exits and the start of every walk seek these;
# subjects (a question's names) seeks a tenant's subjects by the tenant prefix of its own.
_CONSTRAINTS: Final = tuple(
    f"CREATE CONSTRAINT vintage_{label.lower()}_key IF NOT EXISTS "
    f"FOR (n:{label}) REQUIRE (n.tenant, n.id) IS UNIQUE"
    for label in LABELS
)

_FACT_INDEXES: Final = {
    # read_facts, read_cited_facts, read_confirmed_facts with subjects named (their USING INDEX):
    # tenant + subject + predicate narrow to a handful of versions, whose stamps are then checked.
    "fact_lookup": "(n.tenant, n.subject, n.predicate)",
    # live_versions, top_revisions, history, facts_in (its USING INDEX): one assertion's
    # versions. Not *_key: that names a constraint.
    "fact_assertion": "(n.tenant, n.key)",
    # read_facts without subjects (a tenant's memories, a whole-tenant as-of read): the planner
    # seeks whichever of these three bounds it estimates narrowest, the knowledge cutoff, the
    # valid window or the system instant.
    "fact_available": "(n.tenant, n.available_at)",
    "fact_valid": "(n.tenant, n.valid_from)",
    "fact_recorded": "(n.tenant, n.recorded_at)",
}

_EVENT_INDEXES: Final = {
    "event_at": "(n.tenant, n.at)",  # events(): a tenant's log, in order (its USING INDEX)
    # events(actions): a tenant's demotions and injections without its other events.
    "event_action": "(n.tenant, n.action)",
}

# Indexes that earlier versions created and no plan seeks: (tenant, event_id) on facts, which
# no query filters on, and (recorded_at, invalidated_at) on SUPPORTED_BY, USED, GENERATED and
# SUPERSEDES, which the planner uses only to find relationships by those stamps alone, while
# every query reaches its edges by expanding from nodes it has already found. Dropped from
# existing stores too: they cost every write and help no read. Never reuse these names.
RETIRED_INDEXES: Final = (
    "vintage_fact_event",
    "vintage_supported_by_recorded",
    "vintage_used_recorded",
    "vintage_generated_recorded",
    "vintage_supersedes_recorded",
)


# The search index (graph/neo4j/search.py, docs/retrieval.md). Full-text over a fact's
# pre-tokenised, blinded terms: the whitespace analyzer keeps each term whole, and an index
# updated at commit means a search right after put_index already finds the entry. rank seeks
# it; no vector index: its top-k is global and approximate, and the legal set is ranked by
# exact cosine instead.
FACT_TEXT: Final = "vintage_fact_text"
_SEARCH: Final = (
    f"CREATE FULLTEXT INDEX {FACT_TEXT} IF NOT EXISTS FOR (n:{FACT}) ON EACH [n.search_terms] "
    "OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace', "
    "`fulltext.eventually_consistent`: false}}",
    # unindexed(): a tenant's facts with no entry, in id order ...
    f"CREATE INDEX vintage_unindexed IF NOT EXISTS FOR (n:{UNINDEXED}) ON (n.tenant, n.id)",
    # ... and those whose entry is by another model than the one asked for (two range seeks,
    # below and above it: empty, unless the tenant's embedder changed).
    f"CREATE INDEX vintage_fact_model IF NOT EXISTS FOR (n:{FACT}) "
    "ON (n.tenant, n.embedding_model)",
)


def _indexes() -> list[str]:
    return [
        f"CREATE INDEX vintage_{name} IF NOT EXISTS FOR (n:{label}) ON {props}"
        for label, indexes in ((FACT, _FACT_INDEXES), (EVENT, _EVENT_INDEXES))
        for name, props in indexes.items()
    ]


SCHEMA_STATEMENTS: Final = (
    *(f"DROP INDEX {name} IF EXISTS" for name in RETIRED_INDEXES),
    *_CONSTRAINTS,
    *_indexes(),
    *_SEARCH,
)
