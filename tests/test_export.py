"""PROV-JSON and GraphML exports of ``explain``, on both backends, read back by independent
readers (the ``prov`` package and networkx)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import networkx as nx
import pytest
from prov.constants import PROV
from prov.model import (
    ProvActivity,
    ProvDerivation,
    ProvDocument,
    ProvEntity,
    ProvGeneration,
    ProvInvalidation,
    ProvRecord,
    ProvUsage,
)

from tests.factories import Q1_2018, PinnedClock, batch, fact, source
from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Fact, Scope
from vintage.graph.derivations.derived import Output, derive
from vintage.graph.derivations.recipes import expression
from vintage.graph.store.protocol import Store
from vintage.graph.writes.semantics import record
from vintage.queries.lineage.explain import Explanation, Step, explain
from vintage.queries.lineage.export import graphml, prov_json

S1 = source("s1", "2018-04-24", accession="0001652044-18-000016")
S2 = source("s2", "2018-04-24", accession="0001652044-18-000020")
RESTATED = source("10-K/A", "2019-04-30", accession="0001652044-19-000004", form="10-K/A")

# Relation attributes that name an entity or activity, and the record group each must be in.
REFERENCES = {"prov:entity": "entity", "prov:activity": "activity",
              "prov:generatedEntity": "entity", "prov:usedEntity": "entity",
              "prov:generation": "wasGeneratedBy", "prov:usage": "used"}


def derived(store: Store, scope: Scope, name: str, formula: str, **args: str) -> Fact:
    out = Output("GOOGL", name, Q1_2018[0], Q1_2018[1], "USD")
    return derive(store, scope, expression(name, "1", formula), args, out, actor="t").fact


def restated_diamond(store: Store, scope: Scope, clock: PinnedClock) -> dict[str, Fact]:
    """Revenue and cost from two filings; gross = revenue - cost; margin = gross / revenue (the
    diamond); then revenue is restated and everything downstream recomputed. Returns the old
    and new versions by name."""
    record(store, scope, batch(fact(100, S1.id, predicate="Revenues"),
                               fact(60, S2.id, predicate="CostOfRevenue"), sources=(S1, S2)),
           actor="t")
    given = {f.predicate: f for f in store.read(AsOf(scope))}
    gross = derived(store, scope, "GrossProfit", "revenue - cost",
                    revenue=given["Revenues"].id, cost=given["CostOfRevenue"].id)
    margin = derived(store, scope, "GrossMargin", "gross / revenue", gross=gross.id,
                     revenue=given["Revenues"].id)
    clock.advance(hours=1)
    record(store, scope, batch(fact(110, RESTATED.id, predicate="Revenues"),
                               sources=(RESTATED,)), actor="t", recompute=True)
    now = {f.predicate: f for f in store.read(AsOf(scope))}
    return {"old_revenue": given["Revenues"], "old_gross": gross, "old_margin": margin,
            "revenue": now["Revenues"], "cost": now["CostOfRevenue"],
            "gross": now["GrossProfit"], "margin": now["GrossMargin"]}


def steps(step: Step) -> list[Step]:
    return [step] + [s for j in step.derived_by for i in j.inputs for s in steps(i.step)]


def records(doc: ProvDocument, kind: type[ProvRecord]) -> list[ProvRecord]:
    return list(doc.get_records(kind))


def read_back(document: dict[str, Any]) -> ProvDocument:
    return ProvDocument.deserialize(content=json.dumps(document), format="json")


@pytest.fixture
def diamond(store: Store, scope: Scope, clock: PinnedClock) -> dict[str, Fact]:
    return restated_diamond(store, scope, clock)


@pytest.fixture
def explanation(store: Store, scope: Scope, diamond: dict[str, Fact]) -> Explanation:
    return explain(store, scope, diamond["margin"].id)


def test_the_restated_tree_names_the_old_versions_and_the_filings_behind_it(
    explanation: Explanation, diamond: dict[str, Fact],
) -> None:
    by_id = {s.fact.id: s for s in steps(explanation.root)}
    assert set(by_id) == {diamond[k].id for k in ("margin", "gross", "revenue", "cost")}
    assert explanation.root.fact.value == pytest.approx(50 / 110)
    for name in ("margin", "gross", "revenue"):
        assert by_id[diamond[name].id].supersedes == (diamond[f"old_{name}"].id,)
    assert by_id[diamond["cost"].id].supersedes == ()
    cited = {s.id: s.accession for step in by_id.values() for s in step.sources}
    assert cited == {RESTATED.id: RESTATED.accession, S2.id: S2.accession}


def test_the_prov_json_document_reads_back_with_every_record(explanation: Explanation) -> None:
    document = prov_json(explanation)
    doc = read_back(document)
    # 4 facts in the tree, 3 older versions they revise, 2 filings; 2 derivations.
    assert len(records(doc, ProvEntity)) == 9
    assert len(records(doc, ProvActivity)) == 2
    assert len(records(doc, ProvUsage)) == 4  # gross: revenue, cost; margin: gross, revenue
    assert len(records(doc, ProvGeneration)) == 4  # 2 by a derivation, 2 recorded
    assert records(doc, ProvInvalidation) == []  # the tree is the current one
    kinds = Counter(next(iter(r.get_asserted_types()), None)
                    for r in records(doc, ProvDerivation))
    assert kinds == {None: 4, PROV["Revision"]: 3, PROV["PrimarySource"]: 2}


def test_the_prov_json_document_survives_a_second_serialisation_unchanged(
    explanation: Explanation,
) -> None:
    document = prov_json(explanation)
    text = read_back(document).serialize(format="json")
    assert text is not None
    again = json.loads(text)
    assert again == document
    assert read_back(again) == read_back(document)


def test_every_prov_relation_points_at_a_record_of_the_document(
    explanation: Explanation,
) -> None:
    document = prov_json(explanation)
    relations = [(group, rid, body) for group, records in document.items()
                 if group not in {"prefix", "entity", "activity"}
                 for rid, body in records.items()]
    assert relations
    for group, rid, body in relations:
        for attribute, target in REFERENCES.items():
            if attribute in body:
                assert body[attribute] in document[target], (group, rid, attribute)


def test_the_prov_json_document_carries_values_stamps_and_roles(
    explanation: Explanation, diamond: dict[str, Fact],
) -> None:
    document = prov_json(explanation)
    revenue = document["entity"][f"vintage:fact/{diamond['revenue'].id}"]
    assert revenue["prov:type"] == {"$": "vintage:Fact", "type": "xsd:QName"}
    assert revenue["prov:value"] == {"$": "110", "type": "xsd:int"}
    assert revenue["vintage:availableAt"] == {
        "$": RESTATED.available_at.isoformat(), "type": "xsd:dateTime"}
    assert "vintage:supersededAt" not in revenue  # still current: an open interval
    source = document["entity"]["vintage:source/10-K%2FA"]
    assert source["vintage:accession"] == RESTATED.accession
    assert sorted(u["prov:role"] for u in document["used"].values()) == [
        "cost", "gross", "revenue", "revenue"]
    times = {g["prov:entity"]: g["prov:time"] for g in document["wasGeneratedBy"].values()}
    assert times[f"vintage:fact/{diamond['margin'].id}"] == RESTATED.available_at.isoformat()


def test_an_old_version_is_invalidated_when_its_knowledge_closed_and_revised_by_the_new(
    store: Store, scope: Scope, diamond: dict[str, Fact],
) -> None:
    document = prov_json(explain(store, scope, diamond["old_margin"].id))
    doc = read_back(document)
    invalidated = {str(r.args[0]): r.args[2] for r in records(doc, ProvInvalidation)}
    old = {f"vintage:fact/{diamond[f'old_{n}'].id}" for n in ("margin", "gross", "revenue")}
    assert set(invalidated) == old  # cost was never restated
    assert set(invalidated.values()) == {RESTATED.available_at}
    revision = document["wasDerivedFrom"][
        f"vintage:revision/{diamond['margin'].id}/{diamond['old_margin'].id}"]
    assert revision["prov:type"] == {"$": "prov:Revision", "type": "xsd:QName"}


def test_the_exports_are_the_same_for_the_same_tree(
    store: Store, scope: Scope, diamond: dict[str, Fact],
) -> None:
    first, second = (explain(store, scope, diamond["margin"].id) for _ in range(2))
    assert json.dumps(prov_json(first)) == json.dumps(prov_json(second))
    assert graphml(first) == graphml(second)


def test_the_graphml_document_reads_back_with_every_node_edge_and_attribute(
    explanation: Explanation, diamond: dict[str, Fact],
) -> None:
    text = graphml(explanation)
    g = nx.parse_graphml(text)
    kinds = Counter(data["kind"] for _, data in g.nodes(data=True))
    assert kinds == {"Fact": 7, "Source": 2, "Derivation": 2}
    types = Counter(data["type"] for _, _, data in g.edges(data=True))
    assert types == {"USED": 4, "GENERATED": 2, "SUPPORTED_BY": 2, "SUPERSEDES": 3}
    margin = g.nodes[f"fact:{diamond['margin'].id}"]
    assert margin["value_type"] == "double"
    assert float(margin["value"]) == pytest.approx(50 / 110)
    assert margin["revision"] == diamond["margin"].revision
    assert margin["available_at"] == RESTATED.available_at.isoformat()
    assert "superseded_at" not in margin  # None is left out, GraphML cannot hold it
    assert g.nodes[f"source:{RESTATED.id}"]["accession"] == RESTATED.accession
    assert g.graph["root"] == f"fact:{diamond['margin'].id}"
    assert "\n".join(nx.generate_graphml(g)) == text  # nothing lost or retyped on the way


def test_graphml_links_each_derivation_to_its_inputs_by_role(
    explanation: Explanation, diamond: dict[str, Fact],
) -> None:
    g = nx.parse_graphml(graphml(explanation))
    (activity,) = (n for n, t in g.in_edges(f"fact:{diamond['margin'].id}")
                   if g.edges[n, t]["type"] == "GENERATED")
    roles = {t: d["role"] for _, t, d in g.out_edges(activity, data=True)
             if d["type"] == "USED"}
    assert roles == {f"fact:{diamond['gross'].id}": "gross",
                     f"fact:{diamond['revenue'].id}": "revenue"}
    assert g.edges[f"fact:{diamond['revenue'].id}", f"fact:{diamond['old_revenue'].id}"] == {
        "type": "SUPERSEDES"}
