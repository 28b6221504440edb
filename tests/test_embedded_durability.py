"""The embedded store (SQLite) survives what a real machine does to it: a process killed at any
moment of an ingest, or inside its commit, two processes writing at once, a second writer
while one holds the store. Crashes are real ``kill -9`` of child processes; the store is then
opened as a user would. A batch (a file's ingest) is there whole or not at all."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.factories import PinnedClock, batch, fact, memory, source
from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import all_time
from vintage.graph.embedded import log
from vintage.graph.sealing.keyfile import FileKeyStore
from vintage.graph.sqlite.store import LegacyStore, SqliteStore
from vintage.graph.store.backends import key_path, open_store, system_clock
from vintage.graph.writes.semantics import record

ROOT = Path(__file__).resolve().parents[1]
TENANT = "durable"
PER_BATCH = 800  # facts of 1 kB each: a transaction of over 1 MB per batch

# A child that commits numbered batches of facts and says "committed N" after each commit
# returns. With SLOW set, each batch writes its facts, says "mid-write" and sleeps before its
# commit: a kill then lands inside the transaction, deterministically.
WRITER = textwrap.dedent("""
    import os, sys, time
    from pathlib import Path
    from datetime import UTC, datetime
    from vintage.graph.sqlite.store import SqliteStore
    from vintage.graph.sqlite.tx import SqliteTx
    from vintage.graph.core.model import FactIn, Scope, SourceIn, Subject
    from vintage.graph.writes.semantics import Batch, record

    directory, start, count = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    PER_BATCH = int(sys.argv[4])
    if os.environ.get("SLOW"):
        real = SqliteTx.create_facts
        def slow(self, facts):
            real(self, facts)
            print("mid-write", flush=True); time.sleep(30)
        SqliteTx.create_facts = slow
    now = datetime(2026, 6, 1, tzinfo=UTC)
    store = SqliteStore.open(directory, lambda: now)
    scope = Scope(tenant="durable")
    big = "x" * 1000
    q1 = (datetime(2018, 1, 1, tzinfo=UTC), datetime(2018, 4, 1, tzinfo=UTC))
    for i in range(start, start + count):
        src = SourceIn(id=f"s{i}", kind="filing", available_at=datetime(2018, 5, 1, tzinfo=UTC))
        facts = [FactIn(subject=f"C{i}", predicate=f"P{j}", value=f"{big}{i}-{j}", unit="USD",
                        valid_from=q1[0], valid_to=q1[1], source=src.id)
                 for j in range(PER_BATCH)]
        record(store, scope, Batch(subjects=[Subject(id=f"C{i}", kind="company")],
                                   sources=[src], facts=facts), actor="child")
        print(f"committed {i}", flush=True)
