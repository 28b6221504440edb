"""The plugin's server-side ranker (``docker/neo4j-plugin/.../Rank.java``): the builders.

A tenant-wide search ranks inside a legal set of tens of thousands of entries, and Cypher reads
each of their nodes again on every round (docs/retrieval.md, "The server-side ranker"). The
launcher keeps each searched tenant's entries as columns in its heap and ranks there:
``vintage.rank`` takes the same request as ``cypher_search.rank`` and returns the same row, or
no row when it has no usable columns for the tenant (none built yet, a write to the tenant
open, or more than its cap), and the search then ranks in Cypher. ``vintage.reread`` re-reads a
search's candidates from the same columns (``reread_call``: ``cypher_reads.
read_cited_with_subjects``'s row), under the same rule.

Its columns stay in step with the store because every write transaction of the store names
its tenant first (``vintage.search_write``, graph/neo4j/tx.py), which evicts them at once and
keeps new ones out until it ends. A stock Neo4j has none of this and always ranks in Cypher;
both paths are held to the same answers (tests/test_neo4j_ranker.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vintage.graph.core.asof import AsOf
from vintage.graph.neo4j.cypher import FACT_PROPERTIES, Query
from vintage.graph.neo4j.cypher_search import lucene, scope_filters, tenant_token
from vintage.graph.neo4j.params import FACT_INSTANTS, micros

RANK = "vintage.rank"
SEARCH_WRITE = "vintage.search_write"
COLUMNS = "vintage.rank_columns"
REREAD = "vintage.reread"
NAMES = (RANK, SEARCH_WRITE, COLUMNS, REREAD)
TEXT_PASSES = "vintage.text_passes"  # a diagnostic: not among what a server must have


def serves(spec: AsOf) -> bool:
    """Whether the ranker may serve this read: any but one that names subjects, whose legal
    set Cypher reaches through their index in milliseconds. A read of named ids is served:
    a search asks its cut legs for their scores of named candidates
    (``vintage.queries.search.run``),
    and Cypher runs that keyword leg over every entry the query's terms match. A read that
    requires a minimum authority is not served: the plugin's legal test does not know the
    authority, and Cypher's (``asof.to_cypher``) does."""
    return spec.subjects is None and spec.min_authority is None


def search_write(tenant: str) -> Query:
    return Query(f"CALL {SEARCH_WRITE}($tenant)", {"tenant": tenant})


def build_columns(tenant: str) -> Query:
    """Build the tenant's columns now (a warm-up; the tests' way to be sure they are used)."""
    return Query(f"CALL {COLUMNS}($tenant, $token) YIELD entries RETURN entries",
                 {"tenant": tenant, "token": tenant_token(tenant)})


def text_passes() -> Query:
    """How the ranker's full-text reads went since the server started: to Lucene directly
    (``lucene``) or through the kernel's cursor (``kernel``), and why Lucene is never read
    directly on this server (``unavailable``, else null): FullText.java, TextPass.java."""
    return Query(f"CALL {TEXT_PASSES}() YIELD lucene, kernel, unavailable "
                 "RETURN lucene, kernel, unavailable", {})


def rank_call(spec: AsOf, terms: Sequence[str], identifiers: Sequence[str],
              vector: Sequence[float] | None, model: str | None, per_leg: int,
              counted: bool = True) -> Query:
    """``cypher_search.rank``'s request, for ``vintage.rank``: ``spec`` resolved and served
    (``serves``), ``terms`` and ``identifiers`` blinded. Instants travel as microseconds."""
    request = {
        **_legal(spec),
        "text": lucene(scope_filters(spec), terms) if terms else None,
        "identifiers": list(identifiers),
        "vector": None if vector is None else [float(x) for x in vector],
        "model": model,
        "per_leg": per_leg,
        "counted": counted,
    }
    return Query(f"""
CALL {RANK}($request)
YIELD exact, keyword, semantic, legal, matched, excluded, also
RETURN exact, keyword, semantic, legal, matched, excluded, also""", {"request": request})


def reread_call(spec: AsOf) -> Query:
    """``cypher_reads.read_cited_with_subjects``'s read, for ``vintage.reread``: the same row
    from the tenant's columns and one read of each legal fact's node, or no row (then read in
    Cypher). ``spec`` resolved and served, naming its ids."""
    if spec.ids is None:
        raise ValueError("the ranker re-reads named ids only")
    request = {**_legal(spec), "fields": list(FACT_PROPERTIES), "instants": list(FACT_INSTANTS),
               "instant_lists": ["gaps_from", "gaps_to"]}
    return Query(f"""
CALL {REREAD}($request)
YIELD rows, sources, subjects
RETURN rows, sources, subjects""", {"request": request})


def _legal(spec: AsOf) -> dict[str, Any]:
    """The as-of predicate's part of a request (``Legal.java``)."""
    if not serves(spec):
        raise ValueError("the ranker does not serve a read that names subjects")
    known, system = spec._instants()
    valid = spec.valid
    return {
        "tenant": spec.scope.tenant,
        "token": tenant_token(spec.scope.tenant),
        "scope": list(spec.scope.terms()),
        "shared_only": spec.shared_only,
        "known": micros(known),
        "system": micros(system),
        "statuses": sorted(s.value for s in spec.statuses),
        "unexpired": None if spec.unexpired_at is None else micros(spec.unexpired_at),
        "valid_at": micros(valid.start) if valid.is_instant and valid.start is not None else None,
        "valid_start": None if valid.is_instant or valid.start is None
        else micros(valid.start),
        "valid_end": None if valid.is_instant or valid.end is None else micros(valid.end),
        "kinds": None if spec.kinds is None else [k.value for k in spec.kinds],
        "predicates": None if spec.predicates is None else list(spec.predicates),
        "ids": None if spec.ids is None else list(spec.ids),
    }
