"""Running the query set through ``vintage.queries.search.run.search`` and scoring the answers.

Every query runs in every mode of the ablation ladder (exact, keyword, semantic, hybrid), each
timed end to end as a caller sees it: the index refresh a search starts with, embedding the
query (semantic and hybrid), the store's ranking, the re-read of the ranked ids through the
as-of predicate, the checks, and, for a tenant-wide query, its audit event. The first
``WARMUP`` queries of each mode run once untimed first (Cypher plans, connection pool, BM25
structures: warm, as in a service).

Scores, per query with expected answers (a query whose matching items are all illegal has none
and only counts for illegal items): recall@k = expected ids among the first k results /
min(k, expected) (a conflict set's two sides fill two positions), reciprocal rank of the first
expected id. An item is illegal when the ground truth (``bench.retrieval.queries.legal`` over
the generator's versions) does not admit it for the query, or the generator never made it.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bench.retrieval.abstention import abstention, unanswerable
from bench.retrieval.corpus import Version
from bench.retrieval.queries import Query, half, legal
from vintage.graph.core.model import Scope
from vintage.graph.retrieval.embedder import Embedder
from vintage.graph.store.protocol import Store
from vintage.queries.search.fusion import Mode, per_leg
from vintage.queries.search.request import SearchRequest
from vintage.queries.search.run import search

MODES = (Mode.EXACT, Mode.KEYWORD, Mode.SEMANTIC, Mode.HYBRID)
LIMIT = 10
WARMUP = 20
ACTOR = "bench:retrieval"
Truth = Mapping[tuple[str, str], Version]
Result = dict[str, Any]


@dataclass(frozen=True)
class Answer:
    query: str
    mode: str
    ids: tuple[str, ...]  # the results, in order
    considered: tuple[str, ...]
    ms: float
    legal_set: int
    matched: int
    now: datetime
    depth: int = 0  # how deep the search fused each leg (vintage.queries.search.fusion.deep_enough)
    rescored: int = 0  # candidates its cut legs were asked for by id (search.run._rescore)
    error: str | None = None  # the search failed: no answer (counted, never hidden)
    # The relevance verdict (vintage.queries.search.abstain): whether it found anything
    # relevant, its best answer's relevance and identifier count (what floors are chosen on).
    relevant: bool = True
    best: float | None = None
    exact: float = 0.0


def request(q: Query, mode: Mode, tenants: Mapping[str, str]) -> SearchRequest:
    return SearchRequest(
        query=q.text, scope=Scope(tenant=tenants[q.tenant], keys=dict(q.scope)), mode=mode,
        cutoff=q.cutoff, valid_at=q.valid_at, limit=LIMIT, candidates=q.candidates,
        all_scopes=q.all_scopes, actor=ACTOR if q.all_scopes else None)


def run(store: Store, embedder: Embedder, queries: Sequence[Query], tenants: Mapping[str, str],
        modes: Iterable[Mode] = MODES, say: Callable[[str], None] = print) -> list[Answer]:
    answers = []
    for mode in modes:
        for q in queries[:WARMUP]:
            timed_search(store, embedder, q, mode, tenants)
        began = time.perf_counter()
        for q in queries:
            answers.append(timed_search(store, embedder, q, mode, tenants))
        failed = sum(a.error is not None for a in answers if a.mode == mode.value)
        say(f"  {mode.value}: {len(queries)} queries in {time.perf_counter() - began:.1f} s"
            + (f", {failed} failed" if failed else ""))
    return answers


def timed_search(store: Store, embedder: Embedder, q: Query, mode: Mode,
                 tenants: Mapping[str, str]) -> Answer:
    now = store.now()
    t0 = time.perf_counter()
    try:
        found = search(store, embedder, request(q, mode, tenants))
    except Exception as e:  # a failed search is a finding: recorded, the run goes on
        ms = (time.perf_counter() - t0) * 1000
        return Answer(q.id, mode.value, (), (), ms, 0, 0, now,
                      error=f"{type(e).__name__}: {str(e)[:300]}")
    ms = (time.perf_counter() - t0) * 1000
    verdict = found.verdict
    return Answer(q.id, mode.value, tuple(f.id for f in found.results),
                  tuple(f.id for f in found.considered), ms, found.legal, found.matched, now,
                  found.depth, found.rescored, relevant=verdict is None or verdict.relevant,
                  best=None if verdict is None else verdict.best,
                  exact=0.0 if verdict is None else verdict.exact)


def percentile(values: Sequence[float], p: float) -> float:
    # Nearest rank: an observed latency, never an interpolation between two.
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)] if ordered else float("nan")


def illegal(q: Query, ids: Iterable[str], truth: Truth, now: datetime) -> list[str]:
    out = []
    for i in ids:
        v = truth.get((q.tenant, i))
        if v is None or not legal(q, v, now):
            out.append(i)
    return out


def hit(q: Query, ids: Sequence[str]) -> tuple[float, float, float]:
    """(recall@1, recall@5, reciprocal rank) of one answer."""
    want = set(q.expected)
    r1 = len(want & set(ids[:1])) / min(1, len(want))
    r5 = len(want & set(ids[:5])) / min(5, len(want))
    rank = next((n for n, i in enumerate(ids, start=1) if i in want), None)
    return r1, r5, 1 / rank if rank else 0.0


def summarise(rows: Sequence[tuple[Query, Answer]], truth: Truth) -> Result:
    scored = [hit(q, a.ids) for q, a in rows if q.expected]
    ms = [a.ms for _, a in rows if a.error is None]  # a failed search has no latency to show
    n = len(scored)
    return {
        "queries": len(rows), "scored": n,
        "recall@1": sum(s[0] for s in scored) / n if n else None,
        "recall@5": sum(s[1] for s in scored) / n if n else None,
        "mrr": sum(s[2] for s in scored) / n if n else None,
        "illegal": sum(len(illegal(q, a.ids, truth, a.now)) for q, a in rows),
        "illegal_considered": sum(len(illegal(q, a.considered, truth, a.now)) for q, a in rows),
        "p50_ms": percentile(ms, 50), "p95_ms": percentile(ms, 95),
        "p99_ms": percentile(ms, 99), "max_ms": max(ms) if ms else None,
        "mean_legal_set": sum(a.legal_set for _, a in rows) / len(rows) if rows else None,
        "mean_matched": sum(a.matched for _, a in rows) / len(rows) if rows else None,
        "max_depth": max((a.depth for _, a in rows), default=0),
        "deepened": sum(a.depth > per_leg(LIMIT) for _, a in rows),
        "rescored": sum(a.rescored > 0 for _, a in rows),
        "errors": sum(a.error is not None for _, a in rows),
    }


def score(queries: Sequence[Query], answers: Sequence[Answer], truth: Truth) -> Result:
    """Per mode, and per mode and category; the misses of each mode (query ids). The
    unanswerable questions (``bench.retrieval.unanswerable``) count only for illegal items and
    the abstention block (``bench.retrieval.abstention``): the other figures are the query
    set's, comparable with runs before them."""
    by_id = {q.id: q for q in queries}
    modes: dict[str, list[tuple[Query, Answer]]] = defaultdict(list)
    asked: dict[str, list[tuple[Query, Answer]]] = defaultdict(list)
    for a in answers:
        q = by_id[a.query]
        asked[a.mode].append((q, a))
        if not unanswerable(q):
            modes[a.mode].append((q, a))
    out: Result = {}
    for mode, rows in modes.items():
        cats: dict[str, list[tuple[Query, Answer]]] = defaultdict(list)
        for q, a in rows:
            cats[q.category].append((q, a))
        memories = [a.ms for q, a in rows if q.tenant != "sec" and a.error is None]
        out[mode] = {
            **summarise(rows, truth),
            # The memory queries alone: the filings' tenant-wide reads are another workload.
            "memories_p50_ms": percentile(memories, 50),
            "memories_p95_ms": percentile(memories, 95),
            "by_category": {c: summarise(r, truth) for c, r in sorted(cats.items())},
            "by_half": {h: summarise([(q, a) for q, a in rows if half(q) == h], truth)
                        for h in ("tuning", "held-out")},
            "missed_at_5": [q.id for q, a in rows if q.expected and hit(q, a.ids)[1] < 1],
            "illegal_items": [[q.id, i] for q, a in rows for i in illegal(q, a.ids, truth,
                                                                          a.now)][:50],
            "errors_seen": [[q.id, a.error] for q, a in rows if a.error][:20],
            "top3": {q.id: list(a.ids[:3]) for q, a in rows},
            "deepest": [[a.query, a.depth, round(a.ms)] for a in sorted(
                (a for _, a in rows), key=lambda a: -a.depth)[:10]],
            "abstention": abstention(asked[mode]),
        }
        out[mode]["illegal"] = sum(len(illegal(q, a.ids, truth, a.now)) for q, a in asked[mode])
        out[mode]["illegal_considered"] = sum(len(illegal(q, a.considered, truth, a.now))
                                              for q, a in asked[mode])
    return out


def examples(queries: Sequence[Query], answers: Sequence[Answer], mode: str,
             n: int = 12) -> list[Result]:
    """A few misses of ``mode``, with what came first instead (for the report's reading)."""
    by_id = {q.id: q for q in queries}
    out = []
    for a in answers:
        q = by_id[a.query]
        if a.mode == mode and q.expected and hit(q, a.ids)[1] < 1:
            out.append({"query": q.id, "category": q.category, "text": q.text,
                        "note": q.note, "expected": list(q.expected), "got": list(a.ids[:3])})
    return out[:n]
