"""Request and response models of search, context packs and the injection trace, and the two
conversions every interface shares (``search_request``, ``search_out``): the HTTP routes
(``vintage.http.routes_retrieval``) and the MCP tools (``vintage.mcp``) both build their requests
here, so that a key reads the same legal set through either.

A request never names its tenant, and names its scope (``user``, ``project``, ``thread``) only
within the key's binding (``vintage.http.guard.read_scope``): a key bound to user 42 searches user
42's memories whatever it asks; naming none, an unbound key searches the tenant's shared facts
(filings, tables), never a memory; ``all_scopes`` (every memory of the tenant) needs an admin
key and is audited. A search's answer has the shape of ``vintage search --json``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from vintage.graph.access import Principal
from vintage.graph.core.kinds import FactKind, Risk, required_authority
from vintage.graph.core.model import Value
from vintage.graph.memory.gate import FACT_KIND, MemoryKind
from vintage.http import guard
from vintage.http.models import SOURCE_EXAMPLE, Instant, JsonBool, JsonInt, Out, StaleOut
from vintage.http.models_memory import AuthorityName, In, Name, Scoped
from vintage.queries.lineage.views import SourceView
from vintage.queries.search.fusion import Mode
from vintage.queries.search.items import Format
from vintage.queries.search.pack import Pack
from vintage.queries.search.request import MAX_LIMIT, MAX_QUERY_CHARS, SearchRequest, SearchResult
from vintage.render.search import result_json

Query = Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS,
                             examples=["shipping preference"],
                             description="Words, an exact code (E4031), a key or a concept.")]
# A fact's kind, or a memory's (``fact`` is a memory's name for an observation).
KindName = Literal["observation", "derived", "preference", "experience", "task_state",
                   "inference", "fact"]
Ids = Annotated[list[Name], Field(min_length=1, max_length=1000)]


def fact_kind(name: str) -> FactKind:
    memory = {k.value: FACT_KIND[k] for k in MemoryKind}
    return memory.get(name) or FactKind(name)


class Asked(Scoped):
    """What every retrieval request names: the query, how to rank, and the read's filters."""

    query: Query
    mode: Mode = Field(Mode.HYBRID, description="exact, keyword, semantic or hybrid.")
    subjects: list[Name] | None = Field(None, min_length=1, max_length=100,
                                        description="Only these subjects: ids, CIKs or tickers.")
    cutoff: Instant | None = Field(None, description="Knowledge cutoff (default: now).")
    all_scopes: JsonBool = Field(False, description="Every scope of the tenant (admin, audited).")
    min_authority: AuthorityName | None = Field(None, description=(
        "Only items holding at least this authority; the rest are excluded (their count under "
        "`excluded`), and nothing left is a refusal naming what was missing."))
    risk: Risk | None = Field(None, description=(
        "The question's risk, mapped to a minimum authority: low model_guess, medium "
        "approved_summary, high authoritative (the stricter of it and `min_authority`)."))


class SearchBody(Asked):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "query": "shipping preference", "mode": "hybrid", "limit": 5}]})

    kinds: list[KindName] | None = Field(None, min_length=1, max_length=7)
    valid_at: Instant | None = Field(None, description="Valid instant (default: the cutoff "
                                                       "for memories, any for shared facts).")
    system_at: Instant | None = Field(None, description="System instant (default: now).")
    limit: JsonInt = Field(10, ge=1, le=MAX_LIMIT, description="Answers (a conflict set is one).")
    candidates: JsonBool = False
    form: Name | None = Field(None, examples=["10-Q"],
                              description="Two-stage: only facts a filing of this form supports.")
    period: Name | None = Field(None, examples=["2018Q1"],
                                description="Two-stage: a calendar year or quarter.")


class ContextBody(Asked):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "query": "how does the user want things shipped", "budget": 400,
        "for_thread": "support-7"}]})

    budget: JsonInt = Field(ge=1, le=1_000_000, description="Most tokens the pack may hold.")
    for_thread: Name | None = Field(None, description="The thread the pack is built for "
                                                      "(default: `thread`).")
    format: Format = Format.MARKDOWN
    valid_at: Instant | None = Field(None, description="Valid instant: what held then, as "
                                                       "known at the cutoff (default: the "
                                                       "cutoff).")
    tokenizer: Name | None = Field(None, examples=["o200k_base"], description=(
        "Count the budget in this tokenizer's tokens: minilm (the default), cl100k_base, "
        "o200k_base, or an OpenAI model name (gpt-4o)."))


