"""How to write a file whole or not at all: one transaction, or a plan first and then batches.

    python -m bench.ingest_whole_file --neo4j-uri bolt://127.0.0.1:7687 [--file PATH]

Ingests the largest bundled companyfacts file (NVIDIA, 26,903 rows) into fresh tenants three
ways and reports seconds and, on Neo4j, the largest heap a transaction of the run held
(``SHOW TRANSACTIONS``' ``estimatedUsedHeapMemory``, polled every 0.1 s):

* ``batches``: batches of 10,000 rows, one transaction each, nothing checked first (before
  issue 12: a row refused in a later batch left the earlier ones written);
* ``one transaction``: the whole file in one ``record``;
* ``plan, then batches``: the whole file planned in one read transaction, then the batches,
  one transaction each (Vintage on Neo4j until issue 39: a kill between two batches left the
  first ones written);
* ``plan, then one transaction``: ``vintage.ingest.batches.write_file``: the plan, then the
  batches inside one transaction (``whole``: what Vintage does on both backends since issue
  39); again into the same tenant, where every row is a repeat, for the cost of the plan on a
  store that holds the file.

The server's transaction pool is ``dbms.memory.transaction.total.max`` (70% of the heap: 537.6
MiB with the launcher's default 768m). Every tenant written is purged at the end. Results:
docs/semantics.md, "A file is written whole or not at all".
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import neo4j

from vintage.graph.core.model import Scope
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.store.backends import open_store
from vintage.graph.store.protocol import Store
from vintage.graph.writes.semantics import Batch, record
from vintage.ingest.batches import BATCH_SIZE, write_file
from vintage.ingest.bundled import COMPANYFACTS
from vintage.ingest.sec.companyfacts import Planned, plan, read_companyfacts

DATA = COMPANYFACTS
LARGEST = DATA / "CIK0001045810_NVDA.json.gz"
ACTOR = "bench.ingest_whole_file"


@contextmanager
def heap_peak(uri: str | None, peaks: list[int]) -> Iterator[None]:
    """Append the largest ``estimatedUsedHeapMemory`` a transaction reached while inside."""
    if uri is None:
        yield
        return
    stop = threading.Event()
    seen = [0]

    def poll() -> None:
        with neo4j.GraphDatabase.driver(uri, auth=None) as driver, driver.session() as s:
            while not stop.is_set():
                for r in s.run("SHOW TRANSACTIONS YIELD estimatedUsedHeapMemory AS h"):
                    seen[0] = max(seen[0], r["h"] or 0)
                time.sleep(0.1)

    thread = threading.Thread(target=poll)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        peaks.append(seen[0])


def batches(store: Store, scope: Scope, p: Planned) -> None:
    for start in range(0, len(p.facts), BATCH_SIZE):
        chunk = p.facts[start:start + BATCH_SIZE]
        used = sorted({str(f.source) for f in chunk})
        record(store, scope, Batch([p.subject] if start == 0 else [],
                                   [p.sources[s] for s in used], chunk), actor=ACTOR)


def whole(store: Store, scope: Scope, p: Planned) -> None:
    record(store, scope, Batch([p.subject], list(p.sources.values()), p.facts), actor=ACTOR)


class _Separate:
    """``store`` without ``whole``: ``write_file`` commits each batch on its own."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        if name == "whole":
            raise AttributeError(name)
        return getattr(self._store, name)


def planned_first(path: Path, *, separate: bool = False,
                  ) -> Callable[[Store, Scope, Planned], None]:
    def run(store: Store, scope: Scope, p: Planned) -> None:
        target = cast(Store, _Separate(store)) if separate else store
        write_file(target, scope, path, subjects=[p.subject], sources=p.sources,
                   facts=p.facts, origins=p.origins, actor=ACTOR)
    return run


def measure(store: Store, uri: str | None, path: Path) -> list[tuple[str, float, int]]:
    p = plan(read_companyfacts(path), now=store.now())
    ways = [("batches", batches), ("one transaction", whole),
            ("plan, then batches", planned_first(path, separate=True)),
            ("plan, then one transaction", planned_first(path))]
    rows, tenants = [], []
    for name, way in [*ways, ("plan, then one transaction: again", planned_first(path))]:
        if not name.endswith("again"):
            tenants.append(f"bench-whole-{uuid.uuid4().hex[:8]}")
        peaks: list[int] = []
        started = time.perf_counter()
        with heap_peak(uri, peaks):
            way(store, Scope(tenant=tenants[-1]), p)
        rows.append((name, time.perf_counter() - started, peaks[0] if peaks else 0))
    if isinstance(store, Neo4jStore):
        for tenant in tenants:
            store.purge_tenant(tenant)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--neo4j-uri", help="a running Neo4j (default: the embedded store)")
    parser.add_argument("--store", default=None, help="embedded store directory (a temp one)")
    parser.add_argument("--file", type=Path, default=LARGEST)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        uri = args.neo4j_uri or args.store or str(Path(tmp) / "store")
        store = open_store(uri)
        try:
            rows = measure(store, args.neo4j_uri, args.file)
        finally:
            store.close()
    print(f"{args.file.name} on {'Neo4j' if args.neo4j_uri else 'the embedded store'}")
    print("| way | seconds | largest transaction heap (MiB) |\n|---|---:|---:|")
    for name, seconds, peak in rows:
        print(f"| {name} | {seconds:.1f} | {peak / 2**20:.0f} |")


if __name__ == "__main__":
    main()
