"""Exports of an ``explain`` tree for tools outside Vintage: W3C PROV-JSON and GraphML.

Both are pure functions of an :class:`~vintage.queries.lineage.explain.Explanation`; the caller does
the I/O.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from urllib.parse import quote

import networkx as nx

from vintage.queries.lineage.explain import Explanation, Justified, Step
from vintage.queries.lineage.views import DerivationView, FactView, SourceView

NAMESPACE = "urn:vintage:"
Record = dict[str, Any]


def _walk(step: Step) -> Iterator[Step]:
    # The tree repeats shared inputs (a diamond reaches one fact twice); callers dedupe by id.
    yield step
    for justified in step.derived_by:
        for item in justified.inputs:
            yield from _walk(item.step)


def _local(text: str) -> str:
    # Source ids are free text ("10-K/A"); percent-encoding keeps every id a valid QName local
    # part while staying reversible and distinct per original id.
    return quote(text, safe="")


def _fact(fid: str) -> str:
    return f"vintage:fact/{_local(fid)}"


def _source(sid: str) -> str:
    return f"vintage:source/{_local(sid)}"


def _activity(did: str) -> str:
    return f"vintage:derivation/{_local(did)}"


def _time(at: datetime) -> str:
    # isoformat matches what the ``prov`` package writes, so a re-serialised document is equal.
    return at.isoformat()


def _datetime(at: datetime) -> dict[str, str]:
    return {"$": _time(at), "type": "xsd:dateTime"}


def _qname(name: str) -> dict[str, str]:
    return {"$": name, "type": "xsd:QName"}


def _literal(value: bool | int | float | str) -> Any:
    # PROV-JSON requires typed literals to carry "$" as a string; bools and strings are native.
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        kind = "xsd:int" if -(2**31) <= value < 2**31 else "xsd:long"
        return {"$": str(value), "type": kind}
    return {"$": repr(value), "type": "xsd:double"}


def _fact_entity(f: FactView) -> Record:
    record: Record = {
        "prov:type": _qname("vintage:Fact"),
        "prov:value": _literal(f.value),
        "vintage:id": f.id,
        "vintage:subject": f.subject,
        "vintage:predicate": f.predicate,
        "vintage:kind": f.kind,
        "vintage:status": f.status,
        "vintage:revision": _literal(f.revision),
    }
    if f.unit is not None:
        record["vintage:unit"] = f.unit
    stamps = {"validFrom": f.valid[0], "validTo": f.valid[1], "availableAt": f.knowledge[0],
              "supersededAt": f.knowledge[1], "recordedAt": f.system[0],
              "invalidatedAt": f.system[1]}
    for name, at in stamps.items():
        if at is not None:  # an open interval end has no PROV literal: it is left out
            record[f"vintage:{name}"] = _datetime(at)
    return record


def _source_entity(s: SourceView) -> Record:
    record: Record = {"prov:type": _qname("vintage:Source"), "vintage:id": s.id,
                      "vintage:kind": s.kind, "vintage:availableAt": _datetime(s.available_at)}
    for name, text in (("form", s.form), ("accession", s.accession), ("uri", s.uri)):
        if text is not None:
            record[f"vintage:{name}"] = text
    return record


def _activity_record(d: DerivationView) -> Record:
    record: Record = {"prov:type": _qname("vintage:Derivation"), "vintage:id": d.id,
                      "vintage:recipe": d.recipe, "vintage:version": d.version}
    if d.formula is not None:
        record["vintage:formula"] = d.formula
    if d.parameters:
        # Parameter names are free text, not QNames: one canonical JSON literal keeps them intact.
        record["vintage:parameters"] = json.dumps(d.parameters, sort_keys=True)
    return record


def _justification(
    groups: dict[str, dict[str, Record]], fact: str, justified: Justified, at: str,
) -> None:
    """One derivation of ``fact`` as PROV: the activity, its generation and each usage."""
    d = justified.derivation
    act_id = _activity(d.id)
    groups["activity"][act_id] = _activity_record(d)
    gen_id = f"vintage:generation/{_local(fact)}/{_local(d.id)}"
    groups["wasGeneratedBy"][gen_id] = {"prov:entity": _fact(fact), "prov:activity": act_id,
                                        "prov:time": at}
    for item in justified.inputs:
        input_id = item.step.fact.id
        use_id = f"vintage:usage/{_local(d.id)}/{_local(item.role)}"
        groups["used"][use_id] = {"prov:activity": act_id, "prov:entity": _fact(input_id),
                                  "prov:role": item.role}
        groups["wasDerivedFrom"][
            f"vintage:derivation/{_local(fact)}/{_local(input_id)}/{_local(d.id)}"] = {
            "prov:generatedEntity": _fact(fact), "prov:usedEntity": _fact(input_id),
            "prov:activity": act_id, "prov:generation": gen_id, "prov:usage": use_id}


def prov_json(explanation: Explanation) -> dict[str, Any]:
    """The tree as a PROV-JSON document (https://www.w3.org/submissions/prov-json/).

    Facts and sources are entities, derivations are activities. A derived fact is generated by
    its derivation, which used each input under its role; derivation, revision (``supersedes``)
    and primary-source support are ``wasDerivedFrom`` records told apart by ``prov:type``, the
    form the ``prov`` package reads back. Record ids are built from their endpoints, so the same
    tree always gives the same document."""
    groups: dict[str, dict[str, Record]] = {
        name: {} for name in ("entity", "activity", "used", "wasGeneratedBy",
                              "wasDerivedFrom", "wasInvalidatedBy")}
    entity, derived = groups["entity"], groups["wasDerivedFrom"]
    generated = groups["wasGeneratedBy"]

    def revision(new: str, old: str) -> None:
        # Versions known only by id (outside the tree) still need an entity to point at.
        for fid in (new, old):
            entity.setdefault(_fact(fid), {"prov:type": _qname("vintage:Fact"),
                                           "vintage:id": fid})
        derived[f"vintage:revision/{_local(new)}/{_local(old)}"] = {
            "prov:generatedEntity": _fact(new), "prov:usedEntity": _fact(old),
            "prov:type": _qname("prov:Revision")}

    for step in _walk(explanation.root):
        f = step.fact
        fact_id = _fact(f.id)
        entity[fact_id] = _fact_entity(f)
        available, superseded = f.knowledge
        if not step.derived_by:
            # Recorded facts have no Vintage activity; the generation still dates them.
            generated[f"vintage:generation/{_local(f.id)}"] = {
                "prov:entity": fact_id, "prov:time": _time(available)}
        for justified in step.derived_by:
            _justification(groups, f.id, justified, _time(available))
        for s in step.sources:
            entity[_source(s.id)] = _source_entity(s)
            derived[f"vintage:support/{_local(f.id)}/{_local(s.id)}"] = {
                "prov:generatedEntity": fact_id, "prov:usedEntity": _source(s.id),
                "prov:type": _qname("prov:PrimarySource")}
        for old in step.supersedes:
            revision(f.id, old)
        for new in step.superseded_by:
            revision(new, f.id)
        if superseded is not None:
            # No activity: what closed the interval (a restatement) is not part of the tree.
            groups["wasInvalidatedBy"][f"vintage:invalidation/{_local(f.id)}"] = {
                "prov:entity": fact_id, "prov:time": _time(superseded)}

    # ``prov`` and ``xsd`` are predefined by PROV-JSON; declaring them would not round-trip.
    document: dict[str, Any] = {"prefix": {"vintage": NAMESPACE}}
    for name, records in groups.items():
        if records:
            document[name] = {key: records[key] for key in sorted(records)}
    return document


def _plain(record: dict[str, Any]) -> dict[str, str | int | float | bool]:
    # GraphML holds only scalars: datetimes become ISO text and absent values are left out.
    out: dict[str, str | int | float | bool] = {}
    for key, value in record.items():
        if isinstance(value, datetime):
            out[key] = _time(value)
        elif isinstance(value, str | int | float | bool):
            out[key] = value
    return out


def _fact_node(f: FactView) -> dict[str, str | int | float | bool]:
    # A GraphML key has one type for every node, and fact values mix ints, floats and text:
    # the value travels as text beside its type so nothing is coerced or lost.
    value_type = {bool: "boolean", int: "integer", float: "double", str: "string"}[type(f.value)]
    text = f.value if isinstance(f.value, str) else json.dumps(f.value)
    return _plain({
        "kind": "Fact", "id": f.id, "subject": f.subject, "predicate": f.predicate,
        "value": text, "value_type": value_type, "unit": f.unit, "fact_kind": f.kind,
        "status": f.status, "revision": f.revision, "valid_from": f.valid[0],
        "valid_to": f.valid[1], "available_at": f.knowledge[0], "superseded_at": f.knowledge[1],
        "recorded_at": f.system[0], "invalidated_at": f.system[1]})


def graphml(explanation: Explanation) -> str:
    """The tree as a GraphML document: fact, source and derivation nodes (ids prefixed by kind)
    and USED, GENERATED, SUPPORTED_BY and SUPERSEDES edges, each with a ``type`` attribute."""
    g = nx.DiGraph(system_at=_time(explanation.system_at),
                   root=f"fact:{explanation.root.fact.id}")

    def stub(fid: str) -> None:
        if f"fact:{fid}" not in g:
            g.add_node(f"fact:{fid}", kind="Fact", id=fid)

    for step in _walk(explanation.root):
        f = step.fact
        node = f"fact:{f.id}"
        g.add_node(node, **_fact_node(f))
        for justified in step.derived_by:
            d = justified.derivation
            dnode = f"derivation:{d.id}"
            g.add_node(dnode, **_plain({
                "kind": "Derivation", "id": d.id, "recipe": d.recipe, "version": d.version,
                "formula": d.formula,
                "parameters": json.dumps(d.parameters, sort_keys=True) if d.parameters else None}))
            g.add_edge(dnode, node, type="GENERATED")
            for item in justified.inputs:
                target = f"fact:{item.step.fact.id}"
                # A DiGraph keeps one edge per pair: one input under several roles lists them all.
                roles = {item.role}
                if g.has_edge(dnode, target):
                    roles.update(g.edges[dnode, target]["role"].split(","))
                g.add_edge(dnode, target, type="USED", role=",".join(sorted(roles)))
        for s in step.sources:
            snode = f"source:{s.id}"
            g.add_node(snode, **_plain({
                "kind": "Source", "id": s.id, "source_kind": s.kind, "form": s.form,
                "accession": s.accession, "uri": s.uri, "available_at": s.available_at}))
            g.add_edge(node, snode, type="SUPPORTED_BY")
        for old in step.supersedes:
            stub(old)
            g.add_edge(node, f"fact:{old}", type="SUPERSEDES")
        for new in step.superseded_by:
            stub(new)
            g.add_edge(f"fact:{new}", node, type="SUPERSEDES")
    # Written in id order, so the document does not depend on the order a store returned rows.
    out = nx.DiGraph(**g.graph)
    out.add_nodes_from(sorted(g.nodes(data=True)))
    out.add_edges_from(sorted(g.edges(data=True), key=lambda e: (e[0], e[1])))
    return "\n".join(nx.generate_graphml(out))
