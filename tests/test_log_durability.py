"""The log-replay store (``vintage.graph.embedded``: the reference model, and what `vintage store
migrate` reads) survives what a real machine does to it: a process killed in the middle of
its log write, two processes writing at once, an erasure killed during the rewrite, a damaged
line. Crashes are real ``kill -9`` of child processes; the store is then opened as a user would."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.factories import ACTOR, PinnedClock, batch, fact, memory, mine, source
from vintage.graph.core.asof import AsOf
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import all_time
from vintage.graph.embedded import log
from vintage.graph.embedded.codec import pack_vector
from vintage.graph.embedded.store import LOG_NAME, EmbeddedStore
from vintage.graph.memory.forget import forget
from vintage.graph.memory.remember import remember
from vintage.graph.retrieval.index import IndexEntry, index_tx
from vintage.graph.retrieval.terms import terms
from vintage.graph.writes.semantics import record

ROOT = Path(__file__).resolve().parents[1]
TENANT = "durable"

PER_BATCH = 800  # facts of 1 kB each: a log line of over 1 MB per batch
# A child that commits numbered batches of facts with large values (multi-megabyte log lines)
# and says "committed N" after each commit returns. With SLOW set, each log append writes half
# its line, says "mid-write", and sleeps: a kill then lands inside the write, deterministically.
WRITER = textwrap.dedent("""
    import os, sys, time
    from pathlib import Path
    from vintage.graph.embedded import log
    from vintage.graph.embedded.store import EmbeddedStore
    from datetime import UTC, datetime
    from vintage.graph.core.model import FactIn, Scope, SourceIn, Subject
    from vintage.graph.writes.semantics import Batch, record

    directory, start, count = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    PER_BATCH = int(sys.argv[4])
    if os.environ.get("SLOW"):
        real = log.append
        def slow(path, line):
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            os.write(fd, line[: len(line) // 2]); os.fsync(fd); os.close(fd)
            print("mid-write", flush=True); time.sleep(30)
        log.append = slow
    now = datetime(2026, 6, 1, tzinfo=UTC)
    store = EmbeddedStore.open(directory, lambda: now)
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


def _subjects(store: EmbeddedStore) -> Counter[str]:
    facts = store.read(AsOf(Scope(tenant=TENANT), valid=all_time()))
    return Counter(f.subject for f in facts)


def _fact_ops(directory: Path) -> Counter[str]:
    ops: Counter[str] = Counter()
    if not (directory / LOG_NAME).exists():  # killed before its first commit
        return ops
    chunk = log.read_from(directory / LOG_NAME, 0, 1)
    for entry in chunk.entries:
        ops.update(payload["id"] for op, payload in entry["ops"] if op == "fact")
    return ops


def test_a_writer_killed_inside_its_log_write_leaves_a_store_that_opens_with_every_commit(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    done: set[int] = set()
    for round_ in range(3):
        child = _child(tmp_path, 10 * round_, 1, SLOW="1")
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "mid-write"
        child.send_signal(signal.SIGKILL)
        child.communicate()
        with caplog.at_level(logging.WARNING, "vintage.embedded"):
            store = EmbeddedStore.open(tmp_path, PinnedClock())
        assert "moved aside" in caplog.text
        caplog.clear()
        assert set(_subjects(store)) == {f"C{i}" for i in done}  # the torn batch is not there
        ok = _child(tmp_path, 10 * round_ + 1, 1)
        out, _ = ok.communicate(timeout=60)
        done |= _committed(out)
    torn = sorted(tmp_path.glob(f"{LOG_NAME}.torn-*"))
    assert len(torn) == 3 and all(p.stat().st_size > 300_000 for p in torn)
    assert all(n == 1 for n in _fact_ops(tmp_path).values())


@pytest.mark.parametrize("delay", [0.3, 0.7, 1.2, 1.8])
def test_a_writer_killed_at_any_moment_loses_no_commit_and_duplicates_nothing(
    tmp_path: Path, delay: float,
) -> None:
    child = _child(tmp_path, 0, 20)
    time.sleep(delay)
    child.send_signal(signal.SIGKILL)
    out, _ = child.communicate()
    committed = _committed(out)
    store = EmbeddedStore.open(tmp_path, PinnedClock())
    seen = _subjects(store)
    assert {f"C{i}" for i in committed} <= set(seen)  # every reported commit is there
    assert set(seen.values()) <= {PER_BATCH}  # a batch is whole or absent
    assert all(n == 1 for n in _fact_ops(tmp_path).values())  # no fact written twice
    again = _child(tmp_path, 0, 20)  # the same batches again: idempotent, completes
    again.communicate(timeout=120)
    assert again.returncode == 0
    assert _subjects(EmbeddedStore.open(tmp_path, PinnedClock())) == Counter(
        {f"C{i}": PER_BATCH for i in range(20)})


def test_two_processes_writing_at_once_lose_nothing_and_write_nothing_twice(
    tmp_path: Path,
) -> None:
    writers = [_child(tmp_path, 0, 8), _child(tmp_path, 4, 8)]  # four batches in common
    for w in writers:
        w.communicate(timeout=180)
        assert w.returncode == 0
    assert _subjects(EmbeddedStore.open(tmp_path, PinnedClock())) == Counter(
        {f"C{i}": PER_BATCH for i in range(12)})
    assert all(n == 1 for n in _fact_ops(tmp_path).values())


def test_a_reader_picks_up_another_process_commit_on_its_next_read(tmp_path: Path) -> None:
    reader = EmbeddedStore.open(tmp_path, PinnedClock())
    assert _subjects(reader) == Counter()
    _child(tmp_path, 0, 2).communicate(timeout=60)
    assert _subjects(reader) == Counter({"C0": PER_BATCH, "C1": PER_BATCH})


def test_a_second_writer_waits_then_is_refused_naming_the_holder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = EmbeddedStore.open(tmp_path, PinnedClock())
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


def test_a_damaged_line_fails_the_open_by_line_and_offset_and_nothing_is_deleted(
    tmp_path: Path,
) -> None:
    store = EmbeddedStore.open(tmp_path, PinnedClock())
    for i in range(2):
        src = source(f"s{i}", "2018-05-01")
        record(store, Scope(tenant=TENANT), batch(fact(i, src.id), sources=(src,)), actor="t")
    path = tmp_path / LOG_NAME
    first, second = path.read_bytes().split(b"\n")[:2]
    damaged = first.replace(b'"tenant"', b'"tenanT"') + b"\n" + second + b"\n"
    path.write_bytes(damaged)
    with pytest.raises(log.LogCorrupt, match=rf"{LOG_NAME}: line 1, byte 0: checksum mismatch"):
        EmbeddedStore.open(tmp_path, PinnedClock())
    assert path.read_bytes() == damaged
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([LOG_NAME, log.LOCK_NAME])


def test_a_log_written_before_framing_still_opens(tmp_path: Path) -> None:
    store = EmbeddedStore.open(tmp_path, PinnedClock())
    src = source("s1", "2018-05-01")
    record(store, Scope(tenant=TENANT), batch(fact(7001, src.id), sources=(src,)), actor="t")
    path = tmp_path / LOG_NAME
    _, _, body = path.read_bytes().partition(b" ")
    path.write_bytes(body)  # the plain JSON line older versions wrote
    (again,) = EmbeddedStore.open(tmp_path, PinnedClock()).read(
        AsOf(Scope(tenant=TENANT), valid=all_time()))
    assert again.value == 7001


def test_an_erasure_killed_during_the_rewrite_finishes_on_the_next_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = PinnedClock()
    store = EmbeddedStore.open(tmp_path, clock)
    scope = Scope(tenant=TENANT)
    text = "ship to the secret office"
    remember(store, memory(scope, value=text), actor=ACTOR)
    # Its search entry too: the stemmed terms (JSON strings in the log) and the vector.
    (said,) = store.history(TENANT, memory(scope).assertion_key())
    vector = (0.6, 0.0, 0.8, 0.0)
    store.write(TENANT, lambda tx: index_tx(tx).put_index(
        [IndexEntry(said.id, tuple(terms(text)), vector, "test-4d")]))
    derived = [json.dumps(t).encode() for t in terms(text)] + [pack_vector(vector).encode()]
    assert all(d in (tmp_path / LOG_NAME).read_bytes() for d in [text.encode(), *derived])
    clock.advance(minutes=1)

    def killed(log_path: Path, tenant: str, fact_ids: set[str]) -> None:
        (log_path.with_name(log_path.name + ".scrub")).write_bytes(b"partial")
        raise SystemExit("killed during the rewrite")

    monkeypatch.setattr("vintage.graph.embedded.scrub._rewrite", killed)
    with pytest.raises(SystemExit):
        forget(store, mine(scope), subject="user:42", key="shipping.preference", actor=ACTOR,
               reason="erase request")
    assert (tmp_path / log.SCRUB_JOURNAL).exists()
    assert text.encode() in (tmp_path / LOG_NAME).read_bytes()  # what the crash left behind
    monkeypatch.undo()
    reopened = EmbeddedStore.open(tmp_path, clock)
    assert not (tmp_path / log.SCRUB_JOURNAL).exists()
    assert all(d not in p.read_bytes() for p in tmp_path.iterdir()
               for d in [text.encode(), *derived])
    assert [f.value for f in reopened.history(TENANT, memory(scope).assertion_key())] == [""]
