"""Cypher for the search index: entries on fact nodes, the queue of facts without one, and the
ranking of a search inside its legal set. Pure builders, like ``vintage.graph.neo4j.cypher``;
``vintage.graph.neo4j.search`` runs them (docs/retrieval.md, "Neo4j: full-text and cosine inside the
legal set").

A fact's entry is three properties of its node: ``search_terms``, one string of whitespace-free
tokens under the full-text index ``FACT_TEXT`` (its filter tokens, then its text terms blinded,
in order and with repeats, since BM25 counts them), ``embedding`` (float32) and
``embedding_model``. Filter tokens let Lucene narrow to a tenant, a scope and kinds: ``t.`` and
``s.`` are SHA-256 prefixes of the tenant and of each scope term, ``k.`` the kind. They only
narrow: every query also applies the whole as-of predicate to the nodes Lucene yields, so the
predicate, not the tokens, decides what is legal.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

from vintage.graph.core.asof import AsOf, scope_clause, to_cypher
from vintage.graph.core.exclusion import reason_cypher
from vintage.graph.core.labels import FACT, UNINDEXED
from vintage.graph.neo4j.cypher import Query, fact_map, seek
from vintage.graph.neo4j.schema import FACT_TEXT

_TOKEN = re.compile(r"[a-z]\.[0-9a-z_]+")  # nothing Lucene's query syntax would read


def tenant_token(tenant: str) -> str:
    return "t." + hashlib.sha256(tenant.encode("utf-8")).hexdigest()[:16]


def scope_token(term: str) -> str:
    return "s." + hashlib.sha256(term.encode("utf-8")).hexdigest()[:16]


def entry_filters(tenant: str, scope: Sequence[str], kind: str) -> list[str]:
    """The filter tokens an entry starts with: its fact's tenant, scope terms and kind."""
    return [tenant_token(tenant), *(scope_token(t) for t in scope), f"k.{kind}"]


def lucene(filters: Sequence[Sequence[str]], scored: Sequence[str] = ()) -> str:
    """A Lucene query that requires one token of each group of ``filters`` at boost 0 (they
    select, they do not score) and, given ``scored``, at least one of those, scored by BM25."""
    def clause(tokens: Sequence[str]) -> str:
        for t in tokens:
            if not _TOKEN.fullmatch(t):
                raise ValueError(f"not a search token: {t[:40]!r}")
        quoted = " ".join(f'"{t}"' for t in tokens)
        return quoted if len(tokens) == 1 else f"({quoted})"
    parts = [f"+{clause(group)}^0" for group in filters]
    if scored:
        parts.append(f"+{clause(scored)}")
    return " ".join(parts)


def index_exists(name: str) -> Query:
    return Query("SHOW INDEXES YIELD name WHERE name = $name RETURN name", {"name": name})


def adopt_unindexed() -> Query:
    """Queue every fact that has no entry and is not erased: the facts of a store written
    before the search index existed. A scan of every tenant's facts, in batches, run once by
    ``vintage.graph.neo4j.search.prepare`` (an auto-commit transaction, for the batches)."""
    return Query(f"""
MATCH (f:{FACT})
WHERE f.search_terms IS NULL AND f.erased_at IS NULL AND NOT f:{UNINDEXED}
CALL (f) {{ SET f:{UNINDEXED} }} IN TRANSACTIONS OF 10000 ROWS""", {})


def unindexed(tenant: str, model: str, limit: int, after: str = "") -> Query:
    """The tenant's first facts by id after ``after`` with no entry, or with one by another
    model than ``model``: each way in is a seek, and each yields at most ``limit``."""
    return Query(f"""
CALL () {{
{_unindexed_union("")}
}}
WITH f ORDER BY f.id LIMIT $limit
RETURN {fact_map("f")} AS f""", {"tenant": tenant, "model": model, "limit": limit,
                                  "after": after})


def with_pending(rank: Query, tenant: str, model: str) -> Query:
    """``rank`` (either ranking query: ``rank`` or ``ranker.rank_call``) and, in the same read,
    whether any of the tenant's facts has no entry by ``model`` (``pending``, what
    ``unindexed`` would find): a search refreshes the index only then, and the check costs
    no round trip of its own. No row when ``rank`` has none."""
    return Query(f"""
CALL () {{{rank.text}
}}
CALL () {{
  CALL () {{
{_unindexed_union("pending_")}
  }}
  RETURN count(f) > 0 AS pending
}}
RETURN *""", {**rank.params, "pending_tenant": tenant, "pending_model": model,
              "pending_limit": 1, "pending_after": ""})


