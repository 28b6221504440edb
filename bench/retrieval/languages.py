"""The languages bench (issue 40): recall@5 of the same memories and questions in English and
in Chinese (``bench.retrieval.chinese``), through the product's own write and search paths, by
embedder and mode.

One user per language holds the 32 personal topics' memories in an embedded store (remembered
as a user says them); each topic is asked by two paraphrases, so 64 questions per language,
split in halves by a hash of their text as the main bench splits its queries. A question is
answered when its topic's memory is among the first five results of a scoped search. Nothing
is cached between embedders: each run opens its own store.

    .venv/bin/python -m bench.retrieval.languages --embedder minilm --embedder e5
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.retrieval.chinese import PARALLEL
from bench.retrieval.topics import TOPIC
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


def measure(embedder: Embedder, language: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as where:
        store = open_store(str(Path(where) / "store"))
        tenant = f"lang-{language}"
        ids = load(store, tenant, language)
        scope = Scope(tenant=tenant, keys={"user": USER})
        found: dict[str, dict[str, list[bool]]] = {m.value: {"tuning": [], "held-out": []}
                                                   for m in MODES}
        started = time.perf_counter()
        for text, key in questions(language):
            for mode in MODES:
                result = search(store, embedder, SearchRequest(text, scope, mode=mode, limit=5))
                found[mode.value][half(text)].append(ids[key] in
                                                     [f.id for f in result.results])
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
                        help="a VINTAGE_EMBEDDER choice (repeatable): minilm, e5")
    parser.add_argument("--language", action="append", default=None, choices=("en", "zh"))
    args = parser.parse_args(argv)
    for name in args.embedder or ["minilm"]:
        embedder = embedder_from_env({"VINTAGE_EMBEDDER": name})
        for language in args.language or ["en", "zh"]:
            print(json.dumps({"embedder": embedder.name, "language": language,
                              **measure(embedder, language)}), flush=True)


if __name__ == "__main__":
    main()
