"""The languages bench (issue 40): recall@5 of the same memories and questions in English and
in Chinese (``bench.retrieval.chinese``), through the product's own write and search paths, by
embedder and mode.

One user per language holds the 32 personal topics' memories in an embedded store (remembered
as a user says them); each topic is asked by two paraphrases, so 64 questions per language,
split in halves by a hash of their text as the main bench splits its queries. A question is
answered when its topic's memory is among the first five results of a scoped search. Nothing
is cached between embedders: each run opens its own store.

    .venv/bin/python -m bench.retrieval.languages --embedder minilm --embedder e5

``--abstention FILE`` also asks each language's user the unanswerable set's questions about a
user (``unanswerable.jsonl``: 24 English and 18 Chinese texts, half of them near one of the 32
topics: the tea beside the coffee order), in the same language, and writes each search's
verdict record as ``bench.retrieval.abstention`` does, one run per embedder, so that
``python -m bench.retrieval.floors FILE --size languages`` chooses that embedder's floors
(docs/retrieval.md, "Calibrated scores and abstention"): the way an embedder too slow for the
10k-memory bench on a shared machine (e5) gets its floors, with MiniLM's on the same set as the
check of how far they lie from the 10k bench's.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import report
from bench.retrieval.chinese import PARALLEL
from bench.retrieval.queries import load as load_queries
from bench.retrieval.topics import TOPIC
from bench.retrieval.unanswerable import FILE as UNANSWERABLE
from vintage.graph.core.model import Scope
from vintage.graph.memory.gate import Decision, MemoryIn
from vintage.graph.memory.remember import remember
from vintage.graph.retrieval.embedder import Embedder, embedder_from_env
from vintage.graph.store.backends import open_store
from vintage.graph.store.protocol import Store
from vintage.queries.search.fusion import Mode
from vintage.queries.search.request import SearchRequest
from vintage.queries.search.run import search

MODES = (Mode.SEMANTIC, Mode.KEYWORD, Mode.HYBRID)
USER = "7"


def questions(language: str) -> list[tuple[str, str]]:
    """(question, topic key) in ``language`` ("en" or "zh")."""
    if language == "en":
        return [(q, key) for key in PARALLEL for q in TOPIC[key].asked]
    return [(q, key) for key, (_, _, asked) in PARALLEL.items() for q in asked]


def unanswerable(language: str) -> list[tuple[str, str]]:
    """(question, category) of the unanswerable set about a user, in ``language``, each text
    once (the set asks each in two scopes)."""
    wanted = f"({language})"
    return list(dict.fromkeys((q.text, q.category) for q in load_queries(UNANSWERABLE)
                              if list(q.scope) == ["user"] and q.category.endswith(wanted)))


def half(text: str) -> str:
    return ("tuning", "held-out")[hashlib.sha256(text.encode("utf-8")).digest()[0] % 2]


def load(store: Store, tenant: str, language: str) -> dict[str, str]:
    """Remember each topic's memory in ``language``; memory id by topic key."""
    ids = {}
    for n, (key, (english, chinese, _)) in enumerate(PARALLEL.items()):
        done = remember(store, MemoryIn.model_validate({
            "kind": "preference", "tenant": tenant, "subject": f"user:{USER}", "key": key,
            "value": english if language == "en" else chinese, "user": USER,
            "source_kind": "user_message", "source_id": f"msg-{n}",
            "observed_at": "2026-05-01T10:00:00Z", "owner": f"user:{USER}",
            "retention_reason": "bench: the user said it", "consent": True}),
            actor="bench:languages")
        if done.decision is not Decision.ACTIVE:
            raise SystemExit(f"{key} was not remembered: {done.reason}")
        ids[key] = str(done.memory_id)
    return ids


def measure(embedder: Embedder, language: str,
            records: dict[str, list[list[Any]]] | None = None) -> dict[str, Any]:
    """Recall@5 per mode and half; with ``records``, each search's verdict record appended per
    mode (``[id, half, answerable, best, exact, category]``), the unanswerable questions too."""
    with tempfile.TemporaryDirectory() as where:
        store = open_store(str(Path(where) / "store"))
        tenant = f"lang-{language}"
        ids = load(store, tenant, language)
        scope = Scope(tenant=tenant, keys={"user": USER})
        found: dict[str, dict[str, list[bool]]] = {m.value: {"tuning": [], "held-out": []}
                                                   for m in MODES}
        started = time.perf_counter()
        asked: list[tuple[str, str | None, str]] = [(t, k, "answerable")
                                                     for t, k in questions(language)]
        if records is not None:
            asked += [(t, None, c) for t, c in unanswerable(language)]
        for n, (text, key, category) in enumerate(asked):
            for mode in MODES:
                result = search(store, embedder, SearchRequest(text, scope, mode=mode, limit=5))
                v = result.verdict
                if records is not None and v is not None:
                    records.setdefault(mode.value, []).append(
                        [f"{language}{n:03d}", half(text), key is not None, v.best, v.exact,
                         category if key is None else f"answerable ({language})"])
                if key is not None:  # recall of the results as shown (a refusal finds none)
                    found[mode.value][half(text)].append(
                        ids[key] in [f.id for f in result.results])
        seconds = time.perf_counter() - started
        store.close()
    return {"seconds": round(seconds, 1), "recall@5": {
        mode: {"all": _share(halves["tuning"] + halves["held-out"]),
               **{h: _share(v) for h, v in halves.items()}}
        for mode, halves in found.items()}}


def _share(hits: list[bool]) -> float:
    return round(sum(hits) / len(hits), 3) if hits else 0.0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", action="append", default=None,
                        help="a VINTAGE_EMBEDDER choice (repeatable): minilm, minilm+bge, e5")
    parser.add_argument("--language", action="append", default=None, choices=("en", "zh"))
    parser.add_argument("--abstention", type=Path, default=None,
                        help="also ask the unanswerable questions and write the verdict "
                             "records here (one file per embedder: NAME.json)")
    args = parser.parse_args(argv)
    for name in args.embedder or ["minilm"]:
        embedder = embedder_from_env({"VINTAGE_EMBEDDER": name})
        records: dict[str, list[list[Any]]] | None = {} if args.abstention else None
        for language in args.language or ["en", "zh"]:
            print(json.dumps({"embedder": embedder.name, "language": language,
                              **measure(embedder, language, records)}), flush=True)
        if args.abstention is not None and records is not None:
            args.abstention.mkdir(parents=True, exist_ok=True)
            run = {**report.provenance(), "embedder": embedder.name, "sizes": {"languages": {
                "embedded": {"modes": {m: {"abstention": {"records": r}}
                                       for m, r in records.items()}}}}}
            (args.abstention / f"{name}.json").write_text(json.dumps(run, ensure_ascii=False),
                                                          encoding="utf-8")


if __name__ == "__main__":
    main()
