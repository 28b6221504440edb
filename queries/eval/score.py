"""The checks of the four layers (docs/eval.md, "Layers and checks"): each a named pass or fail
with the scenario and ask it belongs to, and a short reason (ids and counts, never stored text).

* **write**: the step replayed; its decision is the expected one; what it stored is what it was
  given (value, subject, key, scope, knowledge and system time); repeated deliveries are
  absorbed; a refused write left nothing; a memory the scenario expects to be kept (or not)
  answers for its key at the end (or does not).
* **retrieval**: the items an ask needs are among the legal candidates; the items it must never
  see are not.
* **context**: within the budget (and the ask's bound); every item carries a source pointer;
  both sides of a conflict together; "nothing relevant" said when nothing is known; a stale
  premise flagged (and nothing flagged when nothing is stale); the tokens reported (total,
  header, each item).
* **task**: the answer's outcome; nothing the ask excludes handed over (governance: another
  scope's, expired, retracted, erased or poisoned items); no erased or injected text in it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from vintage.graph.memory.gate import Decision, same_value
from vintage.graph.memory.remember import current_version
from vintage.graph.store.protocol import Store
from vintage.queries.eval import scenario as sc
from vintage.queries.eval.answer import GOOD, Answer, Outcome, outcome
from vintage.queries.eval.rungs import Handed, Shown
from vintage.queries.eval.written import Replay, Written

LAYERS = ("write", "retrieval", "context", "task")


@dataclass(frozen=True)
class Check:
    layer: str
    name: str
    passed: bool
    scenario: str
    ask: str | None = None
    detail: str = ""


def write_checks(store: Store, s: sc.Scenario, replay: Replay) -> list[Check]:
    out: list[Check] = []
    steps = {step.name: step for step in s.steps if step.name}
    for w in replay.written:
        step = steps.get(w.name)
        if w.op == "ingest-row":
            continue  # a row of an ingest step: the step itself is checked
        def check(name: str, passed: bool, detail: str = "", w: Written = w) -> None:
            out.append(Check("write", name, passed, s.id, None, f"{w.name}: {detail}"))

        check("replayed", w.error is None, w.error or "ok")
        if w.error is not None or w.op not in ("remember", "correct", "echo"):
            continue
        expect = getattr(step, "expect", None)
        if expect is not None and expect.decision is not None:
            got = w.decisions[0] if w.decisions else None
            check("decision", got is expect.decision,
                  f"expected {expect.decision.value}, got {got.value if got else 'none'}")
        if len(w.decisions) > 1:
            later = w.decisions[1:]
            check("duplicates absorbed",
                  len(w.ids) <= 1 and all(d in (Decision.DUPLICATE, w.decisions[0])
                                           for d in later),
                  f"{len(w.decisions)} deliveries made {len(w.ids)} versions")
        if w.ids:
            out.extend(_faithful(store, s, replay, w))
        elif w.decisions and all(d is Decision.REFUSED for d in w.decisions):
            check("refused leaves nothing", not _recorded_at(store, replay, w),
                  "a refused write stored a version" if _recorded_at(store, replay, w)
                  else "nothing stored")
        if expect is not None and expect.kept is not None and w.assertion is not None:
            held, _ = current_version(store, replay.tenant, w.assertion)
            # A delivery absorbed as a duplicate names the memory it repeated (``same_as``):
            # of two concurrent deliveries of one message only one writes, and both are kept.
            kept = held is not None and (held.id in w.ids or held.id in w.same_as)
            check("kept" if expect.kept else "not kept", kept is expect.kept,
                  f"answers for its key: {kept}")
    return out


def _faithful(store: Store, s: sc.Scenario, replay: Replay, w: Written) -> list[Check]:
    assert w.scope is not None
    f = w.stored.get(w.ids[0])
    if f is None:
        return [Check("write", "faithful", False, s.id, None, f"{w.name}: version not found")]
    wrong = [name for name, ok in (
        ("value", w.op == "echo" or same_value(f.value, w.value)),
        ("subject", f.subject == w.subject), ("key", f.predicate == w.key),
        ("scope", set(f.scope) == set(w.scope.terms())),
        ("knowledge time", f.available_at == w.observed),
        ("system time", f.recorded_at == w.at)) if not ok]
    return [Check("write", "faithful", not wrong, s.id, None,
                  f"{w.name}: " + (", ".join(wrong) + " changed" if wrong else "as given"))]


def _recorded_at(store: Store, replay: Replay, w: Written) -> bool:
    if w.assertion is None:
        return False
    return any(f.recorded_at == w.at for f in store.history(replay.tenant, w.assertion))


def ids_of(replay: Replay, name: str) -> set[str]:
    w = replay.by_name[name]
    return set(w.ids) | set(w.same_as) | {name}


def _named(items: Iterable[Shown], replay: Replay, name: str) -> bool:
    """An item handed over is the named step's: one of its versions, or (an ingested row)
    the same subject, key and value."""
    w = replay.by_name[name]
    ids = ids_of(replay, name)
    for i in items:
        if i.id in ids or (w.op == "ingest-row" and (i.subject, i.key) == (w.subject, w.key)
                           and str(i.value) == str(w.value)):
            return True
    return False


def ask_checks(s: sc.Scenario, a: sc.Ask, handed: Handed, given: Answer, replay: Replay,
               retrieves: bool) -> tuple[list[Check], Outcome]:
    out: list[Check] = []

    def check(layer: str, name: str, passed: bool, detail: str = "") -> None:
        out.append(Check(layer, name, passed, s.id, a.id, detail))

    want = a.expect
    candidates = [Shown(id=i, subject="", key="", value=None, status="", sources=0)
                  for i in handed.considered]
    if retrieves:
        for name in want.include:
            found = _named(candidates, replay, name) or _named(handed.items, replay, name)
            check("retrieval", "target among the legal candidates", found, name)
        for name in want.exclude:
            check("retrieval", "excluded item never a candidate",
                  not _named(candidates, replay, name), name)
        bound = min(handed.budget, want.max_tokens or handed.budget)
        check("context", "within budget", handed.tokens <= bound,
              f"{handed.tokens} of {bound} tokens")
        bare = [i.id for i in handed.items if i.sources == 0]
        check("context", "every item has a source", not bare, f"{len(bare)} without")
        shown = {i.id for i in handed.items}
        split = [i.id for i in handed.items if not set(i.conflicts_with) <= shown]
        check("context", "conflict sides together", not split, f"{len(split)} split")
        if want.refusal:
            check("context", "says nothing relevant", handed.nothing_relevant,
                  f"{len(handed.items)} items handed over as evidence")
        if want.stale is not None:
            premise = ids_of(replay, want.stale)
            marked = any(set(i.stale) & premise for i in handed.items)
            closed = any(set(named) & premise for _, named in handed.closed)
            flagged = {"closed": closed, "marked": marked}.get(want.treatment or "",
                                                               marked or closed)
            check("context", "stale premise flagged", flagged,
                  f"{want.stale} ({want.treatment or 'closed or marked'})")
        if want.not_stale:
            flagged_any = [i.id for i in handed.items if i.stale] + [c for c, _ in handed.closed]
            check("context", "nothing falsely stale", not flagged_any,
                  f"{len(flagged_any)} flagged")
        check("context", "tokens reported",
              handed.header_tokens is not None and handed.item_tokens is not None,
              "total only" if handed.header_tokens is None else "total, header, items")
    result = outcome(given, a)
    if result is not Outcome.UNSCORED:
        check("task", "answer", result in GOOD, result.value)
    for name in want.exclude:
        check("task", "governance: excluded item not handed over",
              not _named(handed.items, replay, name), name)
    folded = handed.text.casefold()
    leaked = [t for t in want.absent_text if t.casefold() in folded]
    if want.absent_text:
        check("task", "no erased or injected text handed over", not leaked,
              f"{len(leaked)} of {len(want.absent_text)} found")
    return out, result
