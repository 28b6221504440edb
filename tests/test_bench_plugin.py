"""bench/plugin: the same database restarted with Vintage's plugin jar in plugins/ (b) and
without it (c), the same searches asked in each (bench/README.md, "bench.plugin").

Server-free: how two legs' answers are compared and their latencies pooled, and the legs the
command takes. With a launcher of its own (a checkout, Java, Maven): a quick run that
alternates b and c on one home, the handshake using the plugin in b only, the answers equal.
"""

from __future__ import annotations

import json
import math
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.plugin import main as plugin_bench
from bench.plugin.legs import differences
from bench.plugin.report import pooled
from bench.retrieval.queries import load
from bench.retrieval.run import Answer
from vintage.graph.neo4j import launcher

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def answer(query: str, ids: tuple[str, ...], ms: float, mode: str = "hybrid",
           error: str | None = None) -> Answer:
    return Answer(query, mode, ids, ids, ms, len(ids), len(ids), NOW, error=error)


def test_two_legs_differ_where_a_search_returned_other_ids_another_order_or_failed() -> None:
    b = [answer("q1", ("a", "b"), 5), answer("q2", ("c",), 5), answer("q3", ("d",), 5),
         answer("q4", ("e",), 5)]
    c = [answer("q1", ("a", "b"), 9), answer("q2", ("c", "x"), 9), answer("q3", (), 9,
                                                                            error="Boom: x"),
         answer("q4", ("e",), 9, mode="keyword")]
    found = differences(b, c)
    assert [row[0] for row in found] == ["q2", "q3", "q4"]
    assert found[0][2:4] == [["c"], ["c", "x"]]
    assert found[1][5] == "Boom: x"
    assert found[2][3] is None  # q4 was never asked in hybrid in c
    assert differences(b, list(reversed(b))) == []


def test_every_leg_of_a_kind_is_pooled_and_b_over_c_below_one_means_the_plugin_is_faster(
) -> None:
    queries = load()
    memory = next(q for q in queries if q.tenant != "sec")
    filing = next(q for q in queries if q.tenant == "sec")
    legs = [[answer(memory.id, (), 10), answer(filing.id, (), 100)],
            [answer(memory.id, (), 40), answer(filing.id, (), 100)],
            [answer(memory.id, (), 20), answer(filing.id, (), 100)],
            [answer(memory.id, (), 40), answer(filing.id, (), 300, error="Timeout")]]
    got = pooled(queries, ["b", "c", "b", "c"], legs)["hybrid"]
    assert (got["memories"]["b_p95_ms"], got["memories"]["c_p95_ms"]) == (20, 40)
    assert got["memories"]["b/c_p95"] == 0.5
    assert got["sec"]["c_p50_ms"] == 100  # a failed search has no latency to pool
    # All of b: 10, 20, 100, 100; of c: 40, 40, 100 (nearest rank).
    assert (got["all"]["b_p50_ms"], got["all"]["c_p50_ms"], got["all"]["b_p95_ms"]) == (20, 40,
                                                                                       100)
    assert math.isnan(pooled(queries, ["b"], [[answer(memory.id, (), 1)]])["hybrid"]["sec"][
        "b_p50_ms"])


@pytest.mark.parametrize("legs", ["b,b", "c", "b,c,d"])
def test_the_legs_must_name_b_and_c_and_nothing_else(
        legs: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        plugin_bench.main(["--quick", "--legs", legs])
    assert refused.value.code == 2
    assert "--legs names b and c" in capsys.readouterr().err


@pytest.mark.launcher
def test_a_quick_run_alternates_the_jar_and_no_jar_on_one_home_and_both_answer_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(launcher.HOME_ENV, str(tmp_path / "home"))
    monkeypatch.delenv(launcher.PLUGINS_ENV, raising=False)
    out = tmp_path / "plugin.json"
    try:
        assert plugin_bench.main(["--quick", "--legs", "b,c", "--modes", "keyword,hybrid",
                                  "--no-profile", "--out", str(out)]) == 0
    finally:
        launcher.stop()
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["checks"] == {"illegal": 0, "failed_searches": 0, "failed_legs": 0,
                                "generator_mismatches": 0, "wrong_decisions": 0,
                                "b_c_differences": 0, "kinds_not_answered": []}
    assert [(leg["kind"], leg["procedures"]) for leg in result["legs"]] == [("b", True),
                                                                            ("c", False)]
    # The quick corpus is one memory tenant (acme; globex holds nothing) and the filings.
    columns = result["legs"][0]["columns"]
    assert columns["acme"] > 0 and columns["sec"] > 0 and columns["globex"] == 0
    assert result["differences"] == {"b1 vs c1": []}
    hybrid = result["pooled"]["hybrid"]["memories"]
    assert hybrid["b_p95_ms"] > 0 and hybrid["c_p95_ms"] > 0
    assert result["legs"][1]["modes"]["hybrid"]["recall@5"] >= 0.8
    # The bench leaves the plugins variable as it found it.
    assert launcher.PLUGINS_ENV not in os.environ
