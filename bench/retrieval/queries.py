"""The retrieval benchmark's fixed query set (``bench/retrieval/queries.jsonl``) and the
legality rule its answers are judged by.

    python -m bench.retrieval.queries            # rewrite the file from the seed
    python -m bench.retrieval.queries --check    # exit 1 if the file differs from the seed's

Each query names its tenant, scope, knowledge cutoff and valid instant (the defaults: now),
whether candidates are asked for, and the ids of the legal answers. The expected ids are the
target memory's (or filing's) versions that are legal for the query, by ``legal`` below over the
generator's predicted versions (``bench.retrieval.corpus``, ``bench.retrieval.sec``): derived
from how the corpus was made, never from running a search.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench.retrieval import sec as retrieval_sec
from bench.retrieval.corpus import CORE_USERS, CORRECTED, Corpus, Memory, Version, generate
from bench.retrieval.topics import BADGE, GUESS, PLAN, PROJECT, TEMP_BADGE, TOPIC
from vintage.graph.core.kinds import Status

FILE = Path(__file__).resolve().with_name("queries.jsonl")
SEED = 7
LATER = datetime(2026, 1, 1, tzinfo=UTC)  # "now" for the file: after every memory was said
ADMITTED = frozenset({Status.ACTIVE, Status.CONFLICTED})


@dataclass(frozen=True)
class Query:
    id: str
    category: str
    text: str
    tenant: str  # logical: acme, globex, sec
    scope: dict[str, str] = field(default_factory=dict)
    expected: tuple[str, ...] = ()
    cutoff: datetime | None = None
    valid_at: datetime | None = None
    candidates: bool = False
    all_scopes: bool = False
    note: str = ""

    def to_json(self) -> str:
        data = asdict(self)
        data["expected"] = list(self.expected)
        for name in ("cutoff", "valid_at"):
            at = getattr(self, name)
            data[name] = None if at is None else at.isoformat()
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, line: str) -> Query:
        data = json.loads(line)
        data["expected"] = tuple(data["expected"])
        for name in ("cutoff", "valid_at"):
            if data[name] is not None:
                data[name] = datetime.fromisoformat(data[name])
        return cls(**data)


def legal(q: Query, v: Version, now: datetime) -> bool:
    """The as-of predicate (docs/contract.md) for one predicted version: tenant, scope, the
    knowledge cutoff, status (candidates only when asked), valid time and expiry. The valid
    instant defaults to the cutoff, except for a tenant-wide read, which reads every valid
    time (vintage.queries.search.run:
    a Q1 2018 figure is still the answer about Q1 2018 in June)."""
    known = q.cutoff or now
    valid_at = q.valid_at or (None if q.all_scopes else known)
    statuses = ADMITTED | {Status.CANDIDATE} if q.candidates else ADMITTED
    return (v.tenant == q.tenant
            and (q.all_scopes or all(f"{k}={x}" in v.scope for k, x in q.scope.items()))
            and v.available <= known and (v.superseded is None or known < v.superseded)
            and v.status in statuses
            and (valid_at is None or (
                v.valid_from <= valid_at and (v.valid_to is None or valid_at < v.valid_to)
                and (v.expires is None or valid_at < v.expires))))


class _Builder:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(f"{seed}-queries")
        self.queries: list[Query] = []

    def add(self, category: str, text: str, m: Memory, scope: dict[str, str], *,
            note: str = "", cutoff: datetime | None = None, candidates: bool = False) -> None:
        q = Query(f"q{len(self.queries) + 1:03d}", category, text, m.tenant, scope,
                  cutoff=cutoff, candidates=candidates)
        expected = tuple(v.id for v in m.versions() if legal(q, v, LATER))
        about = " ".join(x for x in (m.subject, m.key, m.tag, note) if x)
        self.queries.append(Query(**{**asdict(q), "expected": expected, "note": about}))


def half(q: Query) -> str:
    """Which half of the set ``q`` falls in, by a hash of its text (a question asked twice falls
    in one half): ranking constants are chosen on the ``tuning`` half and read on the other
    (docs/retrieval.md, "Search: the legal set first")."""
    return ("tuning", "held-out")[hashlib.sha256(q.text.encode("utf-8")).digest()[0] % 2]


def _user(m: Memory) -> dict[str, str]:
    return {"user": dict(m.scope)["user"]}


def _memories(b: _Builder, corpus: Corpus) -> None:
    rng = b.rng
    by = {(m.tenant, m.subject, m.key): m for m in corpus.memories if m.role != "filler"}
    cores = [(t, u) for t, users in corpus.users.items() for u in users[:CORE_USERS]]
    plain = [k for k in TOPIC if k not in CORRECTED]
    for n, (t, u) in enumerate(cores):  # paraphrases: two topics said once, per core user
        for key in (plain[(2 * n) % len(plain)], plain[(2 * n + 1) % len(plain)]):
            m = by[(t, f"user:{u}", key)]
            scope = dict(m.scope) if TOPIC[key].work and n % 2 else _user(m)
            b.add("paraphrase", rng.choice(TOPIC[key].asked), m, scope)
    for n, (t, u) in enumerate(cores):  # exact codes: the user's own, never a near miss
        issue = next(m for m in by.values() if m.subject == f"user:{u}" and m.tenant == t
                     and m.role == "issue")
        b.add("exact code", issue.tag if n % 3 else f"what do we know about {issue.tag}",
              issue, _user(issue))
        kind = "order" if n % 2 else "watch"
        m = next(m for m in by.values() if m.subject == f"user:{u}" and m.tenant == t
                 and m.role == kind)
        b.add("exact code", f"status of order {m.tag}" if kind == "order" else m.tag, m,
              _user(m))
    for n, (t, u) in enumerate(cores):  # corrections: only the latest version is legal
        m = by[(t, f"user:{u}", "shipping.address")]
        b.add("correction", rng.choice(TOPIC[m.key].asked), m, _user(m),
              note=f"{len(m.said)} versions")
        if n % 4 == 0:
            other = by[(t, f"user:{u}", CORRECTED[1 + n // 4 % (len(CORRECTED) - 1)])]
            b.add("correction", rng.choice(TOPIC[other.key].asked), other, _user(other))
        if len(m.said) >= 3:  # as of an earlier cutoff: an earlier version is the answer
            k = rng.randrange(len(m.said) - 1)
            cutoff = m.said[k].observed + (m.said[k + 1].observed - m.said[k].observed) / 2
            b.add("cutoff", rng.choice(TOPIC[m.key].asked), m, _user(m), cutoff=cutoff)
    for n, (t, u) in enumerate(cores):
        if n % 8 < 5:  # conflicts: both sides
            m = by[(t, f"user:{u}", "account.plan")]
            b.add("conflict", PLAN[1], m, _user(m))
        badge = by[(t, f"user:{u}", "access.badge")]
        temp = by[(t, f"user:{u}", "access.visitor_badge")]
        if n % 2:  # now: the permanent one; the expired one is illegal
            b.add("expired", BADGE[1], badge, _user(badge))
        else:  # before it expired, the temporary one is the answer
            b.add("expired", TEMP_BADGE[1], temp, _user(temp),
                  cutoff=temp.said[0].observed + timedelta(days=2))
        guess = next(m for m in by.values() if m.subject == f"user:{u}" and m.tenant == t
                     and m.role == "guess")
        guessed = next(g[2] for g in GUESS if g[0] == guess.key)
        b.add("candidate" if n % 3 else "candidate trap", guessed, guess, _user(guess),
              candidates=bool(n % 3))
    for t, projects in corpus.projects.items():
        for n, p in enumerate(projects):
            first = PROJECT[n % len(PROJECT)] if n % len(PROJECT) != 3 else PROJECT[4]
            for key, _, asked in (first, PROJECT[3]):
                m = by[(t, f"project:{p}", key)]
                b.add("project", rng.choice(asked), m, {"project": p})


FEATURED = (  # the issue's own example: as first filed, then as restated
    ("Alphabet operating income Q1 2018", "2018-06-30"),
    ("Alphabet operating income Q1 2018", "2019-06-30"),
)


def _filings(b: _Builder, seed: int) -> None:
    googl = retrieval_sec.ticker_files({"GOOGL"})[0]
    target = next(a for a in retrieval_sec.assertions(googl, {"us-gaap:OperatingIncomeLoss"})
                  if (a.start.isoformat(), a.end.isoformat()) == ("2018-01-01", "2018-03-31"))
    asks = []
    for text, cutoff in FEATURED:
        at = datetime.fromisoformat(cutoff + "T00:00:00+00:00")
        asks += [retrieval_sec.Ask(text, at, v,
                                   "GOOGL us-gaap:OperatingIncomeLoss 2018Q1 (the issue's)")
                 for v in target.versions]
    asks += retrieval_sec.questions(seed)
    for ask in asks:
        q = Query(f"q{len(b.queries) + 1:03d}", "sec filing", ask.text, retrieval_sec.TENANT,
                  {}, (ask.expected.id,), ask.cutoff, all_scopes=True,
                  note=ask.note)
        if legal(q, ask.expected, LATER):  # of a featured pair, the version legal then
            b.queries.append(q)


def build(seed: int = SEED) -> list[Query]:
    b = _Builder(seed)
    _memories(b, generate(0, seed, core_only=True, background_items=0))
    _filings(b, seed)
    return [Query(**{**asdict(q), "id": f"q{n:03d}"}) for n, q in enumerate(b.queries, 1)]


def load(path: Path = FILE) -> list[Query]:
    return [Query.from_json(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def render(queries: list[Query]) -> str:
    return "".join(q.to_json() + "\n" for q in queries)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.retrieval.queries")
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    text = render(build())
    if args.check:
        same = FILE.exists() and FILE.read_text(encoding="utf-8") == text
        print(f"{FILE.name}: {'up to date' if same else 'differs from the seed'}")
        return 0 if same else 1
    FILE.write_text(text, encoding="utf-8")
    print(f"wrote {len(text.splitlines())} queries to {FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
