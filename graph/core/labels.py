"""Labels and relationship types: the vocabulary both backends store.

Names are the contract's vocabulary and nothing else (docs/contract.md, "Vocabulary"): a
Graphiti graph may share the database, and Graphiti matches, overwrites and deletes by its own
names (``Entity``, ``RELATES_TO``, ...).
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
# Bookkeeping of the Neo4j search index, not an entity (no node has it alone): a second label
# on a fact that has no search entry yet (graph/neo4j/search.py).
UNINDEXED: Final = "Unindexed"

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
