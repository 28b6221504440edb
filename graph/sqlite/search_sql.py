"""The SQL of a search's reads on the SQLite store (``vintage.graph.sqlite.search`` runs them):
builders only, each a pure function of the read's as-of spec (``vintage.graph.sqlite.asof``)
giving (SQL, parameters); golden files in tests/golden/sqlite, plans in
tests/test_sqlite_plans.py."""

from __future__ import annotations

from collections.abc import Sequence

from vintage.graph.core.asof import AsOf
from vintage.graph.core.labels import DERIVATION, USED
from vintage.graph.sqlite import reads
from vintage.graph.sqlite.asof import reason_sql, to_sql

Params = dict[str, object]
OUTSIDE = "-"  # a posting's fact outside the read's scope: neither ranked nor counted
JOIN = ("JOIN entries e ON e.rowid = p.entry "
        "JOIN facts f ON f.tenant = e.tenant AND f.id = e.fact_id")


def postings_sql(spec: AsOf, terms: Sequence[str]) -> tuple[str, Params]:
    """(fact id, term, count, entry length, why) of the postings of ``terms`` in the tenant,
    the as-of predicate decided once per row: ``why`` NULL for a fact in the legal set (ranked),
    the reason it is excluded (``reason_sql``) for one in the read's scope that the predicate
    leaves out (counted as matched, never ranked), ``OUTSIDE`` for one outside that scope. The
    postings the keyword and exact legs rank and the matched-but-excluded facts a search
    reports are one read."""
    where, params = to_sql(spec, "f")
    reason, _ = reason_sql(spec, "f")
    scope, more = scope_clause(spec)
    return (f"SELECT e.fact_id, p.term, p.tf, e.length, CASE WHEN ({where}) IS 1 THEN NULL\n"
            f"  WHEN ({scope}) IS 1 THEN {reason}\n  ELSE '{OUTSIDE}' END\n"
            f"FROM postings p {JOIN}\n"
            f"WHERE p.tenant = :asof_tenant AND p.term IN (SELECT value FROM json_each(:terms))"
            f"{_of_subjects(spec)}", {**params, **more, "terms": reads.js(terms)})


def others_sql(spec: AsOf, terms: Sequence[str]) -> tuple[str, Params]:
    """How many facts of a subject the read does not name the postings of ``terms`` match
    within the read's scope: each is excluded as ``another subject``, the first reason after
    the scope and erasure (``vintage.graph.core.exclusion.REASONS``; an erased fact has no
    postings), so the postings alone count them: every posting of the terms is still read,
    but as index rows, no entry or fact. With ``postings_sql`` (the named subjects'
    postings, judged and joined) it is every fact the terms match in the scope."""
    _, params = to_sql(spec, "f")
    scope, more = scope_clause(spec, "p")
    return ("SELECT COUNT(DISTINCT p.entry) FROM postings p\n"
            "WHERE p.tenant = :asof_tenant AND p.term IN (SELECT value FROM json_each(:terms))"
            "\n  AND p.subject NOT IN (SELECT value FROM json_each(:asof_subjects))"
            f"\n  AND ({scope})", {"asof_tenant": params["asof_tenant"],
                                  "asof_subjects": params["asof_subjects"], **more,
                                  "terms": reads.js(terms)})


def legal_postings_sql(spec: AsOf, terms: Sequence[str]) -> tuple[str, Params]:
    """(fact id, term, count, entry length) of the postings of ``terms`` in the legal set: a
    read that reports no counts (a deeper round, a rescoring narrowed to some ids), which the
    as-of predicate narrows in the database."""
    where, params = to_sql(spec, "f")
    return (f"SELECT e.fact_id, p.term, p.tf, e.length FROM postings p {JOIN}\n"
            f"WHERE p.tenant = :asof_tenant AND p.term IN (SELECT value FROM json_each(:terms))"
            f"{_of_subjects(spec)}\n  AND {where}", {**params, "terms": reads.js(terms)})


def _of_subjects(spec: AsOf) -> str:
    """The postings of the read's subjects alone, sought by the postings' key (tenant, term,
    subject); ``to_sql``'s parameters name them. Nothing when the read names none."""
    return ("" if spec.subjects is None else
            "\n  AND p.subject IN (SELECT value FROM json_each(:asof_subjects))")


def legal_entries_sql(spec: AsOf, model: str) -> tuple[str, Params]:
    """(fact id, vector) of every legal entry in the clear, its vector NULL unless by ``model``:
    the semantic leg's matrix and the legal set's size in one read. Not the question's
    dimension (a vector of another length is left out by the ranking): the read can then be
    made before the question is embedded (``read_ahead``)."""
    legal, params = _legal_entries(spec)
    return (f"SELECT e.fact_id, CASE WHEN e.model = :model THEN e.vector END {legal}",
            {**params, "model": model})