""")


def _child(directory: Path, start: int, count: int, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(directory), str(start), str(count), str(PER_BATCH)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env}, stdout=subprocess.PIPE, text=True)


def _committed(out: str) -> set[int]:
    return {int(line.split()[1]) for line in out.splitlines() if line.startswith("committed")}


def _subjects(store: SqliteStore) -> Counter[str]:
    facts = store.read(AsOf(Scope(tenant=TENANT), valid=all_time()))
    return Counter(f.subject for f in facts)


def _versions(store: SqliteStore) -> Counter[str]:
    """Every fact version of the tenant, by key: none may be there twice."""
    facts = store.read(AsOf(Scope(tenant=TENANT), valid=all_time()))
    return Counter(f.key for f in facts)


def test_a_writer_killed_inside_its_transaction_leaves_nothing_of_it(tmp_path: Path) -> None:
    done: set[int] = set()
    for round_ in range(3):
        child = _child(tmp_path, 10 * round_, 1, SLOW="1")
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "mid-write"
        child.send_signal(signal.SIGKILL)
        child.communicate()
        store = SqliteStore.open(tmp_path, PinnedClock())
        assert set(_subjects(store)) == {f"C{i}" for i in done}  # the killed batch is absent
        store.close()
        ok = _child(tmp_path, 10 * round_ + 1, 1)
        out, _ = ok.communicate(timeout=60)
        assert ok.returncode == 0
        done |= _committed(out)
    assert len(done) == 3


@pytest.mark.parametrize("delay", [0.3, 0.7, 1.2, 1.8])
def test_a_writer_killed_at_any_moment_loses_no_commit_and_leaves_every_batch_whole(
    tmp_path: Path, delay: float,
) -> None:
    child = _child(tmp_path, 0, 20)
    time.sleep(delay)
    child.send_signal(signal.SIGKILL)
    out, _ = child.communicate()
    committed = _committed(out)
    store = SqliteStore.open(tmp_path, PinnedClock())
    seen = _subjects(store)
    assert {f"C{i}" for i in committed} <= set(seen)  # every reported commit is there
    assert set(seen.values()) <= {PER_BATCH}  # a batch is whole or absent
    assert set(_versions(store).values()) <= {1}  # no fact written twice
    again = _child(tmp_path, 0, 20)  # the same batches again: idempotent, completes
    again.communicate(timeout=120)
    assert again.returncode == 0
    assert _subjects(store) == Counter({f"C{i}": PER_BATCH for i in range(20)})


def test_two_processes_writing_at_once_lose_nothing_and_write_nothing_twice(
    tmp_path: Path,
) -> None:
    writers = [_child(tmp_path, 0, 8), _child(tmp_path, 4, 8)]  # four batches in common
    for w in writers:
        w.communicate(timeout=180)
        assert w.returncode == 0
    store = SqliteStore.open(tmp_path, PinnedClock())
    assert _subjects(store) == Counter({f"C{i}": PER_BATCH for i in range(12)})
    assert set(_versions(store).values()) == {1}


def test_a_reader_picks_up_another_process_commit_on_its_next_read(tmp_path: Path) -> None:
    reader = SqliteStore.open(tmp_path, PinnedClock())
    assert _subjects(reader) == Counter()
    _child(tmp_path, 0, 2).communicate(timeout=60)
    assert _subjects(reader) == Counter({"C0": PER_BATCH, "C1": PER_BATCH})


def test_a_read_in_another_thread_waits_for_no_write_and_sees_the_last_commit(
    tmp_path: Path,
) -> None:
    """A long write (a whole file) holds up no reader of the same store: ``vintage serve``
    answers reads while an ingest job writes."""
    store = SqliteStore.open(tmp_path, PinnedClock())
    scope = Scope(tenant=TENANT)
    s1, s2 = source("s1", "2018-05-01"), source("s2", "2018-05-01")
    record(store, scope, batch(fact(1, s1.id), sources=(s1,)), actor="t")
    inside, release = threading.Event(), threading.Event()

    def long_write(tx: object) -> None:
        record(store, scope, batch(fact(2, s2.id, subject="MSFT"), sources=(s2,),
                                   subjects=("MSFT",)), actor="t")  # a write inside the write
        inside.set()
        release.wait(10)

    writer = threading.Thread(target=lambda: store.write(TENANT, long_write))
    writer.start()
    try:
        assert inside.wait(10)
        started = time.monotonic()
        assert _subjects(store) == Counter({"GOOGL": 1})  # the last commit, not the write's
        assert time.monotonic() - started < 5
    finally:
        release.set()
        writer.join()
    assert _subjects(store) == Counter({"GOOGL": 1, "MSFT": 1})


def test_a_second_writer_waits_then_is_refused_naming_the_holder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = SqliteStore.open(tmp_path, PinnedClock())
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; "
         "from vintage.graph.embedded import log\nwith log.writer_lock(Path(sys.argv[1]), 5):\n"
         "    print('held', flush=True); time.sleep(30)", str(tmp_path)],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        monkeypatch.setenv(log.LOCK_TIMEOUT_ENV, "0.3")
        src = source("s1", "2018-05-01")
        with pytest.raises(log.StoreLocked, match=f"written by process {holder.pid}; waited 0.3"):
            record(store, Scope(tenant=TENANT), batch(fact(1, src.id), sources=(src,)),
                   actor="t")
    finally:
        holder.kill()
        holder.communicate()
    assert _subjects(store) == Counter()  # nothing of the refused write


def test_a_store_in_the_old_log_format_is_refused_naming_the_migration(tmp_path: Path) -> None:
    (tmp_path / log.LOG_NAME).write_bytes(b"")
    with pytest.raises(LegacyStore, match=r"old log format: convert it once with `vintage "
                                          r"store migrate`"):
        open_store(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == [log.LOG_NAME]  # nothing written


# ``vintage ingest companyfacts`` of one file in batches of 50 rows, saying "batch" after each;
# slowed, it sleeps after the third: a kill then lands after three batches were written, inside
# the file's one transaction.
INGESTER = textwrap.dedent("""
    import sys, time
    import vintage.ingest.batches as batches
    real, slowly, done = batches.record, len(sys.argv) > 3, []
    def slow(*args, **kwargs):
        report = real(*args, **kwargs)
        done.append(report)
        print("batch", flush=True)
        if slowly and len(done) == 3: time.sleep(30)
        return report
    batches.record, batches.BATCH_SIZE = slow, 50
    from vintage.cli.main import main
    sys.argv = ["vintage", "--store", sys.argv[1], "--tenant", "sec", "ingest", "companyfacts",
                sys.argv[2]]
    main()
