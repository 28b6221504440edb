"""The retrieval benchmark's memory corpus, generated from a seed, and its ground truth.

Two tenants; in each, users (each in one of eight projects) and the projects' own memories. A
fixed *core* (16 users per tenant and the projects, from the seed alone) holds everything the
query set asks about: the same at every size, so one query file serves 10k and 100k items.
*Filler* users (from the seed and the size) and background memories bring the corpus to its
size; every filler user holds every topic too, so each core memory has near-duplicates in other
users' scopes at every size.

What the corpus holds besides plain memories: corrections (a memory said again with another
value; up to 500 versions), exact codes (error codes, order numbers, tickers; the same code in
other users' scopes and near-miss codes in the user's own), candidates (a model's guess),
expired items (a TTL in the past) and conflict sets (two systems that disagree, written through
``remember``). ``Memory.versions`` predicts every stored version (its id, scope, status and
times) from how it was generated and the documented id scheme
(``vintage.graph.core.model.version_id`` of the assertion key), never from the store: that is the
ground truth legality is judged by.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bench.retrieval.topics import (
    BADGE,
    GUESS,
    ISSUE,
    ORDER,
    PLAN,
    PROJECT,
    PROJECTS,
    TEMP_BADGE,
    TIERS,
    TOPICS,
    WATCH,
    fill,
)
from bench.retrieval.words import background
from vintage.graph.core.kinds import FactKind, SourceKind, Status
from vintage.graph.core.model import Scope, assertion_key, version_id
from vintage.graph.memory.conflicts import VARIANT
from vintage.graph.memory.gate import MEMORY_EPOCH, memory_key

BASE = datetime(2025, 1, 6, 9, tzinfo=UTC)
LAST = datetime(2025, 10, 31, 18, tzinfo=UTC)  # every memory is observed by then
TENANTS = ("acme", "globex")
CORE_USERS = 16
PROJECTS_PER_TENANT = 8
# Versions of the core users' shipping address, by user: the superseded-versions trap.
HEAVY = (500, 50, 20, 12, 8, 5, 5, 3, 3, 3, 2, 2, 2, 2, 2, 2)
CORRECTED = ("shipping.address", "contact.channel", "reply.language", "meeting.hours",
             "hotel.chain")
TICKERS = ("NVDA", "MRVL", "TSLA", "SNOW", "GOOGL", "AMD", "INTC", "ORCL", "ASML", "SAP")
Pairs = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Said:
    """One thing said about a memory: a version, unless it repeats the last."""

    value: str
    observed: datetime
    source: str
    source_kind: SourceKind = SourceKind.USER_MESSAGE
    status: Status = Status.ACTIVE
    expires: datetime | None = None


@dataclass(frozen=True)
class Version:
    id: str
    tenant: str  # logical name (acme, globex, sec)
    scope: frozenset[str]  # key=value terms
    status: Status
    available: datetime
    superseded: datetime | None
    expires: datetime | None
    valid_from: datetime
    valid_to: datetime | None
    text: str


@dataclass(frozen=True)
class Memory:
    tenant: str
    scope: Pairs  # sorted (name, value): user and/or project
    subject: str
    key: str
    said: tuple[Said, ...]
    kind: FactKind = FactKind.PREFERENCE
    conflict: bool = False  # two sources that disagree: written through ``remember``
    role: str = "background"
    tag: str = ""  # the code, ticker or project it carries

    def scope_in(self, tenant: str) -> Scope:
        return Scope(tenant=tenant, keys=dict(self.scope))

    def versions(self) -> list[Version]:
        scope = self.scope_in(self.tenant)
        terms = frozenset(scope.terms())
        key = memory_key(scope, self.subject, self.key)

        def version(fid: str, said: Said, superseded: datetime | None,
                    status: Status | None = None) -> Version:
            return Version(fid, self.tenant, terms, status or said.status, said.observed,
                           superseded, said.expires, MEMORY_EPOCH, None, said.value)

        if self.conflict:  # vintage.graph.memory.conflicts: a conflicted r2 of the key, a variant
            first, second = self.said
            variant = assertion_key(scope, self.subject, self.key, MEMORY_EPOCH, None,
                                    VARIANT + second.source)
            return [version(version_id(key, 1), first, first.observed),
                    version(version_id(key, 2), first, None, Status.CONFLICTED),
                    version(version_id(variant, 1), second, None, Status.CONFLICTED)]
        nexts = [s.observed for s in self.said[1:]] + [None]
        return [version(version_id(key, i), s, after)
                for i, (s, after) in enumerate(zip(self.said, nexts, strict=True), start=1)]


@dataclass
class Corpus:
    memories: list[Memory]
    users: dict[str, list[str]]
    projects: dict[str, list[str]]
    membership: dict[tuple[str, str], str] = field(default_factory=dict)  # (tenant, user) -> p

    def truth(self) -> dict[tuple[str, str], Version]:
        return {(v.tenant, v.id): v for m in self.memories for v in m.versions()}

    def core(self, role: str) -> list[Memory]:
        return [m for m in self.memories if m.role == role]

    @property
    def size(self) -> int:
        """Stored versions (a conflict set is three: the key's two, the variant)."""
        return sum(3 if m.conflict else len(m.said) for m in self.memories)


class _Maker:
    """Draws values and observation times; numbers the sources of one tenant."""

    def __init__(self, rng: random.Random, tenant: str) -> None:
        self.rng, self.tenant, self.n = rng, tenant, 0

    def source(self, who: str) -> str:
        self.n += 1
        return f"msg-{who}-{self.n:05d}"

    def first_seen(self) -> datetime:
        return BASE + timedelta(minutes=self.rng.randrange(60 * 24 * 60))

    def versions(self, who: str, templates: tuple[str, ...], n: int,
                 fixed: dict[str, str] | None = None) -> tuple[Said, ...]:
        start = self.first_seen()
        step = (LAST - start) / max(n, 1)
        values: list[str] = []
        while len(values) < n:
            value = fill(self.rng.choice(templates), self.rng, fixed)
            if not values or value != values[-1]:  # a repeat would be support, not a version
                values.append(value)
        return tuple(Said(v, start + i * step, self.source(who)) for i, v in enumerate(values))


def _user_scope(user: str, project: str | None = None) -> Pairs:
    return (("project", project), ("user", user)) if project else (("user", user),)


def _near(code: str) -> str:
    """A near miss: the last two digits swapped (or the last one moved on)."""
    head, a, b = code[:-2], code[-2], code[-1]
    return head + b + a if a != b else head + a + str((int(b) + 1) % 10)


def _core_codes(rng: random.Random) -> tuple[list[str], list[str]]:
    while True:
        errors = [f"E{n}" for n in rng.sample(range(1000, 10000), 2 * CORE_USERS)]
        orders = [f"ORD-{n}" for n in rng.sample(range(10000, 100000), 2 * CORE_USERS)]
        taken = set(errors) | set(orders)
        if all(_near(c) not in taken and _near(c) != c for c in errors + orders):
            return errors, orders


def _user(mk: _Maker, tenant: str, user: str, project: str, i: int, core: bool,
          codes: tuple[list[str], list[str]]) -> list[Memory]:
    rng, subject = mk.rng, f"user:{user}"
    role = (lambda r: r) if core else (lambda r: "filler")
    out: list[Memory] = []
    for t in TOPICS:
        if core:
            n = HEAVY[i] if t.key == "shipping.address" else (
                2 + (i + len(t.key)) % 3 if t.key in CORRECTED else 1)
        else:
            n = rng.choice((1, 2, 3)) if t.key in CORRECTED else 1
        out.append(Memory(tenant, _user_scope(user, project if t.work else None), subject, t.key,
                          mk.versions(user, t.stored, n), role=role("topic")))
    errors, orders = codes
    if core:
        k = 2 * i
        issues = [errors[k], errors[k + 1], _near(errors[k]), errors[(k + 2) % len(errors)]]
        mine = [orders[k], orders[k + 1], _near(orders[k])]
    else:
        issues = [f"E{rng.randrange(1000, 10000)}" for _ in range(4)]
        mine = [f"ORD-{rng.randrange(10000, 100000)}" for _ in range(2)]
    for n, code in enumerate(issues):
        said = mk.versions(user, (ISSUE[(i + n) % len(ISSUE)],), 1, {"code": code})
        out.append(Memory(tenant, _user_scope(user, project), subject, f"issue.{n + 1}", said,
                          FactKind.OBSERVATION, role=role("issue"), tag=code))
    for n, code in enumerate(mine):
        said = mk.versions(user, (ORDER[(i + n) % len(ORDER)],), 1, {"code": code})
        out.append(Memory(tenant, _user_scope(user), subject, f"order.{n + 1}", said,
                          FactKind.OBSERVATION, role=role("order"), tag=code))
    ticker = TICKERS[i % len(TICKERS)]
    out.append(Memory(tenant, _user_scope(user), subject, "watchlist",
                      mk.versions(user, (WATCH[i % 2],), 1, {"code": ticker}),
                      role=role("watch"), tag=ticker))
    key, text, _ = GUESS[i % len(GUESS)]
    out.append(Memory(tenant, _user_scope(user), subject, key, (Said(
        text, mk.first_seen(), mk.source(user), SourceKind.MODEL_INFERENCE, Status.CANDIDATE),),
        role=role("guess")))
    out.append(Memory(tenant, _user_scope(user), subject, "access.badge",
                      mk.versions(user, (BADGE[0],), 1), role=role("badge")))
    seen = datetime(2025, 3, 10, 9, tzinfo=UTC) + timedelta(days=i % 20, minutes=i)
    out.append(Memory(tenant, _user_scope(user), subject, "access.visitor_badge", (Said(
        fill(TEMP_BADGE[0], rng), seen, mk.source(user), expires=seen + timedelta(days=7)),),
        role=role("expired")))
    if core:
        first = datetime(2025, 4, 1, 10, tzinfo=UTC) + timedelta(days=i)
        tiers = rng.sample(TIERS, 2)
        out.append(Memory(tenant, _user_scope(user), subject, "account.plan", tuple(
            Said(fill(PLAN[0], rng, {"tier": tier, "seats": str(10 * (n + 2 + i % 4))}),
                 first + timedelta(days=3 * n), f"{system}-{user}", SourceKind.TOOL_RESULT)
            for n, (tier, system) in enumerate(zip(tiers, ("crm", "billing"), strict=True))),
            FactKind.OBSERVATION, conflict=True, role="conflict"))
    return out


def _project(mk: _Maker, tenant: str, project: str) -> list[Memory]:
    out = []
    for key, stored, _ in PROJECT:
        n = 3 if key == "oncall" else 1
        said = mk.versions(project, stored, n, {"p": project.capitalize()})
        out.append(Memory(tenant, (("project", project),), f"project:{project}", key, said,
                          FactKind.OBSERVATION, role="project", tag=project))
    return out


def per_user_background(size: int) -> int:
    return 60 if size <= 20_000 else 150


def generate(size: int, seed: int = 7, core_only: bool = False,
             background_items: int | None = None) -> Corpus:
    """At least ``size`` memory versions (the core alone with ``core_only``)."""
    core_rng = random.Random(seed)
    codes = _core_codes(core_rng)
    fill_rng = random.Random(f"{seed}-{size}")
    extra = per_user_background(size) if background_items is None else background_items
    corpus = Corpus([], {}, {})
    makers = {}
    for n, tenant in enumerate(TENANTS):
        projects = list(PROJECTS[n * PROJECTS_PER_TENANT:(n + 1) * PROJECTS_PER_TENANT])
        corpus.projects[tenant] = projects
        corpus.users[tenant] = []
        makers[tenant] = _Maker(core_rng, tenant)
        for p in projects:
            corpus.memories += _project(makers[tenant], tenant, p)
        for i in range(CORE_USERS):
            _add_user(corpus, makers[tenant], tenant, i, True, codes, extra, fill_rng)
    for tenant in TENANTS:  # from here on nothing the queries ask about changes with size
        makers[tenant].rng = fill_rng
    i = CORE_USERS
    while not core_only and corpus.size < size:
        for tenant in TENANTS:
            _add_user(corpus, makers[tenant], tenant, i, False, codes, extra, fill_rng)
        i += 1
    return corpus


def _add_user(corpus: Corpus, mk: _Maker, tenant: str, i: int, core: bool,
              codes: tuple[list[str], list[str]], extra: int, fill_rng: random.Random) -> None:
    user = f"{tenant[0]}-u{i:03d}"
    project = corpus.projects[tenant][i % PROJECTS_PER_TENANT]
    corpus.users[tenant].append(user)
    corpus.membership[(tenant, user)] = project
    corpus.memories += _user(mk, tenant, user, project, i, core, codes)
    for key, value in background(fill_rng, extra):  # sources of their own: core ids stay put
        said = Said(value, BASE + timedelta(minutes=fill_rng.randrange(60 * 24 * 290)),
                    f"bg-{user}-{key}")
        corpus.memories.append(Memory(tenant, _user_scope(user), f"user:{user}", key, (said,)))
