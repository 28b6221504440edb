"""Golden files for every Cypher builder: the generated text and parameters, no server needed.

Regenerate after an intended change with ``UPDATE_GOLDEN=1 pytest tests/test_cypher_golden.py``
and review the diff like code.
"""

from __future__ import annotations

import inspect
import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import FactKind, Status
from vintage.graph.core.labels import (
    CONFLICTS_WITH,
    FACT,
    FORBIDDEN_NAMES,
    GENERATED,
    LABELS,
    REL_TYPES,
    SOURCE,
    USED,
)
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import as_of, from_to, parse_instant
from vintage.graph.neo4j import cypher, cypher_held, procedures, ranker
from vintage.graph.neo4j import cypher_lineage as lineage
from vintage.graph.neo4j import cypher_reads as reads
from vintage.graph.neo4j import cypher_search as search
from vintage.graph.neo4j.schema import SCHEMA_STATEMENTS
from vintage.graph.store.capabilities import known_now
from vintage.graph.store.protocol import Direction

GOLDEN = Path(__file__).parent / "golden"
T = parse_instant("2019-04-30")
ROWS = [{"id": "x", "recorded_at": T}]
SCOPE = Scope(tenant="acme", keys={"user": "42"})

CASES: dict[str, Callable[[], cypher.Query]] = {
    "held_facts": lambda: cypher_held.held_facts(known_now("acme").resolved(T), ["f9"]),
    "held_sources": lambda: cypher_held.held_sources(known_now("acme").resolved(T), ["f9"]),
    "held_sealed": lambda: cypher_held.held_sealed(known_now("acme").resolved(T)),
    "existing": lambda: cypher.existing("acme", FACT, ["a", "b"]),
    "nodes_by_id": lambda: cypher.nodes_by_id("acme", FACT, ["a"]),
    "nodes_by_id_source": lambda: cypher.nodes_by_id("acme", SOURCE, ["s"]),
    "live_versions": lambda: cypher.live_versions("acme", ["k1"]),
    "top_revisions": lambda: cypher.top_revisions("acme", ["k1", "k2"]),
    "history": lambda: cypher.history("acme", "k1"),
    "facts_in": lambda: cypher.facts_in(SCOPE),
    "facts_in_narrowed": lambda: cypher.facts_in(
        SCOPE, (FactKind.PREFERENCE, FactKind.INFERENCE), ["k1"]),
    "merge_subjects": lambda: cypher.merge_subjects("acme", ROWS),
    "create_sources": lambda: cypher.create_sources("acme", ROWS),
    "create_facts": lambda: cypher.create_facts("acme", ROWS),
    "add_support": lambda: cypher.add_support("acme", [
        {"fact_id": f, "source_id": "s1", "available_at": T, "recorded_at": T} for f in "ab"]),
    "close_knowledge": lambda: cypher.close_knowledge("acme", [
        {"fact_id": f, "superseded_at": T, "recorded_at": T} for f in "ab"]),
    "link_supersedes": lambda: cypher.link_supersedes("acme", [
        {"new_id": "b", "old_id": "a", "source_id": "s1", "at": T, "recorded_at": T}]),
    "link_conflicts": lambda: cypher.link_conflicts(
        "acme", [{"fact_id": "a", "other_id": "b", "recorded_at": T}]),
    "create_derivations": lambda: cypher.create_derivations("acme", [{
        "props": {"id": "d1", "recorded_at": T}, "used": [{"fact_id": "a", "role": "x"}],
        "generated": ["b"]}]),
    "create_events": lambda: cypher.create_events("acme", [{"id": "e1", "at": T}]),
    "read_facts_defaults": lambda: reads.read_facts(AsOf(SCOPE).resolved(T), None),
    "read_facts_everything": lambda: reads.read_facts(AsOf(
        SCOPE, known_at=T, system_at=T, valid=from_to(T, None),
        statuses=frozenset({Status.ACTIVE, Status.CANDIDATE}), subjects=("GOOGL",),
        predicates=("Revenues",), kinds=(FactKind.OBSERVATION,)), 10),
    "read_facts_valid_instant": lambda: reads.read_facts(
        AsOf(SCOPE, known_at=T, system_at=T, valid=as_of(T)), None),
    "replaced_premises": lambda: reads.replaced_premises(AsOf(
        Scope(tenant="acme", keys={"user": "alice"})).resolved(T)),
    "supports": lambda: reads.supports("acme", ["a"]),
    "supports_live": lambda: reads.supports("acme", ["a"], T),
    "confirmations": lambda: reads.confirmations("acme", ["a"], T, T),
    "read_cited": lambda: reads.read_cited_facts(
        AsOf(Scope(tenant="acme"), subjects=("ACME",), predicates=("revenue",)).resolved(T), 5),
    "read_cited_with_subjects": lambda: reads.read_cited_with_subjects(
        AsOf(Scope(tenant="acme"), ids=("a", "b")).resolved(T)),
    "read_confirmed": lambda: reads.read_confirmed_facts(
        AsOf(Scope(tenant="acme"), subjects=("ACME",), predicates=("revenue",)).resolved(T)),
    "subjects": lambda: reads.subjects("acme", ["GOOGL", "cik:0001652044", "ticker:GOOGL"]),
    "subjects_all": lambda: reads.subjects("acme"),
    "lock_subjects": lambda: cypher.lock_subjects("acme", ["b", "a"]),
    "events": lambda: reads.events("acme"),
    "tenants": lambda: reads.tenants(),  # noqa: PLW0108 (looked up when called: spied)
    "events_actions": lambda: reads.events("acme", ["erase", "rollback"]),
    "events_ids": lambda: reads.events("acme", ["record"], ["e1", "e2"]),
    "walk_reach_upstream": lambda: lineage.walk_reach("acme", ["a"], Direction.UPSTREAM, T, 8),
    "walk_reach_downstream": lambda: lineage.walk_reach(
        "acme", ["a"], Direction.DOWNSTREAM, T, 8),
    "walk_edges_upstream": lambda: lineage.walk_edges("acme", ["4:x:1"], Direction.UPSTREAM, T),
    "walk_edges_downstream": lambda: lineage.walk_edges(
        "acme", ["4:x:1"], Direction.DOWNSTREAM, T, (USED, GENERATED)),
    "walk_reach_conflicts": lambda: lineage.walk_reach(
        "acme", ["a"], Direction.DOWNSTREAM, T, 1, (CONFLICTS_WITH,)),
    "start_elements": lambda: lineage.start_elements("acme", ["a"]),
    "justifications": lambda: lineage.justifications("acme", ["f1"], T),
    "input_sources": lambda: lineage.input_sources("acme", ["f1", "f2"], T, T, 128),
    "generated_by": lambda: lineage.generated_by("acme", ["d1"]),
    "invalidate_facts": lambda: lineage.invalidate_facts("acme", [{"fact_id": "f", "at": T}]),
    "downstream_level": lambda: lineage.downstream_level("acme", ["x", "y"], T),
    "cascade_call": lambda: procedures.cascade_call("acme", {"x": T, "y": None}, "knowledge", T),
    "cascade_close_call": lambda: procedures.cascade_call("acme", {"x": T, "y": None},
                                                          "knowledge", T, close=True),
    "erase_facts": lambda: lineage.erase_facts("acme", [{"fact_id": "f", "at": T}]),
    "erased_among": lambda: lineage.erased_among("acme", ["f", "g"]),
    "retract_support": lambda: lineage.retract_support("acme", "s1", T),
    "retracted_at": lambda: lineage.retracted_at("acme", "s1"),
    "ever_supported_by": lambda: lineage.ever_supported_by("acme", "s1"),
    "restore_support": lambda: lineage.restore_support("acme", "s1", T, T),
    "reopen_facts": lambda: lineage.reopen_facts("acme", [{"fact_id": "f", "at": T}]),
    "set_knowledge_ends": lambda: lineage.set_knowledge_ends("acme", [
        {"fact_id": "f", "superseded_at": None, "recorded_at": T},
        {"fact_id": "g", "superseded_at": T, "recorded_at": T}]),
    "purge_tenant_facts": lambda: cypher.purge_tenant("acme")[2],
    "adopt_unindexed": lambda: search.adopt_unindexed(),  # noqa: PLW0108 (the spy must see it)
    "index_exists": lambda: search.index_exists("vintage_fact_text"),
    "unindexed": lambda: search.unindexed("acme", "minilm", 100),
    "unindexed_after": lambda: search.unindexed("acme", "minilm", 100, "k1.r1"),
    "clear_entries": lambda: search.clear_entries("acme", 10_000),
    "index_targets": lambda: search.index_targets("acme", ["a", "b"]),
    "put_entries": lambda: search.put_entries("acme", [
        {"id": "a", "terms": "t.0 k.preference b.1", "vector": [0.6, 0.8], "model": "minilm"}]),
    "rank_memory": lambda: search.rank(
        AsOf(SCOPE, kinds=(FactKind.PREFERENCE, FactKind.EXPERIENCE)).resolved(T),
        ["b.1", "b.2"], ["b.2"], [0.6, 0.8], "minilm", 5),
    "rank_subjects_without_vector": lambda: search.rank(
        AsOf(Scope(tenant="acme"), known_at=T, subjects=("GOOGL",)).resolved(T),
        ["b.1"], [], None, None, 5),
    "rank_memory_deeper_round": lambda: search.rank(
        AsOf(SCOPE, kinds=(FactKind.PREFERENCE, FactKind.EXPERIENCE)).resolved(T),
        ["b.1", "b.2"], ["b.2"], [0.6, 0.8], "minilm", 10, counted=False),
    "rank_with_pending": lambda: search.with_pending(
        search.rank(AsOf(SCOPE, ids=("a", "b")).resolved(T), [], [], [1.0, 0.0], "minilm", 3),
        "acme", "minilm"),
    "rank_ids_without_terms": lambda: search.rank(
        AsOf(SCOPE, ids=("a", "b")).resolved(T), [], [], [1.0, 0.0], "minilm", 3),
    "ranker_search_write": lambda: ranker.search_write("acme"),
    "ranker_build_columns": lambda: ranker.build_columns("acme"),
    "ranker_text_passes": lambda: ranker.text_passes(),  # noqa: PLW0108 (the spy patches it)
    "ranker_rank_memory": lambda: ranker.rank_call(
        AsOf(SCOPE, kinds=(FactKind.PREFERENCE,), unexpired_at=T).resolved(T),
        ["b.1", "b.2"], ["b.2"], [0.6, 0.8], "minilm", 5),
    "ranker_rank_filings": lambda: ranker.rank_call(
        AsOf(Scope(tenant="acme"), known_at=T, valid=from_to(T, None), shared_only=True,
             predicates=("Revenues",)).resolved(T), ["b.1"], [], None, None, 10, counted=False),
    "ranker_rank_ids_at_an_instant": lambda: ranker.rank_call(
        AsOf(SCOPE, ids=("a", "b"), valid=as_of(T)).resolved(T), [], [], [1.0, 0.0],
        "minilm", 3),
    "ranker_reread": lambda: ranker.reread_call(
        AsOf(SCOPE, ids=("a", "b"), unexpired_at=T).resolved(T)),
}