""")
LPA = ROOT / "ingest" / "data" / "companyfacts" / "CIK0001997711_LPA.json.gz"


def test_an_ingest_killed_between_its_batches_leaves_nothing_of_the_file(tmp_path: Path) -> None:
    def ingest(*slow: str) -> subprocess.Popen[str]:
        return subprocess.Popen([sys.executable, "-c", INGESTER, str(tmp_path), str(LPA), *slow],
                                cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                                stdout=subprocess.PIPE, text=True)

    killed = ingest("slow")
    assert killed.stdout is not None
    for _ in range(3):  # three batches written inside the file's transaction
        assert killed.stdout.readline().strip() == "batch"
    killed.send_signal(signal.SIGKILL)
    killed.communicate()
    every = AsOf(Scope(tenant="sec"), valid=all_time())
    store = SqliteStore.open(tmp_path, system_clock)  # the ingest records at the real time
    assert store.read(every) == [] and store.events("sec") == []
    whole = ingest()
    out, _ = whole.communicate(timeout=120)
    assert whole.returncode == 0 and out.count("batch") > 3
    assert len(store.read(every)) > 150  # the file, whole


REMEMBERER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from vintage.graph.store.backends import open_store
    from vintage.graph.memory.gate import MemoryIn
    from vintage.graph.memory.remember import remember

    store, who, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    opened = open_store(store)
    for i in range(count):
        m = MemoryIn.model_validate({
            "kind": "preference", "tenant": "durable", "subject": "user:42",
            "key": "shipping.preference", "value": f"{who} {i}", "user": "42",
            "source_kind": "user_message", "source_id": f"{who}-{i}",
            "observed_at": f"2026-05-01T10:{i:02d}:00Z", "owner": "user:42",
            "retention_reason": "asked"})
        print(remember(opened, m, actor=who).decision.value, flush=True)
""")


def test_two_processes_remembering_one_key_lose_no_write_without_trace(tmp_path: Path) -> None:
    store = tmp_path / "store"
    writers = [subprocess.Popen(
        [sys.executable, "-c", REMEMBERER, str(store), who, "12"], cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, text=True)
        for who in ("a", "b")]
    decisions: Counter[str] = Counter()
    for w in writers:
        out, _ = w.communicate(timeout=180)
        assert w.returncode == 0
        decisions.update(out.split())
    reopened = SqliteStore.open(store, PinnedClock(), keys=FileKeyStore(key_path(str(store))))
    events = [e for e in reopened.events("durable") if e.details.get("decision")]
    # Every write is accounted for: stored as a version, or refused with an audited decision.
    assert sum(decisions.values()) == len(events) == 24
    stored = reopened.history("durable", memory(Scope(tenant="durable")).assertion_key())
    assert len(stored) == decisions["active"]
    assert {str(f.value) for f in stored} <= {f"{w} {i}" for w in "ab" for i in range(12)}
