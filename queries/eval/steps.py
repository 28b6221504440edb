"""Each step of a scenario as the engine's own call (docs/eval.md, "Scenario files"): remember,
correct, invalidate, forget, retract, rollback, register, ingest, context and echo, each given
the store, the replay's state and the step's record to fill."""


from __future__ import annotations

import csv
import io
import json
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from vintage.graph.access.authority import check_write
from vintage.graph.access.principal import Forbidden, Principal, Role
from vintage.graph.core.errors import UserError
from vintage.graph.core.kinds import SourceKind
from vintage.graph.core.model import Scope
from vintage.graph.memory.forget import forget
from vintage.graph.memory.gate import Decision, MemoryIn, memory_key
from vintage.graph.memory.remember import Remembered, invalidate_memory
from vintage.graph.memory.requests import correct_by_id, remember_checked
from vintage.graph.memory.rollback import rollback
from vintage.graph.memory.tools import register_tool
from vintage.graph.memory.trust import trust_source
from vintage.graph.retrieval.embedder import Embedder
from vintage.graph.store.protocol import Store
from vintage.graph.writes.corrections import retract_source
from vintage.queries.eval import scenario as sc
from vintage.queries.eval.written import REQUIRED, RETENTION, Replay, Written, scope_of
from vintage.queries.memory.summaries import summarise
from vintage.queries.search.fusion import Mode
from vintage.queries.search.pack import build_pack
from vintage.queries.search.request import SearchRequest
from vintage.queries.search.trace import mark_used


def remember_step(store: Store, embedder: Embedder, done: Replay, s: sc.Remember,
              w: Written) -> None:
    scope = scope_of(done.tenant, s.principal)
    assert w.at is not None
    observed = s.observed_at or w.at
    evidence = tuple(i for name in s.evidence for i in done.by_name[name].ids[-1:])
    draft = MemoryIn(
        kind=s.kind, tenant=done.tenant, subject=s.subject, key=s.key, value=s.value,
        source_kind=s.source.kind, source_id=s.source.id or w.name,
        source_version=s.source.version, tool=s.source.tool, observed_at=observed,
        owner=s.principal.user or s.principal.actor, retention_reason=RETENTION,
        user=s.principal.user, project=s.principal.project, thread=s.principal.thread,
        ttl_seconds=s.ttl, evidence=evidence, consent=s.consent,
        valid_from=_instant(s.valid_from), valid_to=_instant(s.valid_to))
    _fill(w, scope, s.subject, s.key, s.value, observed)
    w.assertion = memory_key(scope, s.subject, s.key)
    deliveries = s.repeat + (1 if s.retry else 0)
    try:
        _may_write(s, draft)
    except Forbidden as exc:  # as the agent's key would be told at the HTTP and MCP boundary
        w.decisions.extend([Decision.REFUSED] * deliveries)
        w.reasons.extend([str(exc)] * deliveries)
        return
    for _ in range(deliveries):
        _decided(w, remember_checked(store, draft, actor=s.principal.actor))


def _may_write(s: sc.Remember, draft: MemoryIn) -> None:
    """An ``agent:`` actor writes as an agent key would: the source kinds such a key may claim
    (``vintage.graph.access.authority.check_write``), acting for the principal's user and
    project. Other actors are the user or a person, whose keys may write any kind."""
    if not s.principal.actor.startswith("agent:"):
        return
    agent = Principal(tenant=draft.tenant, role=Role.AGENT, key_id="eval",
                      name=s.principal.actor.removeprefix("agent:"))
    assert draft.source_kind is not None
    check_write(agent, draft.source_kind, tool=draft.tool or draft.source_id,
                for_user=draft.user, project=draft.project)


def _fill(w: Written, scope: Scope, subject: str, key: str, value: Any,
          observed: datetime) -> None:
    w.scope, w.subject, w.key, w.value, w.observed = scope, subject, key, value, observed
    w.text = f"{subject} {key}: {value}"


def _decided(w: Written, done: Remembered) -> None:
    w.decisions.append(done.decision)
    w.reasons.append(done.reason)
    # Only a decision that writes created the version it names: a refusal names the version it
    # left alone, a duplicate the one it repeated.
    if done.memory_id is None or done.memory_id in w.ids:
        return
    if done.decision in (Decision.ACTIVE, Decision.CANDIDATE, Decision.CONFLICT):
        w.ids.append(done.memory_id)
    elif done.decision is Decision.DUPLICATE and done.memory_id not in w.same_as:
        w.same_as.append(done.memory_id)


def _correct(store: Store, embedder: Embedder, done: Replay, s: sc.Correct,
             w: Written) -> None:
    target = done.by_name[s.target]
    assert w.at is not None and target.scope is not None
    _fill(w, target.scope, target.subject, target.key, s.value, w.at)
    w.assertion = target.assertion
    shown = (target.ids or target.same_as)[-1:]
    if not shown:
        raise UserError(f"{s.target} wrote nothing to correct")
    _decided(w, correct_by_id(store, done.tenant, shown[0], s.value,
                              source_id=s.source.id or w.name, observed_at=w.at,
                              actor=s.principal.actor, valid_from=_instant(s.valid_from),
                              valid_to=_instant(s.valid_to)))


def _instant(at: datetime | None) -> datetime | None:
    return None if at is None else sc._utc(at)


def _invalidate(store: Store, embedder: Embedder, done: Replay, s: sc.Invalidate,
                w: Written) -> None:
    target = done.by_name[s.target]
    assert target.scope is not None
    invalidate_memory(store, target.scope, target.subject, target.key,
                      actor=s.principal.actor, reason="no longer holds")


