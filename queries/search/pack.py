"""Context packs: what an agent is handed for a query, cut to a token budget, and the injection
event that records it with its trace (docs/retrieval.md, "Context packs and the injection trace").

``build_pack`` runs ``vintage.queries.search.run`` (legal set first, ranking inside it, conflict
sides together) with a generous limit, reads the pinned constraints of the scope, lays the pack out
(``vintage.queries.search.fit``: a stable prefix of constraints, then the evidence best-ranked
first) and cuts it to the budget, counted with ``vintage.graph.retrieval.counting``. It then records
one
``inject`` event: the injected version ids (``memories``, so that an agent's echo of them is
recognised,
``vintage.graph.memory.remember``), those the budget cut (``left_out``) and the trace
(``vintage.queries.search.trace``). A budget too small for the header is refused before anything is
read or recorded.

**Pinned constraints** are the scope's visible preference memories whose key starts with
``constraint.`` (``constraint.currency``, ``constraint.no-weekend-deploys``): rules that hold for
every query, handed over first, in a stable order (subject, key, id) so the prefix stays the same
from one context to the next. A tenant-wide read (``all_scopes``) pins none: its constraints
would be every user's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from vintage.graph.core.asof import AsOf
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.exclusion import AUTHORITY
from vintage.graph.core.kinds import FactKind, Status
from vintage.graph.core.model import new_event_id
from vintage.graph.core.temporal import as_of
from vintage.graph.memory.ranking import record_injection
from vintage.graph.retrieval.counting import token_counter
from vintage.graph.retrieval.embedder import Embedder
from vintage.graph.store.protocol import Store
from vintage.queries.lineage.asof import as_known
from vintage.queries.lineage.staleness import Stale
from vintage.queries.search import notices
from vintage.queries.search.abstain import Verdict
from vintage.queries.search.fit import Fitted, Header, Layout, Position, empty_fits, fit
from vintage.queries.search.items import Format, Item
from vintage.queries.search.request import (
    MAX_LIMIT,
    Found,
    SearchRequest,
    SearchResult,
    authority_refusal,
    authority_words,
    legal_spec,
)
from vintage.queries.search.run import search
from vintage.queries.search.trace import spec_document

# No item's line costs fewer tokens than this (its id alone costs about 20), so a budget never
# holds more than budget // ITEM_TOKENS items: the search limit a pack asks for, at least.
ITEM_TOKENS = 40
CONSTRAINT = "constraint."


@dataclass(frozen=True)
class Pack:
    injection_id: str  # the event recording it (``vintage trace``)
    thread: str
    format: Format
    text: str  # exactly what the agent is handed
    tokens: int  # of ``text``, counted with ``tokenizer``
    budget: int
    tokenizer: str
    items: tuple[Item, ...]  # injected, in the order shown: pinned constraints first
    pinned: int  # how many of ``items`` are pinned constraints
    cut: tuple[str, ...]  # considered, left out by the budget
    trimmed: tuple[str, ...]  # values cut to the common cap
    positions: tuple[Position, ...]
    considered: tuple[str, ...] = ()  # the legal candidates ranked, best first (the trace's)
    header_tokens: int = 0  # of ``tokens``: all but the items' lines (header, section titles)
    item_tokens: dict[str, int] = field(default_factory=dict)  # each item's line, by id
    # What the cascade closed that the read would have matched (in the trace, never evidence).
    closed: tuple[Stale, ...] = ()
    refusal: str | None = None  # a required authority nothing held (``SearchResult.refusal``)
    # The search found nothing relevant (``search.abstain``): no evidence, and the text says so.
    nothing_relevant: bool = False
    relevance: dict[str, Any] = field(default_factory=dict)  # the verdict, as the trace keeps it


def build_pack(store: Store, embedder: Embedder, request: SearchRequest, *, budget: int,
               for_thread: str, actor: str, format: Format = Format.MARKDOWN,
               tokenizer: str | None = None) -> Pack:
    """The context for ``for_thread`` answering ``request``, at most ``budget`` tokens counted
    with ``tokenizer`` (``vintage.graph.retrieval.counting.token_counter``; None: the default)."""
    if not for_thread.strip():
        raise InvalidArgument("a context is built for a thread: give --for-thread")
    counter = token_counter(tokenizer)  # an unknown name is refused here, before any read
    now = store.now()
    cutoff = request.cutoff or now
    # The instants are fixed here, so that the search, the constraints and the trace all
    # read at the same ones.
    asked = replace(request, cutoff=cutoff, system_at=request.system_at or now,
                    limit=min(MAX_LIMIT, max(request.limit, budget // ITEM_TOKENS)),
                    actor=request.actor or actor)
    injection = new_event_id()
    required = None if request.min_authority is None else authority_words(request.min_authority)
    header = Header(injection, for_thread, budget, counter.name, cutoff, required)
    # The longest "nothing relevant" line must fit too: refused before anything is read.
    empty_fits(Layout(replace(header, nothing_relevant=LONGEST), format, (), ()), budget,
               counter)
    result = search(store, embedder, asked)
    spec = legal_spec(store, asked)
    pinned = constraints(store, asked)
    chosen = {i.id for i in pinned}
    evidence = tuple(item_of(f) for f in result.considered
                     if f.id not in chosen and not result.nothing_relevant)
    # Where nothing held the authority the read required, the evidence says that instead: it
    # is why nothing is there (``Header.required``).
    if result.verdict is not None and not result.verdict.relevant and result.refusal is None:
        said = abstained(result.verdict)
        header = replace(header, nothing_relevant=said) if result.verdict.matched else \
            replace(header, unjudged=said)
    fitted = fit(Layout(header, format, pinned, evidence), budget, counter)
    shown = {i.id: i for i in pinned + evidence}
    items = tuple(shown[i] for i in fitted.rendered.shown)
    subjects = sorted({i.subject for i in items})
    text, closed_said = notices.said(fitted.rendered.text, format, notices.unanswered(
        result.closed, {(i.subject, i.predicate) for i in items}), counter, budget)
    tokens = counter.count(text) if closed_said else fitted.tokens
    document = trace(spec, asked, result, pinned, fitted, format, counter.name, budget)
    document |= {"closed_said": list(closed_said), "tokens": tokens,
                 "header_tokens": fitted.header_tokens + tokens - fitted.tokens}
    record_injection(store, request.scope.tenant, thread=for_thread, subject=None,
                     memory_ids=[i.id for i in items], left_out=fitted.cut, actor=actor,
                     event_id=injection,
                     more={"subjects": json.dumps(subjects), "tokens": tokens,
                           "budget": budget, "trace": json.dumps(document, sort_keys=True)})
    return Pack(injection, for_thread, format, text, tokens, budget,
                counter.name, items, sum(1 for i in items if i.id in chosen), fitted.cut,
                fitted.rendered.trimmed, fitted.positions,
                # Every legal candidate ranked, relevant or not: what the search considered.
                tuple(i.id for i in pinned) + tuple(f.id for f in result.considered
                                                    if f.id not in chosen),
                fitted.header_tokens + tokens - fitted.tokens, dict(fitted.item_tokens),
                result.closed,
                authority_refusal(request.min_authority, any(i.id not in chosen for i in items),
                                  result.excluded.get(AUTHORITY, 0)),
                result.nothing_relevant, document["relevance"])


def abstained(verdict: Verdict) -> str:
    """The pack's line when nothing relevant was found: numbers and names, never the query."""
    if not verdict.matched:  # said for what it is: no term in common, not "nothing relevant"
        return f"no legal item shares a term with the query ({verdict.mode.value} mode)"
    if verdict.best is None:
        return "nothing relevant is known: no legal item matched the query"
    if verdict.floor is None:
        return "nothing relevant is known: no item carries an identifier the query names"
    return (f"nothing relevant is known: the best relevance {verdict.best:.3f} is under the "
            f"{verdict.mode.value} floor {verdict.floor if verdict.floor is not None else '-'}")


