"""On Neo4j, a file's ingest lands whole or not at all: ``vintage ingest companyfacts`` killed
with ``kill -9`` at any point leaves every reader seeing none of the file or all of it, never a
part (docs/storage.md, "A file lands whole"). The crashes are real kills of a child process
running the command line against the test server; the file is then read as any reader would."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.neo4j_server import Neo4jTarget
from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import all_time
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.store.backends import system_clock

pytestmark = pytest.mark.neo4j

ROOT = Path(__file__).resolve().parents[1]
LPA = ROOT / "ingest" / "data" / "companyfacts" / "CIK0001997711_LPA.json.gz"

# ``vintage ingest companyfacts`` of one file in batches of 50 rows, saying "batch N" after each
# batch is written (not committed: the file is one transaction). With a STOP, it sleeps after
# that batch, so a kill lands there, inside the transaction, deterministically.
INGESTER = textwrap.dedent("""
    import os, sys, time
    import vintage.ingest.batches as batches
    real, stop, done = batches.record, int(os.environ.get("STOP") or 0), []
    def counted(*args, **kwargs):
        report = real(*args, **kwargs)
        done.append(report)
        print(f"batch {len(done)}", flush=True)
        if len(done) == stop: time.sleep(60)
        return report
    batches.record, batches.BATCH_SIZE = counted, 50
    from vintage.cli.main import main
    sys.argv = ["vintage", "--store", sys.argv[1], "--tenant", sys.argv[2], "ingest",
                "companyfacts", sys.argv[3]]
    main()
""")


def _ingest(target: Neo4jTarget, tenant: str, tmp_path: Path,
            stop: int = 0) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "STOP": str(stop),
           "VINTAGE_KEYS": str(tmp_path / "keys")}
    if target.auth is not None:
        env["NEO4J_USER"], env["NEO4J_PASSWORD"] = target.auth
    return subprocess.Popen([sys.executable, "-c", INGESTER, target.uri, tenant, str(LPA)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)


def _killed_after(target: Neo4jTarget, tenant: str, tmp_path: Path, batches: int,
                  *, held: bool) -> None:
    """Kill the ingest once it has written ``batches`` batches (``held``: while it sleeps
    there, before its commit; otherwise at once, racing whatever comes next)."""
    child = _ingest(target, tenant, tmp_path, stop=batches if held else 0)
    assert child.stdout is not None
    for n in range(1, batches + 1):
        assert child.stdout.readline().strip() == f"batch {n}"
    child.send_signal(signal.SIGKILL)
    child.communicate()
    assert child.returncode == -signal.SIGKILL


def _seen(store: Neo4jStore, tenant: str) -> tuple[int, int, int]:
    """What readers see of the tenant: facts at every valid time, ingest events, subjects."""
    facts = store.read(AsOf(Scope(tenant=tenant), valid=all_time()))
    return len(facts), len(store.events(tenant)), len(store.subjects(tenant))


def _settled(store: Neo4jStore, tenant: str) -> tuple[int, int, int]:
    """What readers see once the server has finished with a killed client's commit: a kill
    racing the commit can leave the server applying it after the client is gone, and the three
    reads of ``_seen`` are three queries, so one taken in that moment may straddle it (facts
    and events read before the commit, the subject after: (0, 0, 1), a tear of the reading,
    not of the file). Read until two readings a moment apart agree."""
    last = _seen(store, tenant)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = _seen(store, tenant)
        if now == last:
            return now
        last = now
    raise AssertionError(f"the tenant's contents still changing 30 s after the kill: {last}")


def test_an_ingest_killed_inside_its_file_leaves_nothing_and_killed_at_its_end_none_or_all(
    neo4j_target: Neo4jTarget, tenant: str, tmp_path: Path,
) -> None:
    # The ingest records at the real time: so does this reader (not the tests' pinned clock).
    store = Neo4jStore.connect(neo4j_target.uri, system_clock, auth=neo4j_target.auth)
    try:
        for batches in (1, 3, 9):  # early, later, most of the file written in its transaction
            _killed_after(neo4j_target, tenant, tmp_path, batches, held=True)
            assert _seen(store, tenant) == (0, 0, 0), f"killed after batch {batches}"
        whole = _ingest(neo4j_target, tenant, tmp_path)
        out, _ = whole.communicate(timeout=300)
        assert whole.returncode == 0
        written = out.count("batch ")
        all_of_it = _seen(store, tenant)
        # every fact of the file, an event per batch, its one company
        assert written > 9 and all_of_it[0] > 150 and all_of_it[1:] == (written, 1)
        # Killed as its last batch is written, racing the commit: the file in another tenant
        # is there whole or not at all (either is right; a part never is).
        other = f"{tenant}-race"
        try:
            _killed_after(neo4j_target, other, tmp_path, written, held=False)
            assert _settled(store, other) in {(0, 0, 0), all_of_it}
        finally:
            store.purge_tenant(other)
    finally:
        store.purge_tenant(tenant)
        store.close()
