"""The scale benchmark keeps working: its synthetic companies are SEC-shaped files the real
parser takes, restating about 5% of what they report, and a tiny run on Neo4j measures every
figure the 1M-fact run reports, with the counts its data predicts, and leaves nothing behind."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench.scale import data as scale_data
from bench.scale import main as scale
from tests.neo4j_server import Neo4jTarget
from vintage.graph.core.kinds import Change
from vintage.graph.core.labels import FACT
from vintage.graph.neo4j import launcher
from vintage.graph.neo4j.store import Neo4jStore
from vintage.ingest.sec.companyfacts import plan, read_companyfacts
from vintage.ingest.sec.revisions import classify

COMPANIES = 10
FACTS = COMPANIES * scale_data.FACTS_PER_SUBJECT


def test_a_synthetic_company_is_a_companyfacts_file_whose_restatements_the_ingest_classifies(
    tmp_path: Path,
) -> None:
    written = scale_data.write_files(tmp_path, 40)
    planned = [plan(read_companyfacts(path)) for path in written.files]
    assert sum(len(p.facts) for p in planned) == written.rows
    assert [p.subject.id for p in planned[:2]] == ["SC00000", "SC00001"]
    changes = [change for p in planned for change in classify(p.revisions).values()]
    assert len(changes) == written.restated
    assert set(changes) == {Change.RESTATEMENT}
    observed = 40 * len(scale_data.CONCEPTS) * 4 * scale_data.YEARS
    assert 0.03 < written.restated / observed < 0.07
    # Comparatives: most rows repeat a period an earlier filing reported.
    assert written.rows > 1.6 * observed


@pytest.mark.neo4j
def test_a_tiny_run_reports_every_figure_with_the_counts_its_data_predicts(
    neo4j_target: Neo4jTarget, neo4j_driver_store: Neo4jStore, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    if neo4j_target.auth is not None:
        monkeypatch.setenv("NEO4J_USER", neo4j_target.auth[0])
        monkeypatch.setenv("NEO4J_PASSWORD", neo4j_target.auth[1])
    out = tmp_path / "scale.json"
    home = os.environ.get(launcher.HOME_ENV)
    assert scale.main(["--facts", str(FACTS), "--reads", "20", "--questions", "3",
                       "--repeat", "1", "--neo4j-uri", neo4j_target.uri,
                       "--out", str(out)]) == 0
    # Given a server, the bench leaves the environment alone: it once set the launcher's home
    # for the rest of the test process, and the suite's own server was then never stopped.
    assert os.environ.get(launcher.HOME_ENV) == home
    r = json.loads(out.read_text(encoding="utf-8"))
    gen, ingest, derived = r["generate"], r["ingest"], r["derived"]

    assert r["subjects"] == COMPANIES and r["shape_check"]["ok"]
    assert (ingest["rows"], ingest["created"], ingest["superseded"]) == (
        gen["rows"], gen["observed"], gen["restated"])
    assert ingest["revisions"] == {"restatement": gen["restated"]}
    assert ingest["rows_per_s"] > 0 and ingest["file_p50_ms"] <= ingest["file_p95_ms"]
    assert (derived["derived"], derived["on_restated_rate"]) == (36 * COMPANIES, 5 * COMPANIES)
    assert r["fact_versions"] == gen["observed"] + derived["derived"]

    raw = r["raw_unwind"]
    assert (raw["rows"], raw["facts"]) == (ingest["rows"], ingest["created"])
    assert r["ratio_vs_raw"] == pytest.approx(ingest["rows_per_s"] / raw["rows_per_s"])
    assert 0 < r["parse_plan"]["seconds"] < ingest["seconds"]

    reads = r["reads"]
    assert reads["reads"] == 20 and 0 < reads["p50_ms"] <= reads["p95_ms"] <= reads["max_ms"]
    assert reads["rows"] > 0
    q = r["questions"]
    assert q["cold"]["n"] == q["warm"]["n"] == 3 and q["unstable"] == 0 and q["answered"] > 0

    c = r["cascade"]
    assert c["ok"] and c["reached"] == c["expected"] == 5 * COMPANIES
    assert c["fates"] == {"closed": 5 * COMPANIES} and c["seconds"] > 0

    for phase in ("before", "loaded", "after_cascade"):
        heap = r[phase]["heap"]
        assert 0 < heap["used_mib"] <= heap["max_mib"], phase
        if neo4j_target.source == "launcher":  # the data directory is on this machine
            assert r[phase]["disk"]["databases_mib"] > 0, phase
    if neo4j_target.source == "launcher":
        assert r["loaded"]["disk"]["total_mib"] >= r["before"]["disk"]["total_mib"]

    assert r["purge_seconds"] >= 0
    with neo4j_driver_store.driver.session() as session:
        left = session.run(f"MATCH (f:{FACT} {{tenant: $t}}) RETURN count(f) AS n",
                           t=r["tenant"]).single()
    assert left is not None and left["n"] == 0

    printed = capsys.readouterr().out
    assert f"| {r['fact_versions']:,} | {COMPANIES} | {ingest['rows']:,} |" in printed
    assert scale.main(["--table", str(out)]) == 0
    assert scale.row(r) in capsys.readouterr().out
