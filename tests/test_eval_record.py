"""`vintage eval --record`: the summary is kept in the named store, in the named tenant, where
the service reads it (``GET /v1/eval/report``, docs/explorer.md); without a store and a tenant
to keep it in, it is a one-line refusal before anything runs."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.factories import run
from tests.test_eval import TWO_USERS
from vintage.graph.store.backends import open_store
from vintage.queries.eval import recorded


def test_a_recorded_evaluation_is_the_tenants_latest_report_with_the_printed_summary(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "one.yaml"
    path.write_text(TWO_USERS % "Lisbon", encoding="utf-8")
    store = str(tmp_path / "store")
    code, out, err = run(["--store", store, "--tenant", "acme", "--actor", "ci", "eval",
                          "--scenarios", str(path), "--rung", "engine", "--record", "--json"],
                         capsys, monkeypatch)
    assert code == 0, err
    opened = open_store(store)
    try:
        kept = recorded.latest(opened, "acme")
        assert recorded.latest(opened, "other") is None
    finally:
        opened.close()
    assert kept is not None and kept.actor == "ci"
    assert kept.summary == json.loads(out)
    # Stamped on the system clock, not on the scenarios' own time (the harness's clock).
    assert abs(datetime.now(UTC) - kept.at) < timedelta(minutes=10)


@pytest.mark.parametrize("where", [["--tenant", "acme"], ["--store", "STORE"]])
def test_record_without_a_store_and_a_tenant_is_refused_before_anything_runs(
        where: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VINTAGE_TENANT", raising=False)
    monkeypatch.delenv("VINTAGE_STORE", raising=False)
    given = [str(tmp_path / "store") if w == "STORE" else w for w in where]
    code, _, err = run([*given, "eval", "--rung", "none", "--record"], capsys, monkeypatch)
    assert code != 0 and "--record" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "store").exists()  # nothing opened, nothing written
