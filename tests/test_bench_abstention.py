"""The abstention figures of the retrieval bench (issue 40): the unanswerable questions are the
ones their generator makes, in English and Chinese, with no expected answer; the floor script
chooses, on the tuning half only, the highest floor that refuses no answerable question, and
reports what each half then says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.retrieval import floors
from bench.retrieval.queries import half, load, render
from bench.retrieval.unanswerable import FILE, build


def test_the_unanswerable_file_is_its_generators_in_english_and_chinese_near_topic_or_not(
) -> None:
    made = build()
    assert FILE.read_text(encoding="utf-8") == render(made)
    assert all(not q.expected for q in made)
    cats = {q.category for q in made}
    assert cats == {"unanswerable (en)", "unanswerable (zh)", "unanswerable near-topic (en)",
                    "unanswerable near-topic (zh)"}
    assert {half(q) for q in made} == {"tuning", "held-out"}
    asked = {(q.tenant, json.dumps(q.scope, sort_keys=True)) for q in load()}
    assert all(q.tenant == "sec" or (q.tenant, json.dumps(q.scope, sort_keys=True)) in asked
               for q in made)  # each in a scope the query set asks in


def record(n: int, part: str, answerable: bool, best: float | None,
           exact: float = 0.0) -> list[object]:
    return [f"q{n}", part, answerable, best, exact, "x"]


def test_the_floor_is_the_highest_that_refuses_no_answerable_tuning_question() -> None:
    records = [record(1, "tuning", True, 0.30), record(2, "tuning", True, 0.25),
               record(3, "tuning", False, 0.20), record(4, "tuning", False, 0.10),
               record(5, "tuning", True, None),  # found nothing: refused at any floor
               record(6, "tuning", True, 0.05, exact=1.0),  # an identifier: never refused
               record(7, "held-out", True, 0.15), record(8, "held-out", False, 0.12)]
    assert floors.choose(records) == 0.25
    held = floors.figures(records, 0.25)["held-out"]
    assert (held["answerable_refused"], held["abstained"]) == (1, 1)
    assert held["verdict_precision"] == 0.5


def test_the_floor_script_refuses_a_file_that_is_not_a_bench_run_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "run.json"
    bad.write_text("{}", encoding="utf-8")
    assert floors.main([str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a bench.retrieval run" in err
