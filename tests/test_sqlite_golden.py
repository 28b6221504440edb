"""Golden files for the SQL the SQLite store builds from an as-of spec
(``vintage.graph.sqlite.asof.to_sql``, the twin of ``to_cypher``; ``reason_sql``, the twin of
``why_excluded``) and for the reads of a search (``vintage.graph.sqlite.search``): the text and
the parameters, for each shape of read. Regenerate after an intended change with
``UPDATE_GOLDEN=1 pytest tests/test_sqlite_golden.py`` and review the diff like code."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import Authority, FactKind, Status
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import as_of, from_to, parse_instant
from vintage.graph.sqlite import held, reads, search_sql
from vintage.graph.sqlite.asof import reason_sql, to_sql
from vintage.graph.store.capabilities import known_now

GOLDEN = Path(__file__).parent / "golden" / "sqlite"
T = parse_instant("2019-04-30")
USER = Scope(tenant="acme", keys={"user": "42"})


def spec(scope: Scope = Scope(tenant="acme"), **kw: Any) -> AsOf:  # noqa: B008
    return AsOf(scope, **kw).resolved(T)


CASES: dict[str, Callable[[], AsOf]] = {
    "asof_defaults": spec,
    "asof_valid_instant": lambda: spec(valid=as_of(parse_instant("2018-03-01")),
                                       subjects=("GOOGL",), predicates=("Revenues",)),
    "asof_valid_window": lambda: spec(valid=from_to(parse_instant("2018-01-01"), T)),
    "asof_scope_and_kinds": lambda: spec(USER, kinds=(FactKind.PREFERENCE,),
                                         statuses=frozenset({Status.ACTIVE, Status.CANDIDATE}),
                                         unexpired_at=T),
    "asof_shared_ids": lambda: spec(shared_only=True, ids=("f1", "f2")),
}


# Builders beyond the predicate itself: (SQL, parameters).
BUILT: dict[str, Callable[[], tuple[str, dict[str, Any]]]] = {
    "asof_reasons": lambda: reason_sql(spec(valid=as_of(parse_instant("2018-03-01")),
                                            subjects=("GOOGL",),
                                            min_authority=Authority.APPROVED_SUMMARY),
                                       "f"),
    "search_postings": lambda: search_sql.postings_sql(spec(), ["oper", "incom",
                                                                "us-gaap:revenues"]),
    "search_postings_scoped": lambda: search_sql.postings_sql(spec(USER), ["ship", "退款"]),
    "search_postings_legal": lambda: search_sql.legal_postings_sql(spec(subjects=("GOOGL",)),
                                                                   ["oper"]),
    "search_legal_entries": lambda: search_sql.legal_entries_sql(spec(subjects=("GOOGL",)),
                                                                 "model"),
    "search_legal_count": lambda: search_sql.legal_count_sql(spec(USER, unexpired_at=T)),
    "search_pending": lambda: search_sql.pending_sql("acme", "model"),
    "search_frequencies": lambda: search_sql.frequencies_sql("acme", ["oper", "incom"]),
    "search_sealed": lambda: search_sql.sealed_sql("acme"),
    "search_replaced_premises": lambda: search_sql.replaced_premises_sql(spec(USER)),
    "search_postings_of_a_subject": lambda: search_sql.postings_sql(spec(subjects=("GOOGL",)),
                                                                    ["oper", "incom"]),
    "search_others": lambda: search_sql.others_sql(spec(USER, subjects=("GOOGL",)),
                                                   ["oper", "incom"]),
    "held_facts": lambda: held.facts_sql(known_now("acme").resolved(T), ["f9"]),
    "held_sources": lambda: held.sources_sql(known_now("acme").resolved(T), ["f9"]),
    "held_sealed": lambda: held.sealed_sql(known_now("acme").resolved(T)),
    "tenants": reads.tenants_sql,
}


def render(where: str, params: dict[str, Any]) -> str:
    return f"{where.strip()}\n-- params\n{json.dumps(params, sort_keys=True, indent=2)}\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_as_of_sql_matches_its_golden_file(name: str) -> None:
    path = GOLDEN / f"{name}.sql"
    text = render(*to_sql(CASES[name](), "f"))
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"no golden file {path.name}; run with UPDATE_GOLDEN=1"
    assert text == path.read_text()


@pytest.mark.parametrize("name", sorted(BUILT))
def test_the_search_sql_matches_its_golden_file(name: str) -> None:
    path = GOLDEN / f"{name}.sql"
    text = render(*BUILT[name]())
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text)
    assert path.exists(), f"no golden file {path.name}; run with UPDATE_GOLDEN=1"
    assert text == path.read_text()


def test_every_golden_file_has_its_case() -> None:
    assert sorted(p.stem for p in GOLDEN.glob("*.sql")) == sorted([*CASES, *BUILT])
