"""``vintage stats`` says what a store holds for the tenant: subjects, concepts, facts by kind,
sources, events, the span of knowledge, and an embedded store's size; another tenant's
holdings are never counted."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.factories import run
from vintage.graph.sealing.sealed import Sealer, key_id
from vintage.graph.store.backends import open_store
from vintage.graph.store.capabilities import SETTINGS_TENANT, CountsHeld, known_now
from vintage.queries.lineage.stats import held_by_reads

KPIS = """\
subject,predicate,value,unit,period_start,period_end,source_id,available_at
PAY,us-gaap:Revenues,100,USD,2024-01-01,2024-03-31,er-q1,2024-04-25
PAY,kpi:TPV,4000,USD,2024-01-01,2024-03-31,er-q1,2024-04-25
SHOP,us-gaap:Revenues,50,USD,2024-01-01,2024-03-31,shop-q1,2024-05-02
SHOP,us-gaap:Revenues,55,USD,2024-01-01,2024-03-31,shop-fix,2024-06-01
"""


def test_stats_counts_what_the_tenant_holds_and_nothing_of_another_tenant(
    store_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = tmp_path / "kpis.csv"
    table.write_text(KPIS)
    code, _, err = run([*store_args, "ingest", "facts", str(table)], capsys, monkeypatch)
    assert code == 0, err
    if not store_args[1].startswith(("bolt:", "neo4j:")):  # a server's tenants are purged
        other = [*store_args[:3], f"{store_args[3]}-other"]  # by name: only the test's own
        code, _, err = run([*other, "ingest", "facts", str(table)], capsys, monkeypatch)
        assert code == 0, err
    code, out, err = run([*store_args, "stats", "--json"], capsys, monkeypatch)
    assert code == 0, err
    held = json.loads(out)
    # SHOP's revenue was corrected: the superseded version is history, not counted.
    assert {k: held[k] for k in ("subjects", "concepts", "facts", "by_kind", "sources")} == {
        "subjects": 2, "concepts": 2, "facts": 3, "by_kind": {"observation": 3},
        "sources": 2}
    assert held["events"] >= 1
    assert (held["first_known"], held["last_known"]) == ("2024-04-25T00:00:00+00:00",
                                                         "2024-06-01T00:00:00+00:00")
    code, out, err = run([*store_args, "stats"], capsys, monkeypatch)
    assert code == 0, err
    assert "  facts     3 known now (observation 3)" in out
    assert "  known from 2024-04-25 to 2024-06-01" in out
    if held["size_bytes"] is not None:  # an embedded store: its files
        assert held["size_bytes"] > 0 and "MB on disk" in out


def test_stats_of_every_tenant_is_a_row_each_as_a_table_json_and_csv(
    store_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest,
) -> None:
    table = tmp_path / "kpis.csv"
    table.write_text(KPIS)
    tenant = store_args[3]
    other = [*store_args[:3], f"{tenant}-other"]
    code, _, err = run([*store_args, "ingest", "facts", str(table)], capsys, monkeypatch)
    assert code == 0, err
    code, _, err = run([*other, "remember", "preference", "user:42", "shipping.preference",
                        "寄到公司, 三楼", "--source-id", "msg-1", "--source-kind", "user_message",
                        "--observed-at", "2026-05-01T10:00:00Z", "--owner", "user:42",
                        "--reason", "asked", "--user", "42"], capsys, monkeypatch)
    assert code == 0, err
    try:
        code, out, err = run([*store_args, "stats", "--all-tenants", "--json"], capsys,
                             monkeypatch)
        assert code == 0, err
        found = {h["tenant"]: h for h in json.loads(out)["tenants"]}
        if not store_args[1].startswith(("bolt:", "neo4j:")):  # a server holds others' too
            assert sorted(found) == [tenant, f"{tenant}-other"]
        mine, theirs = found[tenant], found[f"{tenant}-other"]
        assert (mine["facts"], mine["by_kind"], mine["subjects"]) == (
            3, {"observation": 3}, 2)
        assert (theirs["facts"], theirs["by_kind"], theirs["subjects"]) == (
            1, {"preference": 1}, 1)
        code, out, err = run([*store_args, "stats", "--all-tenants", "--format", "csv"], capsys,
                             monkeypatch)
        assert code == 0, err
        rows = {r["tenant"]: r for r in csv.DictReader(io.StringIO(out))}
        assert out.startswith("tenant,subjects,concepts,facts,by_kind,sources,events,"
                              "first_known,last_known,size_bytes\n")
        assert (rows[tenant]["facts"], rows[tenant]["by_kind"]) == ("3", "observation 3")
        assert rows[f"{tenant}-other"]["by_kind"] == "preference 1"
        code, out, err = run([*store_args, "stats", "--all-tenants"], capsys, monkeypatch)
        assert code == 0, err
        assert tenant in out and f"{tenant}-other" in out and "│" in out  # a table
        assert "寄到" not in out  # counts, never content
    finally:
        if store_args[1].startswith(("bolt:", "neo4j:")):  # the server's: wiped by name
            request.getfixturevalue("neo4j_driver_store").purge_tenant(f"{tenant}-other")


def test_stats_of_one_tenant_as_csv_is_its_header_and_one_row(
    store_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = tmp_path / "kpis.csv"
    table.write_text(KPIS)
    assert run([*store_args, "ingest", "facts", str(table)], capsys, monkeypatch)[0] == 0
    code, out, err = run([*store_args, "stats", "--format", "csv"], capsys, monkeypatch)
    assert code == 0, err
    (row,) = csv.DictReader(io.StringIO(out))
    assert (row["tenant"], row["facts"], row["first_known"]) == (
        store_args[3], "3", "2024-04-25T00:00:00+00:00")



def test_every_tenant_after_a_search_lists_tenants_not_the_stores_own_settings(
    store_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A first search records the store's embedder as an event of a reserved name: a setting of
    the store, not a tenant (its name is no valid tenant: listed, it failed the whole table)."""
    table = tmp_path / "kpis.csv"
    table.write_text(KPIS)
    assert run([*store_args, "ingest", "facts", str(table)], capsys, monkeypatch)[0] == 0
    code, _, err = run([*store_args, "search", "revenue"], capsys, monkeypatch)
    assert code == 0, err
    code, out, err = run([*store_args, "stats", "--all-tenants", "--json"], capsys, monkeypatch)
    assert code == 0, err
    found = [h["tenant"] for h in json.loads(out)["tenants"]]
    assert store_args[3] in found and SETTINGS_TENANT not in found
    if not store_args[1].startswith(("bolt:", "neo4j:")):  # a server holds others' too
        assert found == [store_args[3]]


