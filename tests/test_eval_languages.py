"""Each layer is scored in each language too (issue 40's bar: every layer >= 0.95 on the
bundled scenarios in each language), from that language's scenarios' checks alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.test_eval import TWO_USERS, embedder, evaluated, row, scenarios
from vintage.graph.retrieval.embedder import Embedder
from vintage.queries.eval.rungs import EngineRung
from vintage.queries.search.fusion import Mode

__all__ = ["embedder", "evaluated"]  # fixtures, used by name

CHINESE = """
- id: two-users-zh
  family: isolation
  language: zh
  steps:
    - {name: wang-city, op: remember, as: {user: wang}, subject: "user:wang", key: home.city,
       value: 杭州, expect: {decision: active}}
    - {name: zhao-city, op: remember, as: {user: zhao}, subject: "user:zhao", key: home.city,
       value: 成都, expect: {decision: active}}
  asks:
    - id: wang-asks
      as: {user: wang}
      query: 用户住在哪个城市
      subject: "user:wang"
      key: home.city
      expect: {value: 成都, include: [wang-city], exclude: [zhao-city]}
"""


def test_a_language_is_scored_on_its_own_scenarios_checks(
        evaluated: Any, tmp_path: Path, embedder: Embedder) -> None:
    # The English scenario is right; the Chinese one expects the other user's city: wrong.
    found = scenarios(tmp_path, TWO_USERS % "Lisbon") + scenarios(tmp_path, CHINESE, "zh.yaml")
    result = evaluated(found, [EngineRung("engine", Mode.HYBRID, embedder, as_of=True)], embedder)
    engine = row(result, "engine")
    by_language = engine["layers_by_language"]
    assert set(by_language) == {"en", "zh"}
    for layer, whole in engine["layers"].items():
        parts = [by_language[lang][layer] for lang in ("en", "zh")]
        assert whole["total"] == sum(p["total"] for p in parts)
        assert whole["passed"] == sum(p["passed"] for p in parts)
    assert by_language["en"]["task"]["score"] == 1.0
    assert by_language["zh"]["task"]["score"] < 1.0
