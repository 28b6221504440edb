"""The MCP tools: ``search``, ``context``, ``remember``, ``correct``, ``forget``, ``review``,
``asof``, ``explain``, ``impact``; the tenant's tools (``vintage.mcp.registry``) and its
embedder (``vintage.mcp.settings``). Each is a typed method (its parameters are the tool's JSON
schema, its docstring the tool's description) that calls the very ``queries`` / ``graph``
functions the command line and the HTTP API call, in the scope the key allows
(``vintage.http.guard``, ``vintage.graph.access``), with the key's principal as the actor of
every event.

The key is verified again on every call (``vintage.graph.access.verify``, from its cache after the
first time), so a key revoked while the server runs stops working within the cache's TTL.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from vintage.graph.access import Principal, check_exit, check_write, verify
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.kinds import Risk, SourceKind
from vintage.graph.core.model import Scope, Value
from vintage.graph.memory.conflicts import review as open_conflicts
from vintage.graph.memory.forget import forget as forget_memory
from vintage.graph.memory.gate import Decision, MemoryIn, MemoryKind, memory_scope
from vintage.graph.memory.held import held_for_review
from vintage.graph.memory.remember import Remembered
from vintage.graph.memory.requests import correct_by_id, remember_checked
from vintage.graph.memory.scoping import require_read_scope
from vintage.graph.retrieval.choice import deferred
from vintage.graph.retrieval.embedder import Embedder
from vintage.graph.store.protocol import Store
from vintage.http import guard
from vintage.http.models import Instant, JsonBool, JsonInt
from vintage.http.models_control import Conflicts, Forgotten, review_out
from vintage.http.models_memory import VALID_FROM, VALID_TO, AuthorityName, Decided
from vintage.http.models_retrieval import (
    ContextBody,
    ContextOut,
    KindName,
    SearchBody,
    SearchOut,
    context_out,
    search_out,
    search_request,
)
from vintage.mcp.registry import Registry
from vintage.mcp.settings import Settings
from vintage.queries.lineage.explain import Explanation
from vintage.queries.lineage.explain import explain as explain_fact
from vintage.queries.lineage.impact import Impact
from vintage.queries.lineage.impact import impact as impact_of
from vintage.queries.metrics.answers import MetricAnswer
from vintage.queries.metrics.definitions import resolve_metric
from vintage.queries.metrics.periods import parse_period
from vintage.queries.metrics.question import ask
from vintage.queries.search.fusion import Mode
from vintage.queries.search.items import Format
from vintage.queries.search.pack import build_pack
from vintage.queries.search.run import search as search_legal

Text = Annotated[str, Field(min_length=1, max_length=2000)]
Name = Annotated[str, Field(min_length=1, max_length=256)]
User = Annotated[str | None, Field(description="The user whose memories (within the key's "
                                               "binding; a key bound to one needs none).")]
Project = Annotated[str | None, Field(description="The project (within the key's binding).")]
Thread = Annotated[str | None, Field(description="The thread, narrowing the scope.")]
AllScopes = Annotated[JsonBool, Field(description="Every scope of the tenant (an admin key only; "
                                              "audited).")]
Subjects = Annotated[list[str] | None, Field(description="Only these subjects: ids, CIKs or "
                                                         "tickers.")]
MinAuthority = Annotated[AuthorityName | None, Field(description=(
    "Only items holding at least this authority; nothing left is a refusal naming it."))]
RiskLevel = Annotated[Risk | None, Field(description=(
    "The question's risk: low, medium or high, mapped to a minimum authority."))]
NOT_WRITTEN = frozenset({Decision.REFUSED, Decision.CONFLICT})


class Refused(InvalidArgument):
    """A write the memory gate refused or held for review: said as the tool's error."""