def test_each_backend_counts_in_its_database_what_the_reads_compose(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``vintage stats`` counts in the database (``CountsHeld``: SQL, Cypher); its answer is the
    one composed from reading every fact known now, on a tenant holding what could tell them
    apart: restated and derived facts, a retracted source, sealed memories in two scopes, a
    candidate, a memory with a TTL, an erased memory."""
    args, tenant = store_args, store_args[3]
    said = ["--source-kind", "user_message", "--observed-at", "2026-05-01T10:00:00Z",
            "--owner", "user:42", "--reason", "asked"]
    steps = [
        ["demo"],
        ["retract", "--source", "0001652044-19-000015", "--reason", "test"],
        ["remember", "preference", "user:42", "shipping.preference", "寄到公司",
         "--source-id", "m1", "--user", "42", *said],
        ["remember", "preference", "user:43", "seat", "aisle", "--source-id", "m2",
         "--user", "43", *said],
        ["remember", "preference", "user:42", "plan", "gold", "--source-id", "m3", "--user",
         "42", "--source-kind", "agent_output", *said[2:]],  # a candidate
        ["remember", "task_state", "user:42", "trip.booking", "订好了酒店", "--source-id", "m4",
         "--user", "42", "--thread", "t1", "--ttl", "3600", *said],
        ["remember", "preference", "user:42", "door.code", "1234", "--source-id", "m5",
         "--user", "42", *said],
        ["forget", "--user", "42", "--subject", "user:42", "--key", "door.code", "--reason",
         "asked"],
    ]
    for step in steps:
        code, _, err = run([*args, *step], capsys, monkeypatch)
        assert code == 0, (step, err)
    store = open_store(args[1])
    try:
        assert isinstance(store, CountsHeld)
        counted = store.held(tenant)
        read = held_by_reads(store, tenant)
        # A backup restored after an erasure: the memory is in the database, its key is gone.
        seat = next(f for f in store.read(known_now(tenant).resolved(store.now()))
                    if f.predicate == "seat")
        sealer = getattr(store, "sealer", None)
        assert isinstance(sealer, Sealer)
        sealer.keys.destroy([key_id(tenant, seat.id)], store.now())
        shell = store.held(tenant)
        shell_read = held_by_reads(store, tenant)
    finally:
        store.close()
    assert counted == read
    # The tenant holds what the two could disagree on: memories of two kinds beside filings.
    assert counted.by_kind.keys() >= {"observation", "preference", "task_state"}
    assert counted.sources > 3
    # The erased shell is not counted, nor its source (m2 supports nothing else), by either.
    assert shell == shell_read
    assert (shell.facts, shell.sources) == (counted.facts - 1, counted.sources - 1)