def _unindexed_union(prefix: str) -> str:
    """``unindexed``'s three seeks (parameters named with ``prefix``), each yielding ``f``."""
    p = f"${prefix}"
    return "\n  UNION\n".join(f"""  MATCH (f:{label})
  USING INDEX SEEK f:{label}({props})
  WHERE f.tenant = {p}tenant AND {narrow}f.id > {p}after AND f.erased_at IS NULL
  RETURN f ORDER BY f.id LIMIT {p}limit""" for label, props, narrow in (
        (UNINDEXED, "tenant, id", ""),
        (FACT, "tenant, embedding_model", f"f.embedding_model < {p}model AND "),
        (FACT, "tenant, embedding_model", f"f.embedding_model > {p}model AND ")))


def clear_entries(tenant: str, limit: int) -> Query:
    """Drop the entries of up to ``limit`` of the tenant's facts, whatever their model, and
    queue each one not erased again; how many were dropped (``cleared``)."""
    return Query(f"""
MATCH (f:{FACT})
{seek("f", FACT, "tenant, embedding_model")}
WHERE f.tenant = $tenant AND f.embedding_model IS NOT NULL
WITH f LIMIT $limit
REMOVE f.search_terms, f.embedding, f.embedding_model
FOREACH (queued IN CASE WHEN f.erased_at IS NULL THEN [1] ELSE [] END | SET f:{UNINDEXED})
RETURN count(f) AS cleared""", {"tenant": tenant, "limit": limit})


def index_targets(tenant: str, ids: Sequence[str]) -> Query:
    """The scope and kind of each fact an entry is for (its filter tokens)."""
    return Query(f"""
UNWIND $ids AS id
MATCH (f:{FACT} {{tenant: $tenant, id: id}}) {seek("f", FACT)}
WHERE f.erased_at IS NULL
RETURN f.id AS id, coalesce(f.scope, []) AS scope, f.kind AS kind""",
                 {"tenant": tenant, "ids": list(ids)})


def put_entries(tenant: str, rows: list[dict[str, Any]]) -> Query:
    # The node's write lock first, then the erasure check: an erasure committed meanwhile is
    # seen, so an entry is never written on a fact whose text is gone. The vector is stored
    # as float32 (half the bytes of a list of floats, and cosine over it is faster).
    return Query(f"""
UNWIND $rows AS row
MATCH (f:{FACT} {{tenant: $tenant, id: row.id}}) {seek("f", FACT)}
SET f._vintage_lock = true
REMOVE f._vintage_lock
WITH f, row
WHERE f.erased_at IS NULL
SET f.search_terms = row.terms, f.embedding_model = row.model
REMOVE f:{UNINDEXED}
WITH f, row
CALL db.create.setNodeVectorProperty(f, 'embedding', row.vector)""",
                 {"tenant": tenant, "rows": rows})


def rank(spec: AsOf, terms: Sequence[str], identifiers: Sequence[str],
         vector: Sequence[float] | None, model: str | None, per_leg: int,
         counted: bool = True) -> Query:
    """Each leg's best inside the legal set of ``spec`` (resolved), in one round trip.

    ``terms`` and ``identifiers`` are blinded. The text part asks Lucene for every entry of the
    tenant within the read's scope carrying a term, with no limit (the scope's filter tokens
    are required, so another user's entries are never even read: the scope is a boundary, and
    a count of what lies beyond it would tell this user what another holds), and gives each
    its reason to be excluded (``vintage.graph.core.exclusion``): the legal ones are ranked by BM25
    (keyword) and by how many identifiers they carry (exact), the rest counted by reason, never
    as outside the scope. The legal part enumerates the legal set (Lucene's filter tokens, or
    the indexes of named ids or subjects) under the whole as-of predicate, counts it, and ranks
    its vectors of ``model`` by exact cosine.

    Each leg and each count is its own pass over the index's rows, ordered and cut there
    (``ORDER BY ... LIMIT $per_leg``) or aggregated: no pass collects the rows into a list. A
    tenant-wide search matches tens of thousands of entries, and a list of them unwound under
    a top-k was charged about depth x its size against the transaction's memory (1.5 GB at
    depth 200 on the SEC facts), where a cut stream holds only the ``per_leg`` rows it keeps.

    Not ``counted``: the legs alone, without the two counting passes (the matched entries by
    reason, the legal set's size), which do not change with the depth: a deeper round of one
    search reads them from its first (0 and [] here)."""
    where, params = to_cypher(spec, "f")
    params.update(per_leg=per_leg)
    parts = []
    columns = "[] AS keyword, [] AS exact, 0 AS matched, [] AS excluded"
    if terms:
        reason, _ = reason_cypher(spec, "f")
        params["text"] = lucene(scope_filters(spec), terms)

        def hits(query: str) -> str:
            return _HITS.format(index=FACT_TEXT, query=query, scope=scope_clause(spec, "f"),
                                reason=reason.replace("\n", "\n    "))
        if counted:
            parts.append(_COUNTS.format(hits=hits("$text")))
        parts.append(_KEYWORD.format(hits=hits("$text")))
        exact = "[] AS exact"
        if identifiers:
            # Only an entry carrying an identifier can count one: Lucene is asked for those.
            params.update(identifiers=list(identifiers),
                          identified=lucene(scope_filters(spec), identifiers))
            parts.append(_EXACT.format(hits=hits("$identified")))
            exact = "exact"
        columns = f"keyword, {exact}, " + (
            "matched, excluded" if counted else "0 AS matched, [] AS excluded")
    legal = _legal_set(spec, where, params)
    if counted:
        parts.append(f"CALL () {{\n  {legal}\n  RETURN count(f) AS legal\n}}")
    semantic = "[] AS semantic"
    if vector is not None and model is not None:
        params.update(vector=list(vector), model=model)
        parts.append(_SEMANTIC.format(legal=legal))
        semantic = "semantic"
    size = "legal" if counted else "0 AS legal"
    return Query("\n" + "\n".join(parts) + f"\nRETURN {columns}, {size}, {semantic}", params)