class Tools(Registry, Settings):
    """The tools of one server, bound to one store, one key and one embedder."""

    NAMES = ("search", "context", "remember", "correct", "forget", "review", "asof",
             "explain", "impact", *Registry.NAMES, *Settings.NAMES)

    def __init__(self, store: Store, key: str, embedder: Embedder | None = None) -> None:
        self.store = store
        self.key = key
        self.embedder = embedder  # None: the store's choice for the tenant, read per call

    def _embedder(self, tenant: str) -> Embedder:
        return self.embedder or deferred(self.store, tenant)

    def principal(self) -> Principal:
        return verify(self.store, self.key)

    def search(
        self, query: Annotated[str, Field(description="Words, an exact code (E4031), a key or "
                                                      "a concept (us-gaap:Revenues).")],
        mode: Mode = Mode.HYBRID, subjects: Subjects = None,
        kinds: Annotated[list[KindName] | None, Field(description="Only these kinds.")] = None,
        cutoff: Annotated[Instant | None, Field(description="Knowledge cutoff (default: now).")]
            = None,
        valid_at: Instant | None = None, system_at: Instant | None = None,
        limit: Annotated[JsonInt, Field(ge=1, le=1000)] = 10, candidates: JsonBool = False,
        form: Annotated[str | None, Field(description="Two-stage: a filing form (10-Q).")]
            = None,
        period: Annotated[str | None, Field(description="Two-stage: a calendar year or "
                                                        "quarter (2018, 2018Q1).")] = None,
        user: User = None, project: Project = None, thread: Thread = None,
        all_scopes: AllScopes = False, min_authority: MinAuthority = None, risk: RiskLevel = None,
    ) -> SearchOut:
        """Find facts and memories by what they say. Only what the key's scope and the as-of
        instants make visible is ranked; naming no user, project or thread reads the tenant's
        shared facts (filings, tables), never a memory."""
        body = SearchBody(query=query, mode=mode, subjects=subjects, kinds=kinds, cutoff=cutoff,
                          valid_at=valid_at, system_at=system_at, limit=limit,
                          candidates=candidates, form=form, period=period, user=user,
                          project=project, thread=thread, all_scopes=all_scopes,
                          min_authority=min_authority, risk=risk)
        request = search_request(self.principal(), body)
        return search_out(search_legal(self.store, self._embedder(request.scope.tenant), request))

    def context(
        self, query: Annotated[str, Field(description="What the agent needs.")],
        budget: Annotated[JsonInt, Field(ge=1, le=1_000_000, description="Most tokens.")],
        for_thread: Annotated[str | None, Field(description="The thread the pack is built "
                                                            "for (default: thread).")] = None,
        format: Format = Format.MARKDOWN, mode: Mode = Mode.HYBRID, subjects: Subjects = None,
        cutoff: Instant | None = None, user: User = None, project: Project = None,
        thread: Thread = None, all_scopes: AllScopes = False,
        valid_at: Annotated[Instant | None, Field(description="Valid instant: what held then "
                                                  "(default: the cutoff).")] = None,
        min_authority: MinAuthority = None, risk: RiskLevel = None,
        tokenizer: Annotated[str | None, Field(description=(
            "Count the budget in this tokenizer's tokens: minilm (the default), cl100k_base, "
            "o200k_base, or an OpenAI model name (gpt-4o)."))] = None,
    ) -> ContextOut:
        """The context pack for a query, cut to a token budget: pinned constraints first, then
        the evidence best-ranked first. The handover is recorded (an injection with its
        trace)."""
        p = self.principal()
        body = ContextBody(query=query, budget=budget, for_thread=for_thread, format=format,
                           mode=mode, subjects=subjects, cutoff=cutoff, user=user,
                           project=project, thread=thread, all_scopes=all_scopes,
                           valid_at=valid_at, min_authority=min_authority, risk=risk,
                           tokenizer=tokenizer)
        asked = search_request(p, body)
        require_read_scope(asked.scope, "a context", all_scopes=asked.all_scopes)
        pack = build_pack(self.store, self._embedder(asked.scope.tenant), asked, budget=budget,
                          for_thread=for_thread or thread or "", actor=p.actor, format=format,
                          tokenizer=body.tokenizer)
        return context_out(pack)

    def remember(
        self, kind: MemoryKind, subject: Name, key: Name, value: Value,
        source_kind: Annotated[SourceKind | None, Field(description="What the write claims to "
                                                                    "come from; the key decides "
                                                                    "whether it may.")] = None,
        source_id: Name | None = None, source_version: Name | None = None,
        tool: Annotated[Name | None, Field(description="The tool a tool_result comes from; "
                                                       "registered, it carries authority.")]
            = None,
        tool_version: Annotated[Name | None, Field(description="The tool's version.")] = None,
        observed_at: Instant | None = None, owner: Name | None = None,
        retention_reason: Text | None = None,
        ttl_seconds: Annotated[JsonInt | None, Field(ge=1)] = None,
        valid_from: Annotated[Instant | None, Field(description=VALID_FROM)] = None,
        valid_to: Annotated[Instant | None, Field(description=VALID_TO)] = None,
        evidence: Annotated[list[Name] | None, Field(max_length=100)] = None,
        consent: JsonBool = False, user: User = None, project: Project = None,
        thread: Thread = None,
    ) -> Decided:
        """Write one memory through the gates: the decision and why (an audited event either
        way). A refusal or an equal-authority disagreement is the tool's error."""
        p = self.principal()
        scope = guard.write_scope(p, user=user, project=project, thread=thread)
        if source_kind is not None:
            check_write(p, source_kind, tool=tool, for_user=scope.keys.get("user"),
                        project=scope.keys.get("project"))
        draft = MemoryIn(kind=kind, tenant=p.tenant, subject=subject, key=key, value=value,
                         source_kind=source_kind, source_id=source_id,
                         source_version=source_version, tool=tool, tool_version=tool_version,
                         observed_at=observed_at, owner=owner,
                         retention_reason=retention_reason, ttl_seconds=ttl_seconds,
                         valid_from=valid_from, valid_to=valid_to,
                         evidence=tuple(evidence or ()), consent=consent,
                         user=scope.keys.get("user"), project=scope.keys.get("project"),
                         thread=scope.keys.get("thread"))
        return decided(remember_checked(self.store, draft, actor=p.actor))

    def correct(
        self, memory_id: Annotated[Name, Field(description="The version the user was shown.")],
        value: Value, source_id: Name, observed_at: Instant | None = None,
        consent: JsonBool = False,
        valid_from: Annotated[Instant | None, Field(description="Event time: from when the "
                                                    "corrected value holds (default: the "
                                                    "version's).")] = None,
        valid_to: Annotated[Instant | None, Field(description="Event time: until when, "
                                                  "exclusive (default: the version's).")]
            = None,
    ) -> Decided:
        """The user corrects the memory version they were shown (it must still be current).
        A correction is the user's word: an agent key may not make it."""
        p = self.principal()
        fact = guard.memory_in_reach(self.store, p, memory_id)
        held = Scope.from_terms(p.tenant, list(fact.scope))
        check_write(p, SourceKind.USER_MESSAGE, for_user=held.keys.get("user"),
                    project=held.keys.get("project"))
        return decided(correct_by_id(self.store, p.tenant, memory_id, value,
                                     source_id=source_id, observed_at=observed_at,
                                     actor=p.actor, consent=consent, valid_from=valid_from,
                                     valid_to=valid_to))

    def forget(
        self, reason: Text, subject: Name | None = None, key: Name | None = None,
        source: Annotated[Name | None, Field(description="Erase what this source said.")]
            = None,
        everything: Annotated[JsonBool, Field(description="Erase all of the user's memories.")]
            = False,
        user: User = None, project: Project = None, thread: Thread = None,
    ) -> Forgotten:
        """Erase content: a memory (subject and key, every version), what a source said, or all
        of a user's; derived summaries go with it; a content-free tombstone event remains.
        Only a writer or admin key erases (an agent key may not)."""
        p = self.principal()
        check_exit(p, "forget")
        scope = guard.write_scope(p, user=user, project=project, thread=thread)
        bound_user = scope.keys.get("user")
        if everything and bound_user is None:
            raise InvalidArgument("everything names its user (a key bound to one needs none)")
        if source is not None:
            guard.source_in_reach(self.store, p, source)
        target = memory_scope(p.tenant, None if everything else bound_user,
                              scope.keys.get("project"), scope.keys.get("thread"))
        gone = forget_memory(self.store, target, subject=subject, key=key, source_id=source,
                             user=bound_user if everything else None, actor=p.actor,
                             reason=reason)
        return Forgotten.of(gone)

    def review(self, user: User = None, project: Project = None, thread: Thread = None,
               all_scopes: AllScopes = False) -> Conflicts:
        """What waits for a person in a scope: the open conflict sets (memories of equal
        authority that disagree) and the candidates held because they read as instructions to
        the model, named with the reason, never quoted."""
        p = self.principal()
        scope = guard.read_scope(p, user=user, project=project, thread=thread,
                                 all_scopes=all_scopes)
        sets = open_conflicts(self.store, scope, all_scopes=all_scopes, actor=p.actor)
        return review_out(sets, held_for_review(self.store, scope, all_scopes=all_scopes))

    def asof(
        self, metric: Annotated[str, Field(description="A built-in metric (revenue, "
                                                       "operating_margin, ...) or a concept.")],
        subjects: Annotated[list[str], Field(min_length=1, max_length=50)],
        cutoff: Annotated[Instant, Field(description="Only what was public by then.")],
        period: Annotated[str, Field(description="FY2024, FY2024Q4, LTM or START..END.")]
            = "LTM",
        hindsight: JsonBool = False,
    ) -> MetricAnswer:
        """A metric per company as it could have been computed at the cutoff, with lineage."""
        p = self.principal()
        return ask(self.store, guard.read_scope(p), resolve_metric(metric), subjects, cutoff,
                   parse_period(period), actor=p.actor, hindsight=hindsight)

    def explain(self, fact_id: Name, system_at: Instant | None = None) -> Explanation:
        """The full upstream tree of a fact: recipes, inputs, periods, sources, time stamps."""
        p = self.principal()
        guard.fact_in_reach(self.store, p, fact_id)
        return explain_fact(self.store, guard.read_scope(p), fact_id, system_at)

    def impact(self, fact_id: Name | None = None, source_id: Name | None = None) -> Impact:
        """What a fact's end, or a source's retraction, would reach downstream (name one)."""
        p = self.principal()
        if (fact_id is None) == (source_id is None):
            raise InvalidArgument("name a fact_id or a source_id, not both and not neither")
        if fact_id is not None:
            guard.fact_in_reach(self.store, p, fact_id)
            return impact_of(self.store, guard.read_scope(p), fact_id=fact_id)
        assert source_id is not None
        guard.source_in_reach(self.store, p, source_id)
        return impact_of(self.store, guard.read_scope(p), source_id=source_id)


def decided(done: Remembered) -> Decided:
    if done.decision in NOT_WRITTEN:
        raise Refused(f"{done.decision.value}: {done.reason} (event {done.event_id})")
    return Decided(decision=done.decision, reason=done.reason, memory_id=done.memory_id,
                   revision=done.revision, event=done.event_id)