LONGEST = ("nothing relevant is known: the best relevance 0.000 is under the semantic floor "
           "0.000000000000001")


def item_of(found: Found) -> Item:
    return Item(id=found.id, subject=found.subject, predicate=found.predicate,
                value=found.value, unit=found.unit, status=found.status, valid=found.valid,
                known_from=found.knowledge[0], sources=found.sources,
                conflicts_with=found.conflicts_with, rank=found.rank, score=found.score,
                signals=dict(found.signals), stale=found.stale,
                sources_via_inputs=found.sources_via_inputs)


def constraints(store: Store, request: SearchRequest) -> tuple[Item, ...]:
    """The pinned constraints of the request's scope, as of its instants (no hindsight)."""
    if request.all_scopes or not request.scope.keys:  # shared facts only: no memory pinned
        return ()
    assert request.cutoff is not None and request.system_at is not None
    spec = AsOf(request.scope, known_at=request.cutoff,
                valid=as_of(request.valid_at or request.cutoff),
                system_at=request.system_at, kinds=(FactKind.PREFERENCE,),
                statuses=frozenset({Status.ACTIVE, Status.CONFLICTED}),
                min_authority=request.min_authority)
    rows = [(as_known(f, request.cutoff, request.system_at), cited)
            for f, cited in store.read_cited(spec) if f.predicate.startswith(CONSTRAINT)]
    rows.sort(key=lambda row: (row[0].subject, row[0].predicate, row[0].id))
    # A conflict set's sides share their subject and key (vintage.graph.memory.conflicts).
    conflicted = [f for f, _ in rows if f.status is Status.CONFLICTED]
    sides = {f.id: tuple(g.id for g in conflicted if g.id != f.id and (g.subject, g.predicate)
                         == (f.subject, f.predicate)) for f in conflicted}
    return tuple(Item.of_fact(f, cited, sides.get(f.id, ())) for f, cited in rows)


