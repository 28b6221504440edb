"""Facts and lineage over ``vintage --server`` (``vintage.client.commands``): ``asof``, ``facts``,
``history``, ``explain`` (JSON, ``--prov`` PROV-JSON, ``--graphml``) and ``impact``, each one
request (or one paginated read) whose answer is read back into the objects the local renderers
print, so that the output is the local command's.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import typer

from vintage.cli.facts import no_history
from vintage.cli.lineage import explain_csv
from vintage.cli.options import as_csv_unless_json
from vintage.client.http import Remote, instant, segment
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.kinds import FactKind, SourceKind, Status
from vintage.graph.core.model import Fact, Source
from vintage.graph.core.temporal import parse_instant
from vintage.queries.lineage.asof import Answer
from vintage.queries.lineage.explain import Explanation
from vintage.queries.lineage.impact import Impact
from vintage.queries.metrics.answers import MetricAnswer
from vintage.render import facts as render
from vintage.render import listings
from vintage.render.explain import explanation
from vintage.render.rows import print_csv, print_table_csv
from vintage.render.terminal import console, print_json, visible

_out = console()


def shown_fact(**fields: Any) -> Fact:
    """A stored fact read back from the API holding only what the renderers print (its key,
    scope and hashes stay on the server): unvalidated, never written anywhere."""
    return Fact.model_construct(**fields)


def answer_of(item: dict[str, Any]) -> Answer:
    """A fact of the API with its sources, as
    ``vintage.queries.lineage.asof`` answers it locally."""
    def at(text: str | None) -> Any:
        return parse_instant(text, "instant") if text else None
    fact = shown_fact(
        id=item["id"], subject=item["subject"], predicate=item["predicate"],
        value=item["value"], unit=item["unit"], revision=item["revision"],
        kind=FactKind(item["kind"]), status=Status(item["status"]),
        valid_from=at(item["valid"][0]), valid_to=at(item["valid"][1]),
        available_at=at(item["knowledge"][0]), superseded_at=at(item["knowledge"][1]),
        recorded_at=at(item["system"][0]), invalidated_at=at(item["system"][1]))
    sources = tuple(Source.model_construct(**{
        "id": s["id"], "kind": SourceKind(s["kind"]), "form": s["form"],
        "accession": s["accession"], "uri": s["uri"], "available_at": at(s["available_at"])})
        for s in item["sources"])
    return Answer(fact=fact, sources=sources)


def show(answers: list[Answer], p: dict[str, Any], title: str) -> None:
    """As ``vintage.cli.facts.show`` prints them."""
    as_json = p["as_json"]
    if as_csv_unless_json(p["fmt"], as_json):
        print_csv(answers)
    elif as_json:
        print_json(_out, json.dumps([render.answer_json(a) for a in answers]))
    else:
        _out.print(render.answers_table(title, answers))


def asof(remote: Remote, p: dict[str, Any]) -> None:
    if p["metrics"] is not None:
        raise InvalidArgument("--metrics is not available over --server: the server answers "
                              "its built-in metrics and concepts")
    answers = [MetricAnswer.model_validate(remote.call(
        "GET", f"/v1/metrics/{segment(p['metric'])}", query={
            "subject": p["subject"], "cutoff": instant(cutoff, "cutoff"),
            "period": p["period"], "hindsight": p["hindsight"] or None}))
        for cutoff in p["cutoff"]]
    render.metric_answers(_out, answers, p["as_json"],
                          as_csv_unless_json(p["fmt"], p["as_json"]))


def facts(remote: Remote, p: dict[str, Any]) -> None:
    query = {"predicate": p["predicate"], "subject": p["subject"],
             "cutoff": instant(p["cutoff"], "cutoff"),
             "valid_at": instant(p["valid_at"], "valid_at"),
             "system_at": instant(p["system_at"], "system_at"),
             "hindsight": p["hindsight"] or None}
    found = [answer_of(item) for item in remote.pages("/v1/facts", query)]
    show(found, p, f"{p['predicate']} as of {p['cutoff'] or 'now'}")


def history(remote: Remote, p: dict[str, Any]) -> None:
    start, sep, end = p["period"].partition("..")
    if not sep:
        raise typer.BadParameter("use START..END", param_hint="--period")
    answer = remote.call("GET", "/v1/facts/history", query={
        "subject": p["subject"], "predicate": p["predicate"],
        "valid_from": instant(start, "period start"), "valid_to": instant(end, "period end"),
        "unit": p["unit"]})
    if not answer["items"]:
        raise no_history(p["subject"], p["predicate"], p["period"], p["unit"])
    show([answer_of(item) for item in answer["items"]], p,
         f"history of {p['subject']} {p['predicate']}")


def _keys_scope(p: dict[str, Any], command: str) -> None:
    """Over the server a fact is read as the key reaches it: a scope named on the command line
    is refused, not dropped."""
    named = [f"--{o.replace('_', '-')}" for o in ("user", "project", "thread", "all_scopes")
             if p.get(o)]
    if named:
        raise InvalidArgument(f"{', '.join(named)}: over --server, {command} reads what the "
                              "key's scope reaches; give none")


def explain(remote: Remote, p: dict[str, Any]) -> None:
    _keys_scope(p, "explain")
    path = f"/v1/facts/{segment(p['fact_id'])}/explanation"
    query = {"system_at": instant(p["system_at"], "system_at")}
    to_csv = explain_csv(p["fmt"], p["as_json"], p["prov"], p["as_graphml"])
    if to_csv:
        print_table_csv(*listings.versions(Explanation.model_validate(
            remote.call("GET", path, query=query))))
    elif p["prov"]:
        print_json(_out, json.dumps(remote.call("GET", path, query=query | {
            "format": "prov-json"})))
    elif p["as_graphml"]:
        # As locally: XML 1.0 cannot hold control characters; shown, never obeyed.
        text = remote.text(path, query | {"format": "graphml"})
        sys.stdout.write(visible(text, lines=True) + "\n")
    else:
        result = Explanation.model_validate(remote.call("GET", path, query=query))
        if p["as_json"]:
            print_json(_out, result.model_dump_json())
        else:
            explanation(_out, result)


def impact(remote: Remote, p: dict[str, Any]) -> None:
    _keys_scope(p, "impact")
    source, fact = p["source"], p["fact"]
    if (source is None) == (fact is None):
        raise InvalidArgument("impact needs exactly one of a source id or a fact id")
    path = (f"/v1/sources/{segment(source)}/impact" if source is not None
            else f"/v1/facts/{segment(fact)}/impact")
    result = Impact.model_validate(remote.call("GET", path))
    render.impact_out(_out, result, p["as_json"], as_csv_unless_json(p["fmt"], p["as_json"]))


FACT_COMMANDS: dict[str, Callable[[Remote, dict[str, Any]], None]] = {
    "asof": asof, "facts": facts, "history": history, "explain": explain, "impact": impact}