def _forget(store: Store, embedder: Embedder, done: Replay, s: sc.Forget, w: Written) -> None:
    if (s.target is None) == (s.source is None):
        raise UserError("forget names a target memory or a source, one of them")
    if s.target is not None:
        target = done.by_name[s.target]
        assert target.scope is not None
        forget(store, target.scope, subject=target.subject, key=target.key,
               actor=s.principal.actor, reason=s.reason)
        done.forgotten.append(target)
    else:
        forget(store, scope_of(done.tenant, s.principal), source_id=s.source,
               actor=s.principal.actor, reason=s.reason)
        done.forgotten.extend(x for x in done.written if x.name == s.source
                              or _source_of(x) == s.source)


def _source_of(w: Written) -> str | None:
    return w.name if w.op in ("remember", "correct") else None


def _retract(store: Store, embedder: Embedder, done: Replay, s: sc.Retract,
             w: Written) -> None:
    retract_source(store, Scope(tenant=done.tenant), s.source, actor=s.principal.actor,
                   reason=s.reason)


def _rollback(store: Store, embedder: Embedder, done: Replay, s: sc.Rollback,
              w: Written) -> None:
    rollback(store, scope_of(done.tenant, s.principal), sc._utc(s.to),
             actor=s.principal.actor, reason=s.reason)


def _register(store: Store, embedder: Embedder, done: Replay, s: sc.Register,
              w: Written) -> None:
    if s.kind is SourceKind.TOOL_RESULT:
        register_tool(store, done.tenant, s.source, version=s.version, reporters=s.reporters,
                      actor=s.principal.actor, reason="registered by the scenario")
        return
    trust_source(store, done.tenant, s.source, kind=s.kind, actor=s.principal.actor,
                 reason="registered by the scenario")


def _ingest(store: Store, embedder: Embedder, done: Replay, s: sc.Ingest, w: Written) -> None:
    if done.ingest is None:
        raise UserError("this run of the harness was given no ingest (rows need one)")
    if s.file is not None:
        if not s.file.is_file():
            raise UserError(f"no facts table {s.file.name} beside the scenario file")
        done.ingest(store, Scope(tenant=done.tenant), s.file, s.principal.actor, s.recompute)
        rows = file_rows(s.file)
    else:
        rows = list(s.rows)
        with tempfile.TemporaryDirectory(prefix="vintage-eval-") as folder:
            path = Path(folder) / f"{w.name}.csv"
            _write_table(path, rows)
            done.ingest(store, Scope(tenant=done.tenant), path, s.principal.actor, s.recompute)
    for n, row in enumerate(rows, 1):  # each row an item asks can name
        done.keep(Written(name=str(row.get("name") or f"{w.name}.row{n}"), op="ingest-row",
                          subject=str(row["subject"]), key=str(row["predicate"]),
                          value=row["value"], at=w.at, scope=Scope(tenant=done.tenant),
                          text=f"{row['subject']} {row['predicate']} {row['period_end']}: "
                               f"{row['value']} {row['unit']}"))


def _write_table(path: Path, rows: list[dict[str, Any]]) -> None:
    columns = sorted({c for row in rows for c in row} - {"name"})
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise UserError(f"ingest rows need the columns {', '.join(missing)}")
    with path.open("w", newline="", encoding="utf-8") as out:
        table = csv.DictWriter(out, fieldnames=columns)
        table.writeheader()
        for row in rows:
            table.writerow({c: row.get(c, "") for c in columns})


def file_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a facts table the ingest accepted (CSV, else JSON lines), for the record."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".csv":
        return list(csv.DictReader(io.StringIO(text)))
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _summarise(store: Store, embedder: Embedder, done: Replay, s: sc.Summarise,
               w: Written) -> None:
    made = summarise(store, scope_of(done.tenant, s.principal), s.subject,
                     actor=s.principal.actor)
    w.ids.append(made.fact.id)
    w.subject, w.key, w.value = made.fact.subject, made.fact.predicate, made.fact.value
    w.text = f"{made.fact.subject} {made.fact.predicate}: {made.fact.value}"

def _context(store: Store, embedder: Embedder, done: Replay, s: sc.Context,
             w: Written) -> None:
    request = SearchRequest(query=s.query, scope=scope_of(done.tenant, s.principal),
                            mode=Mode.HYBRID, actor=s.principal.actor)
    done.packs[w.name] = build_pack(store, embedder, request, budget=s.budget,
                                    for_thread=s.principal.thread or "eval",
                                    actor=s.principal.actor)


def _echo(store: Store, embedder: Embedder, done: Replay, s: sc.Echo, w: Written) -> None:
    pack = done.packs.get(s.of)
    if pack is None:
        raise UserError(f"{s.of} built no context to echo")
    text = pack.text[:4000]
    echo = sc.Remember(op="remember", subject=s.subject, key=s.key, value=text, kind=s.kind,
                       source=sc.SourceRef(kind=SourceKind.AGENT_OUTPUT, id=w.name),
                       **{"as": s.principal})
    remember_step(store, embedder, done, echo, w)


def _used(store: Store, embedder: Embedder, done: Replay, s: sc.Used, w: Written) -> None:
    pack = done.packs.get(s.of)
    if pack is None:
        raise UserError(f"{s.of} built no context to mark used")
    ids = [i for name in s.items for i in (done.by_name[name].ids or done.by_name[name].same_as)]
    mark_used(store, done.tenant, pack.injection_id, ids, actor=s.principal.actor)


RUN: dict[type, Callable[..., None]] = {
    sc.Remember: remember_step, sc.Correct: _correct, sc.Invalidate: _invalidate,
    sc.Forget: _forget, sc.Retract: _retract, sc.Rollback: _rollback,
    sc.Register: _register, sc.Ingest: _ingest, sc.Context: _context, sc.Echo: _echo,
    sc.Used: _used, sc.Summarise: _summarise,
}
