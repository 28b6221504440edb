"""A file is written whole or not at all (issue 12, point 4): a row the store refuses, found past
the first batch of 10,000 rows, leaves nothing of its file behind, on both backends and through
both ingest commands; the error names the file, the row and the reason; fixed, the file
completes.

Each case first records one small file (the store's prior state), then offers a generated file of
10,001 rows whose last row, by availability, is refused against that state: an out-of-order
correction (an older source that disagrees with the version the store holds), or a source id
the store holds with other attributes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import closing
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.factories import run
from vintage.graph.core.asof import AsOf
from vintage.graph.core.kinds import Status
from vintage.graph.core.model import FactIn, Scope, SourceIn, Subject
from vintage.graph.core.temporal import all_time, parse_instant
from vintage.graph.store.backends import open_store
from vintage.graph.store.capabilities import WholeWrites
from vintage.graph.store.protocol import Store
from vintage.graph.writes.semantics import Batch, record
from vintage.ingest.batches import BATCH_SIZE
from vintage.ingest.facts_table import IngestError, ingest_table

ROWS = BATCH_SIZE  # rows before the refused one: the whole first batch
CSV_HEADER = "subject,predicate,value,unit,period_start,period_end,source_id,available_at,form"
FIRST_DAY = date(1990, 1, 1)
Census = tuple[int, int, int, int]  # facts, sources, subjects, events of the tenant

# (reason, last row as stored before, last row of the file refused, that row fixed)
CSV_CASES = {
    "out-of-order correction": (
        "ACME,kpi:Late,1,USD,2024-01-01,2024-03-31,s-late,2025-01-01,10-Q",
        "ACME,kpi:Late,2,USD,2024-01-01,2024-03-31,s-older,2024-12-01,10-Q",
        "ACME,kpi:Late,2,USD,2024-01-01,2024-03-31,s-older,2025-02-01,10-Q"),
    "source recorded with other attributes": (
        "ACME,kpi:Late,1,USD,2024-01-01,2024-03-31,s-late,2025-01-01,10-Q",
        "ACME,kpi:Other,3,USD,2024-01-01,2024-03-31,s-late,2025-01-01,10-K",
        "ACME,kpi:Other,3,USD,2024-01-01,2024-03-31,s-late,2025-01-01,10-Q"),
}
REASON_WORDS = {"out-of-order correction": "out-of-order corrections are refused",
                "source recorded with other attributes": "already recorded with other attributes"}
# Once fixed: (facts the file adds that are current now, sources the tenant then holds). The
# fixed correction supersedes the version held before; the other row is a new assertion.
FIXED = {"out-of-order correction": (ROWS, 3),
         "source recorded with other attributes": (ROWS + 1, 2)}


def _day(i: int) -> str:
    return (FIRST_DAY + timedelta(days=i)).isoformat()


def csv_file(path: Path, *last: str, bulk: bool = True) -> Path:
    """``ROWS`` instants of kpi:Daily from one source (when ``bulk``), then ``last``."""
    rows = [f"ACME,kpi:Daily,{i},USD,,{_day(i)},s-bulk,2024-06-01,10-Q" for i in range(ROWS)]
    path.write_text("\n".join([CSV_HEADER, *(rows if bulk else []), *last]) + "\n")
    return path


def _row(end: str, val: int, accn: str, filed: str, form: str = "10-Q",
         start: str | None = None) -> dict[str, Any]:
    return {**({"start": start} if start else {}), "end": end, "val": val, "accn": accn,
            "form": form, "filed": filed}


LATE = {"start": "2024-01-01", "end": "2024-03-31"}
A_LATE, A_OLDER, A_BULK = "0000000001-25-000001", "0000000001-24-000009", "0000000001-24-000001"
# (reason, last row as stored before, last row refused, fixed): (concept, row)
CF_CASES = {
    "out-of-order correction": (
        ("Late", _row(val=1, accn=A_LATE, filed="2025-01-01", **LATE)),
        ("Late", _row(val=2, accn=A_OLDER, filed="2024-12-01", **LATE)),
        ("Late", _row(val=2, accn=A_OLDER, filed="2025-02-01", **LATE))),
    "source recorded with other attributes": (
        ("Late", _row(val=1, accn=A_LATE, filed="2025-01-01", **LATE)),
        ("Other", _row(val=3, accn=A_LATE, filed="2025-01-01", form="10-K", **LATE)),
        ("Other", _row(val=3, accn=A_LATE, filed="2025-01-01", **LATE))),
}


def companyfacts_file(path: Path, last: tuple[str, dict[str, Any]], bulk: bool = True) -> Path:
    concepts: dict[str, Any] = {}
    if bulk:
        concepts["Daily"] = {"units": {"USD": [_row(_day(i), i, A_BULK, "2024-06-01")
                                               for i in range(ROWS)]}}
    concepts.setdefault(last[0], {"units": {"USD": []}})["units"]["USD"].append(last[1])
    path.write_text(json.dumps({"cik": 1, "entityName": "Acme", "facts": {"us-gaap": concepts}}))
    return path


Files = Callable[[Path, str], tuple[Path, Path, Path, str]]


def csv_files(tmp: Path, reason: str) -> tuple[Path, Path, Path, str]:
    before, refused, fixed = CSV_CASES[reason]
    return (csv_file(tmp / "before.csv", before, bulk=False),
            csv_file(tmp / "kpis.csv", refused), csv_file(tmp / "kpis_fixed.csv", fixed),
            f"row {ROWS + 2}, field '{'available_at' if 'order' in reason else 'source_id'}'")


def companyfacts_files(tmp: Path, reason: str) -> tuple[Path, Path, Path, str]:
    before, refused, fixed = CF_CASES[reason]
    where = f"facts.us-gaap.{refused[0]}.units[USD][0]"
    return (companyfacts_file(tmp / "before.json", before, bulk=False),
            companyfacts_file(tmp / "acme.json", refused),
            companyfacts_file(tmp / "acme_fixed.json", fixed),
            f"row {ROWS + 1}, field '{where}.{'filed' if 'order' in reason else 'accn'}'")


COMMANDS: dict[str, Files] = {"facts": csv_files, "companyfacts": companyfacts_files}


def census(store_args: list[str]) -> Census:
    """What the tenant holds: facts (every status, now), sources, subjects, events."""
    uri, tenant = store_args[1], store_args[3]
    with closing(open_store(uri)) as store:
        facts = store.read(AsOf(Scope(tenant=tenant), statuses=frozenset(Status)))
        ids = ["s-late", "s-older", "s-bulk", A_LATE, A_OLDER, A_BULK]
        return (len(facts), len(store.sources(tenant, ids)), len(store.subjects(tenant)),
                len(store.events(tenant)))


@pytest.fixture
def ingest(store_args: list[str], capsys: pytest.CaptureFixture[str],
           monkeypatch: pytest.MonkeyPatch) -> Callable[[str, Path], tuple[int, str, str]]:
    def call(command: str, path: Path) -> tuple[int, str, str]:
        return run([*store_args, "ingest", command, str(path)], capsys, monkeypatch)
    return call


@pytest.mark.parametrize("reason", sorted(CSV_CASES))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_file_refused_at_row_10_001_writes_nothing_and_completes_once_fixed(
    command: str, reason: str, store_args: list[str], tmp_path: Path,
    ingest: Callable[[str, Path], tuple[int, str, str]],
) -> None:
    before, refused, fixed, where = COMMANDS[command](tmp_path, reason)
    assert ingest(command, before)[0] == 0
    held = census(store_args)

    code, out, err = ingest(command, refused)

    assert (code, out) == (2, "")
    assert census(store_args) == held  # 0 rows written: no fact, source, subject or event
    flat = " ".join(err.split())
    assert flat.startswith(f"error: {refused}: {where}: ")
    assert REASON_WORDS[reason] in flat
    assert flat.endswith("nothing from this file was written")

    assert ingest(command, refused)[0] == 2  # refused again, and still nothing written
    assert census(store_args) == held
    code, _, err = ingest(command, fixed)
    assert code == 0, err
    facts, sources, subjects, events = census(store_args)
    added, named = FIXED[reason]
    assert (facts, sources, subjects) == (held[0] + added, named, 1)
    assert events == held[3] + 2  # the fixed file's two batches


def test_a_write_made_between_the_check_and_a_later_batch_is_taken_back_with_the_file(
    store: Store, scope: Scope, tmp_path: Path,
) -> None:
    """The one way a refusal can follow a write: a write commits, between the check and the
    second batch, the version that the file's last row now contradicts. Every backend writes
    the file as one transaction (``WholeWrites``; on Neo4j since issue 39, docs/storage.md):
    made in this thread, that write is part of it, and the refusal takes back everything, it
    included, naming the row."""
    _, refused, _ = CSV_CASES["out-of-order correction"]
    path = csv_file(tmp_path / "kpis.csv", refused)
    later = SourceIn(id="s-late", kind="filing", available_at=parse_instant("2025-01-01"))
    q1 = (parse_instant("2024-01-01"), parse_instant("2024-04-01"))

    def meanwhile(done: int, total: int) -> None:
        if done == ROWS:  # the first batch is written
            record(store, scope, Batch([Subject(id="ACME", kind="company")], [later], [FactIn(
                subject="ACME", predicate="kpi:Late", value=1, unit="USD", valid_from=q1[0],
                valid_to=q1[1], source="s-late")]), actor="another writer")

    assert isinstance(store, WholeWrites)
    with pytest.raises(IngestError) as refusal:
        ingest_table(store, scope, path, "test", progress=meanwhile)
    assert (refusal.value.written, refusal.value.problems[0][:2]) == (
        0, (ROWS + 2, "available_at"))
    assert store.read(AsOf(scope, valid=all_time())) == []


def test_with_recompute_a_file_is_one_transaction_refused_whole_and_written_whole(
    store_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Recomputing can refuse only while writing (a formula on a corrected input): the file
    is then one transaction, so a refusal anywhere still leaves nothing."""
    before, refused, fixed, where = csv_files(tmp_path, "out-of-order correction")

    def ingest(path: Path) -> tuple[int, str, str]:
        return run([*store_args, "ingest", "facts", str(path), "--recompute"], capsys,
                   monkeypatch)

    assert ingest(before)[0] == 0
    held = census(store_args)
    code, _, err = ingest(refused)
    assert (code, census(store_args)) == (2, held)
    assert f"{where}: " in " ".join(err.split())
    assert ingest(fixed)[0] == 0
    assert census(store_args) == (held[0] + ROWS, 3, 1, held[3] + 1)  # one event: one write
