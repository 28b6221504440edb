"""Memory verbs and context traces over ``vintage --server`` (``vintage.client.commands``):
``audit``,
``trace``, ``used``, ``correct``, ``review``, ``resolve``, ``rollback``, ``invalidate``,
``demote``, ``outcome``, ``promote`` and ``summarise``, each one request whose answer is printed
as the local command prints its result. A gate's refusal or conflict (a 422 or 409 carrying the
decision) is the decision, printed as locally, exit 3.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import typer

from vintage.cli.memory import decided
from vintage.cli.options import as_csv_unless_json, typed_value
from vintage.client.facts import shown_fact
from vintage.client.http import Remote, ServerRefused, instant, scoped, segment
from vintage.graph.core.model import Event
from vintage.graph.core.temporal import parse_instant
from vintage.graph.memory.conflicts import ConflictSet
from vintage.graph.memory.gate import Decision
from vintage.graph.memory.held import Held
from vintage.graph.memory.remember import Remembered
from vintage.queries.search.trace import Injection, Judged, Verdict
from vintage.render import context as render_context
from vintage.render import memory as render_memory
from vintage.render.terminal import console, print_json, safe

_out = console()


def decide(remote: Remote, path: str, body: dict[str, Any], as_json: bool, *,
           key: str = "", extra: tuple[str, ...] = ()) -> None:
    """A gated write: the decision the server answered, printed (and exited) as locally."""
    try:
        answer = remote.call("POST", path, body=body)
    except ServerRefused as exc:
        answer = getattr(exc, "problem", {})
        if answer.get("decision") not in (Decision.REFUSED, Decision.CONFLICT):
            raise
        answer = answer | {"reason": answer.get("detail", "")}
    decided(Remembered(decision=Decision(answer["decision"]), reason=answer["reason"],
                       key=key, memory_id=answer.get("memory_id"),
                       revision=answer.get("revision"), event_id=answer["event"]),
            as_json, **{name: answer[name] for name in extra if answer.get(name) is not None})


def named(p: dict[str, Any]) -> dict[str, Any]:
    return scoped(p) | {"subject": p["subject"], "key": p["key"]}


def audit(remote: Remote, p: dict[str, Any]) -> None:
    query = {"subject": p["subject"], "key": p["key"], "since": instant(p["since"], "since"),
             "until": instant(p["until"], "until")}
    events = [Event.model_validate(e) for e in remote.pages("/v1/audit", query)]
    render_memory.audit(_out, events, p["as_json"], as_csv_unless_json(p["fmt"], p["as_json"]))


def trace(remote: Remote, p: dict[str, Any]) -> None:
    answer = remote.call("GET", f"/v1/injections/{segment(p['injection'])}/trace",
                         query={"item": p["item"]})
    # The tenant is the key's; the renderer does not print it.
    found = Injection(id=answer["injection"], tenant="", thread=answer["thread"],
                      at=parse_instant(answer["at"], "at"), actor=answer["actor"],
                      trace=answer["trace"], used=tuple(answer["used"]))
    judged = [Judged(item=j["id"], verdict=Verdict(j["verdict"]), reason=j["reason"])
              for j in answer["items"]]
    render_context.trace(_out, found, judged, p["as_json"],
                         as_csv_unless_json(p["fmt"], p["as_json"]))


def used(remote: Remote, p: dict[str, Any]) -> None:
    answer = remote.call("POST", f"/v1/injections/{segment(p['injection'])}/used",
                         body={"items": p["items"]})
    render_context.used(_out, answer["injection"], answer["items"], answer["event"],
                        p["as_json"])


def correct(remote: Remote, p: dict[str, Any]) -> None:
    decide(remote, f"/v1/memories/{segment(p['memory'])}/correction", {
        "value": typed_value(p["value"], p["typed"]), "source_id": p["source_id"],
        "observed_at": instant(p["observed_at"], "observed_at"),
        "valid_from": instant(p["valid_from"], "valid_from"),
        "valid_to": instant(p["valid_to"], "valid_to"),
        "consent": p["consent"] or None}, p["as_json"])


def outcome(remote: Remote, p: dict[str, Any]) -> None:
    decide(remote, "/v1/memories/outcomes", named(p) | {
        "task": p["task"], "failed": p["failed"] or None, "at": instant(p["at"], "at"),
        "reporter": p["reporter"]}, p["as_json"], key=p["key"],
        extra=("validated_tasks", "failed_tasks"))


def promote(remote: Remote, p: dict[str, Any]) -> None:
    if p["by_user"] and not p["source_id"]:
        raise typer.BadParameter("--by-user needs --source-id (the user's message)",
                                 param_hint="--source-id")
    decide(remote, "/v1/memories/promotion", named(p) | {
        "by_user": p["by_user"] or None, "source_id": p["source_id"], "needed": p["needed"],
        "min_success_rate": p["min_success_rate"]}, p["as_json"], key=p["key"])


def demote(remote: Remote, p: dict[str, Any]) -> None:
    done = remote.call("POST", "/v1/memories/demotion", body=named(p) | {
        "reason": p["reason"], "weight": p["weight"]})
    _out.print(f"{safe(p['subject'])} {safe(p['key'])} ({safe(done['memory_id'])}): weight "
               f"{done['previous']:g} -> {done['weight']:g} (event {safe(done['event'])})")


def review(remote: Remote, p: dict[str, Any]) -> None:
    answer = remote.call("GET", "/v1/conflicts", query=scoped(p) | {
        "all_scopes": p["all_scopes"] or None})
    sets = [ConflictSet(subject=c["subject"], key=c["key"], scope=tuple(c["scope"]),
                        sides=tuple(shown_fact(
                            id=s["id"], value=s["value"],
                            available_at=parse_instant(s["known_from"], "known_from"))
                            for s in c["sides"])) for c in answer["sets"]]
    held = [Held(memory_id=h["id"], subject=h["subject"], key=h["key"], scope=tuple(h["scope"]),
                 why=h["why"]) for h in answer.get("held", [])]
    render_memory.conflicts(_out, sets, p["as_json"], held,
                            as_csv_unless_json(p["fmt"], p["as_json"]))


def resolve(remote: Remote, p: dict[str, Any]) -> None:
    remote.call("POST", "/v1/conflicts/resolution", body=named(p) | {
        "keep": p["keep"], "source_id": p["source_id"], "owner": p["owner"],
        "reason": p["reason"], "observed_at": instant(p["observed_at"], "observed_at")})
    _out.print(f"resolved {safe(p['subject'])} {safe(p['key'])}: kept {safe(repr(p['keep']))}")


def rollback(remote: Remote, p: dict[str, Any]) -> None:
    done = remote.call("POST", "/v1/rollback", body=scoped(p) | {
        "to": instant(p["to"], "to"), "reason": p["reason"]})
    if p["as_json"]:
        print_json(_out, json.dumps(done))
    else:
        _out.print(f"restored {done['restored']}, retired {done['retired']} "
                   f"(event {safe(done['event'])})")


def invalidate(remote: Remote, p: dict[str, Any]) -> None:
    report = remote.call("POST", "/v1/memories/invalidation", body=named(p) | {
        "reason": p["reason"]})
    _out.print(f"invalidated {safe(p['subject'])} {safe(p['key'])}; "
               f"{len(report['cascade'])} derived facts closed")


def summarise(remote: Remote, p: dict[str, Any]) -> None:
    done = remote.call("POST", "/v1/summaries", body=scoped(p) | {
        "subject": p["subject"], "keys": p["key"]})
    if p["as_json"]:
        print_json(_out, json.dumps({"fact": done["fact"], "derivation": done["derivation"],
                                     "value": done["value"]}))
    else:
        _out.print(f"{safe(done['fact'])}\n{safe(done['value'], lines=True)}")


MEMORY_COMMANDS: dict[str, Callable[[Remote, dict[str, Any]], None]] = {
    "audit": audit, "trace": trace, "used": used, "correct": correct, "outcome": outcome,
    "promote": promote, "demote": demote, "review": review, "resolve": resolve,
    "rollback": rollback, "invalidate": invalidate, "summarise": summarise}