def _legal_set(spec: AsOf, where: str, params: dict[str, Any]) -> str:
    """Cypher yielding ``f``, each legal fact with an entry, by the narrowest way in: the
    (tenant, id) key for named ids, the lookup index for named subjects, else Lucene's filter
    tokens (the tenant's entries in the scope, of the kinds asked)."""
    where = where.replace("\n", "\n  ")
    if spec.ids is not None or spec.subjects is not None:
        hint = (seek("f", FACT) if spec.ids is not None
                else seek("f", FACT, "tenant, subject, predicate"))
        if spec.ids is None and spec.predicates is None:
            where += "\n    AND f.predicate IS NOT NULL"  # the lookup index's prefix
        return (f"MATCH (f:{FACT})\n  {hint}\n  WHERE {where}\n"
                "    AND f.search_terms IS NOT NULL")
    filters = scope_filters(spec)
    if spec.kinds is not None:
        filters.append([f"k.{k.value}" for k in spec.kinds])
    params["legal"] = lucene(filters)
    return (f"CALL db.index.fulltext.queryNodes('{FACT_TEXT}', $legal) YIELD node AS f\n"
            f"  WHERE {where}")


def scope_filters(spec: AsOf) -> list[list[str]]:
    """The filter token groups of the read's tenant and of each of its scope terms."""
    return [[tenant_token(spec.scope.tenant)], *([scope_token(t)] for t in spec.scope.terms())]


# The scope is tested again on what Lucene yields: its tokens are hashes, and the predicate,
# not the tokens, decides (so no item of another scope is ever matched or counted). A legal hit
# is one with no reason: the text legs test the very expression the counts group by.
_HITS = """CALL db.index.fulltext.queryNodes('{index}', {query}) YIELD node AS f, score
  WHERE f.tenant = $asof_tenant AND {scope}
  WITH f, score, {reason} AS reason"""

_COUNTS = """CALL () {{
  {hits}
  WITH reason, count(*) AS n ORDER BY reason
  RETURN sum(n) AS matched,
         collect(CASE WHEN reason IS NOT NULL THEN [reason, n] END) AS excluded
}}"""

_KEYWORD = """CALL () {{
  {hits}
  WITH f, score WHERE reason IS NULL
  WITH f.id AS id, score ORDER BY score DESC, id LIMIT $per_leg
  RETURN collect([id, score]) AS keyword
}}"""

# How many identifiers an entry carries, without splitting its terms into a list per hit:
# each token stands between spaces once one is appended.
_EXACT = """CALL () {{
  {hits}
  WITH f WHERE reason IS NULL
  WITH f.id AS id,
       size([i IN $identifiers WHERE (f.search_terms + ' ') CONTAINS (' ' + i + ' ')]) AS exact
  WITH id, exact WHERE exact > 0
  WITH id, exact ORDER BY exact DESC, id LIMIT $per_leg
  RETURN collect([id, exact]) AS exact
}}"""

# Neo4j's cosine is normalised to [0, 1] as (1 + cos) / 2; the seam's score is the cosine.
_SEMANTIC = """CALL () {{
  {legal}
    AND f.embedding_model = $model
  WITH f.id AS id, vector.similarity.cosine(f.embedding, $vector) AS score
  ORDER BY score DESC, id LIMIT $per_leg
  RETURN collect([id, 2 * score - 1]) AS semantic
}}"""