def legal_count_sql(spec: AsOf) -> tuple[str, Params]:
    """How many entries in the clear the legal set holds."""
    legal, params = _legal_entries(spec)
    return f"SELECT COUNT(*) {legal}", params


def _legal_entries(spec: AsOf) -> tuple[str, Params]:
    """FROM and WHERE of the entries in the clear whose facts the as-of predicate keeps: the
    semantic leg's matrix and the legal set's size count the same rows."""
    where, params = to_sql(spec, "f")
    return ("FROM entries e JOIN facts f ON f.tenant = e.tenant AND f.id = e.fact_id\n"
            f"WHERE e.tenant = :asof_tenant AND e.sealed IS NULL\n  AND {where}", params)


def pending_sql(tenant: str, model: str) -> tuple[str, Params]:
    """A row when some fact of the tenant (not erased) has no entry by ``model``: more live
    facts than entries by the model. Each is a count over a covering index (``facts_live``,
    ``entries_model``: ``vintage.graph.sqlite.schema``), no fact or entry row read and no
    lookup per fact (a search at 1M versions paid 1.3 to 5 s for the lookups). Exact because
    every entry's fact is live: an entry is written only for a live fact and is deleted with
    its fact's erasure (``IndexTx.put_index``, ``SqliteTx.erase_facts``; held by
    tests/test_search_index.py)."""
    return ("SELECT 1 WHERE (SELECT COUNT(*) FROM facts INDEXED BY facts_live WHERE tenant = "
            ":tenant AND erased = 0)\n  > (SELECT COUNT(*) FROM entries INDEXED BY entries_model "
            "WHERE tenant = :tenant AND model = :model)", {"tenant": tenant, "model": model})


def scope_clause(spec: AsOf, alias: str = "f") -> tuple[str, Params]:
    """The read's scope alone (shared facts, or the scope's terms all held), for what a search
    matched outside the legal set: a fact outside the scope is neither ranked nor counted.
    ``alias``: a fact's row, or a posting's (which carries its fact's scope)."""
    if spec.shared_only:
        return f"{alias}.scope = '[]'", {}
    return (f"NOT EXISTS (SELECT 1 FROM json_each(:scope_terms) t WHERE t.value NOT IN "
            f"(SELECT value FROM json_each({alias}.scope)))",
            {"scope_terms": reads.js(spec.scope.terms())})


def frequencies_sql(tenant: str, terms: Sequence[str]) -> tuple[str, Params]:
    """(term, document frequency) of ``terms`` over the tenant's entries in the clear."""
    return ("SELECT term, COUNT(*) FROM postings WHERE tenant = :tenant AND term IN "
            "(SELECT value FROM json_each(:terms)) GROUP BY term",
            {"tenant": tenant, "terms": reads.js(terms)})


def sealed_sql(tenant: str) -> tuple[str, Params]:
    """(fact id, model, ciphertext) of the tenant's sealed entries."""
    return ("SELECT fact_id, model, sealed FROM entries WHERE tenant = :tenant AND sealed IS "
            "NOT NULL", {"tenant": tenant})


def replaced_premises_sql(spec: AsOf) -> tuple[str, Params]:
    """(premise id) of each fact version a derivation used that a legal later revision of its
    assertion had replaced by the read's knowledge instant: a search's closure notices
    (``StoreTx.replaced_premises``). It starts from the derivations' inputs (the edges' index
    by type), each one's assertion sought by key for that revision: never a walk of the legal
    set (the Neo4j twin, ``cypher_reads.replaced_premises``, starts from the USED edges too).
    ``u`` is the used version (the predicate's own subqueries name a ``p``)."""
    where, params = to_sql(spec, "f")
    return ("SELECT DISTINCT u.id FROM edges e INDEXED BY edges_in\n"
            "JOIN facts u INDEXED BY facts_id ON u.tenant = e.tenant AND u.id = e.dst\n"
            f"WHERE e.tenant = :asof_tenant AND e.type = '{USED}' AND e.src_label = "
            f"'{DERIVATION}'\n  AND u.invalidated_at IS NULL AND u.superseded_at <= :asof_known"
            "\n  AND EXISTS (SELECT 1 FROM facts f INDEXED BY facts_key WHERE f.tenant = u.tenant"
            f"\n    AND f.key = u.key AND f.revision > 1 AND {where})\nORDER BY u.id", params)