def search_request(p: Principal, body: Asked, **more: Any) -> SearchRequest:
    """The request's search, in the scope its key allows (``Forbidden`` past it), read as the
    key's principal."""
    scope = guard.read_scope(p, user=body.user, project=body.project, thread=body.thread,
                             all_scopes=body.all_scopes)
    kinds = getattr(body, "kinds", None)
    fields = {k: getattr(body, k) for k in ("valid_at", "system_at", "limit", "candidates",
                                             "form", "period") if hasattr(body, k)}
    return SearchRequest(
        query=body.query, scope=scope, mode=body.mode,
        subjects=tuple(body.subjects) if body.subjects else None,
        kinds=tuple(fact_kind(k) for k in kinds) if kinds else None, cutoff=body.cutoff,
        all_scopes=body.all_scopes, actor=p.actor,
        min_authority=required_authority(body.min_authority, body.risk), **fields | more)


CLOSED = ("What the cascade closed that this read would have matched, each naming the premise "
          "that changed, when and by what (never the closed value: it is not evidence).")


class FoundOut(Out):
    """One answer, as ``vintage search --json`` prints it; ``signals`` say why it ranked."""

    id: str
    subject: str
    predicate: str
    value: Value
    unit: str | None
    status: str
    score: float
    signals: dict[str, float]
    sources: list[SourceView]
    sources_via_inputs: bool = Field(False, description="The sources are its inputs': a "
                                                        "derived figure or a summary cites "
                                                        "none of its own.")
    valid: tuple[datetime, datetime | None]
    knowledge: tuple[datetime, datetime | None]
    stale: StaleOut | None = Field(None, description="Set when a premise it rests on stopped "
                                                     "holding as of the read's instants.")


FOUND_EXAMPLE: dict[str, Any] = {
    "id": "f-2c1b0a9e8d7c6b5a-1", "subject": "GOOGL", "predicate": "us-gaap:Revenues",
    "value": 136819000000, "unit": "USD", "status": "active", "score": 0.8731,
    "signals": {"keyword": 7.1, "semantic": 0.61, "fused": 0.8731},
    "sources": [SOURCE_EXAMPLE], "valid": ["2018-01-01T00:00:00Z", "2019-01-01T00:00:00Z"],
    "knowledge": ["2019-02-05T00:00:00Z", None]}


class RelevanceOut(Out):
    """Whether anything relevant was found (docs/search.md, "Nothing relevant"): the best
    answer's relevance against the mode's floor, kept per embedder."""

    relevant: bool
    mode: Mode
    embedder: str | None = Field(description="The model the floor is kept for (none for "
                                             "exact and keyword).")
    floor: float | None = Field(description="The mode's relevance floor; none: exact mode, "
                                            "or no floor chosen for this embedder.")
    best: float | None = Field(description="The best answer's relevance (none: no answer).")
    exact: float = Field(description="The best answer's count of the query's identifiers.")
    judged: bool = Field(description="False when no floor is known for the embedder, or "
                                     "when an exact or keyword search shared no term with any "
                                     "item: the answers are given unjudged.")
    reason: str
    matched: bool = Field(True, description="False: an exact or keyword search that shared "
                                            "no term with any legal item (not judged).")


RELEVANCE_EXAMPLE: dict[str, Any] = {
    "relevant": False, "mode": "hybrid", "embedder": "all-MiniLM-L6-v2-int8", "floor": 0.3,
    "best": 0.031, "exact": 0.0, "judged": True,
    "reason": "best relevance 0.031 under the hybrid floor 0.3", "matched": True}