def render(query: cypher.Query) -> str:
    params = json.dumps(query.params, sort_keys=True, indent=2, default=str)
    return f"{query.text.strip()}\n// params\n{params}\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_generated_cypher_matches_its_golden_file(name: str) -> None:
    path = GOLDEN / f"{name}.cypher"
    text = render(CASES[name]())
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text)
    assert path.exists(), f"no golden file {path.name}; run with UPDATE_GOLDEN=1"
    assert text == path.read_text()


def _builders() -> set[str]:
    """Every public function of the builder modules that returns Cypher."""
    return {f"{module.__name__}.{name}"
            for module in (cypher, reads, lineage, search, procedures, ranker)
            for name, fn in vars(module).items()
            if inspect.isfunction(fn) and fn.__module__ == module.__name__
            and not name.startswith("_")
            and inspect.signature(fn).return_annotation in ("Query", "list[Query]")}


def test_every_builder_has_a_golden_file(monkeypatch: pytest.MonkeyPatch) -> None:
    expected, called = _builders(), set()
    for qualified in expected:
        module_name, name = qualified.rsplit(".", 1)
        module = {m.__name__: m for m in (cypher, reads, lineage, search, procedures, ranker)}[
            module_name]
        original = getattr(module, name)

        def spy(*args: object, _fn: Callable[..., object] = original, _name: str = qualified,
                **kwargs: object) -> object:
            called.add(_name)
            return _fn(*args, **kwargs)

        monkeypatch.setattr(module, name, spy)
    for build in CASES.values():
        build()
    assert expected - called == set()


