"""``vintage stats`` says what a store holds for the tenant: subjects, concepts, facts by kind,
sources, events, the span of knowledge, and an embedded store's size; another tenant's
holdings are never counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.factories import run

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