class SearchOut(Out):
    """The best legal answers; ``legal`` items were ranked, ``matched`` matched the words
    (legal or not), ``excluded`` counts the rest by the hard filter that removed them. When
    nothing relevant was found, ``results`` is empty and ``relevance`` says why: an answer, not
    an error."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "query": "revenue", "mode": "hybrid", "results": [FOUND_EXAMPLE],
        "excluded": {"superseded": 3}, "legal": 120, "matched": 9,
        "nothing_relevant": False, "relevance": {**RELEVANCE_EXAMPLE, "relevant": True,
                                                 "best": 0.71, "reason": "..."}}]})

    query: str
    mode: Mode
    results: list[FoundOut]
    excluded: dict[str, int]
    legal: int
    matched: int
    closed: list[StaleOut] = Field(default_factory=list, description=CLOSED)
    refusal: str | None = Field(None, description="Nothing held the authority the read "
                                                  "required: what was missing.")
    nothing_relevant: bool = Field(description="Nothing relevant is known: `results` is empty.")
    relevance: RelevanceOut | None


def search_out(result: SearchResult) -> SearchOut:
    return SearchOut(query=result.query, mode=result.mode,
                     results=[FoundOut(**result_json(f)) for f in result.results],
                     excluded=dict(result.excluded), legal=result.legal, matched=result.matched,
                     closed=[StaleOut(**c.document()) for c in result.closed],
                     refusal=result.refusal,
                     nothing_relevant=result.nothing_relevant,
                     relevance=None if result.verdict is None else RelevanceOut(
                         **result.verdict.document()))


class ContextOut(Out):
    """The pack exactly as the agent is handed it, its size, and the injection recording it."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "injection": "e-4b1d", "thread": "support-7", "format": "markdown",
        "text": "# context e-4b1d ...", "tokens": 212, "header_tokens": 41,
        "item_tokens": {"m-8d1f-1": 168}, "budget": 400,
        "tokenizer": "all-MiniLM-L6-v2 wordpiece", "items": ["m-8d1f-1"], "pinned": 0,
        "cut": []}]})

    injection: str = Field(description="Its id: `GET /v1/injections/{id}/trace`.")
    thread: str
    format: Format
    text: str
    tokens: int
    header_tokens: int = Field(description="Of `tokens`: all but the items' lines (the "
                                           "header, section titles).")
    item_tokens: dict[str, int] = Field(description="Each item's line, by id.")
    budget: int
    tokenizer: str
    items: list[str] = Field(description="Ids of the items handed over, in order.")
    pinned: int = Field(description="How many of `items` are pinned constraints.")
    cut: list[str] = Field(description="Considered, and left out by the budget.")
    stale: dict[str, StaleOut] = Field(default_factory=dict, description="The items handed "
                                       "over marked stale, by id (also said on their lines).")
    closed: list[StaleOut] = Field(default_factory=list, description=CLOSED)
    refusal: str | None = Field(None, description="No evidence held the authority the read "
                                                  "required: what was missing.")
    nothing_relevant: bool = Field(False, description="Nothing relevant is known: no evidence "
                                                      "(the text says so).")
    relevance: RelevanceOut | None = None


def context_out(pack: Pack) -> ContextOut:
    """The pack as HTTP and MCP hand it over."""
    return ContextOut(injection=pack.injection_id, thread=pack.thread, format=pack.format,
                      text=pack.text, tokens=pack.tokens, header_tokens=pack.header_tokens,
                      item_tokens=pack.item_tokens, budget=pack.budget,
                      tokenizer=pack.tokenizer, items=[i.id for i in pack.items],
                      pinned=pack.pinned, cut=list(pack.cut),
                      stale={i.id: StaleOut(**i.stale.document()) for i in pack.items
                             if i.stale is not None},
                      closed=[StaleOut(**c.document()) for c in pack.closed],
                      refusal=pack.refusal,
                      nothing_relevant=pack.nothing_relevant,
                      relevance=RelevanceOut(**pack.relevance) if pack.relevance else None)


class Verdict(Out):
    id: str
    verdict: str = Field(description="not saved, filtered, not found, cut, seen but unused, "
                                     "or used.")
    reason: str | None = Field(None, description="The hard filter, for `filtered`.")


class TraceOut(Out):
    """What a pack considered, filtered, kept, cut and where each item went (ids, reasons and
    numbers, never text), as ``vintage trace --json`` prints it."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "injection": "e-4b1d", "thread": "support-7", "at": "2026-06-01T12:00:00Z",
        "actor": "key:k3f9a0c1d2e4b5a6(support-bot)", "used": ["m-8d1f-1"],
        "trace": {"final": ["m-8d1f-1"], "cut": [], "tokens": 212, "budget": 400},
        "items": [{"id": "m-8d1f-1", "verdict": "used", "reason": None}]}]})

    injection: str
    thread: str
    at: datetime
    actor: str
    used: list[str]
    trace: dict[str, Any]
    items: list[Verdict]


class UsedBody(In):
    model_config = ConfigDict(json_schema_extra={"examples": [{"items": ["m-8d1f-1"]}]})

    items: Ids = Field(description="Ids of the injected items the agent used.")


class UsedOut(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "injection": "e-4b1d", "items": ["m-8d1f-1"], "event": "e-9c3a"}]})

    injection: str
    items: list[str]
    event: str = Field(description="The `used` event recording it.")