def test_schema_statements_match_their_golden_file() -> None:
    path = GOLDEN / "schema.cypher"
    text = ";\n".join(SCHEMA_STATEMENTS) + ";\n"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text)
    assert text == path.read_text()


def test_no_graphiti_label_or_type_is_ever_used() -> None:
    assert not (set(LABELS) | set(REL_TYPES)) & FORBIDDEN_NAMES
    for name, build in CASES.items():
        text = build().text
        assert not any(f":{bad}" in text for bad in FORBIDDEN_NAMES), name


def test_labels_come_from_constants_never_from_callers() -> None:
    with pytest.raises(ValueError, match="not a Vintage label"):
        cypher.existing("acme", "Fact) DETACH DELETE (n", ["a"])


def test_values_are_parameters_not_text() -> None:
    evil = "x' OR 1=1 //"
    query = reads.read_facts(AsOf(SCOPE, subjects=(evil,)).resolved(T), None)
    assert evil not in query.text
    assert query.params["asof_subjects"] == [evil]


def test_walk_depth_must_be_a_small_integer() -> None:
    with pytest.raises(ValueError, match="max_depth"):
        lineage.walk_reach("acme", ["a"], Direction.UPSTREAM, T, 0)


# A lookup by key per row of a list: `{tenant: $tenant, id: row.x}` (an UNWIND variable), or
# `alias.tenant = $tenant AND alias.id IN $ids`. Neither a MERGE nor a union of labels can be
# hinted; tests/test_neo4j_plans.py checks that they seek.
_ROW_LOOKUP = re.compile(r"MATCH \((\w+):(\w+) \{tenant: \$tenant, (id|key): (?!\$)")
_LIST_LOOKUP = re.compile(
    r"MATCH \((\w+):(\w+)\)[^;]*?WHERE \1\.tenant = \$tenant AND \1\.(id|key) IN \$")


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_lookup_by_key_from_a_list_names_its_index_seek(name: str) -> None:
    # Planned while a young store's index sample still described it near empty, an unhinted
    # lookup became a scan of the whole index per row: a cascade level took 30 s, not 0.4 s
    # (bench/notes/history.md, "Plans on a young database"). The hint makes the seek the only plan.
    text = CASES[name]().text
    lookups = [*_ROW_LOOKUP.findall(text), *_LIST_LOOKUP.findall(text)]
    for alias, label, prop in lookups:
        hint = f"USING INDEX SEEK {alias}:{label}(tenant, {prop})"
        wanted = sum((a, lab, p) == (alias, label, prop) for a, lab, p in lookups)
        assert text.count(hint) >= wanted, f"{name}: {alias}:{label} by {prop} without {hint}"