def trace(spec: AsOf, request: SearchRequest, result: SearchResult,
          pinned: tuple[Item, ...], fitted: Fitted, fmt: Format, tokenizer: str,
          budget: int) -> dict[str, Any]:
    """The injection trace (``trace``): ids, reasons and numbers, never text."""
    final = fitted.rendered.shown
    carried = {i.id: bool(i.sources) for i in pinned}
    carried |= {f.id: bool(f.sources) for f in result.considered}
    return {
        "format": fmt.value, "mode": str(result.mode), "all_scopes": request.all_scopes,
        "relevance": result.verdict.document() if result.verdict is not None else {},
        "read": spec_document(spec), "form": request.form, "period": request.period,
        "matched": result.matched, "legal": result.legal, "excluded": dict(result.excluded),
        "considered": [{"id": f.id, "rank": f.rank, "score": _short(f.score),
                        "signals": {k: _short(v) for k, v in f.signals.items()}}
                       for f in result.considered],
        "pinned": [i.id for i in pinned], "final": list(final),
        "tokens": fitted.tokens, "tokenizer": tokenizer, "budget": budget,
        "header_tokens": fitted.header_tokens, "item_tokens": dict(fitted.item_tokens),
        "cut": list(fitted.cut), "cap": fitted.cap,
        "trimmed": [{"id": i, "tokens": n} for i, n in fitted.value_tokens.items()],
        "sources": {"with": [i for i in final if carried.get(i)],
                    "without": [i for i in final if not carried.get(i)]},
        "positions": [{"id": p.id, "line": p.line, "token": p.token}
                      for p in fitted.positions],
        "stale": {f.id: f.stale.document() for f in result.considered if f.stale is not None},
        "closed": [c.document() for c in result.closed],
    }


def _short(x: float) -> float:
    return float(f"{x:.6g}")  # six significant digits tell the signals apart; the trace is kept
