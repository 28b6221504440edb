"""The eval checks both treatments of a stale premise (docs/eval.md, "Layers and checks"): an
item closed by the cascade that the read says it would have matched, or an item handed over
marked stale; ``treatment`` pins which one an ask requires, and ``not_stale`` fails on either."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.test_eval import embedder, evaluated, row, scenarios
from vintage.graph.retrieval.embedder import Embedder
from vintage.queries.eval.rungs import EngineRung
from vintage.queries.search.fusion import Mode

__all__ = ["embedder", "evaluated"]  # the fixtures, shared with the harness's own tests

MOVED = """
- id: moved-%(n)s
  family: cascading-staleness
  language: %(language)s
  steps:
    - {name: city, op: remember, as: {user: mia}, subject: "user:mia", key: home.city,
       value: %(city)s}
    - {name: airport, op: remember, kind: inference, evidence: [city],
       source: {kind: model_inference}, as: {user: mia}, subject: "user:mia",
       key: travel.home_airport, value: %(airport)s}
    - {name: moved, op: correct, target: city, value: %(now)s, as: {user: mia}}
  asks:
"""
# The same question four times, each holding the answer to another expectation.
ASK = """    - {id: %(id)s, as: {user: mia}, query: %(query)s, subject: "user:mia",
       key: travel.home_airport, expect: %(expect)s}
"""
EXPECT = {"closed": "{stale: city, treatment: closed}",
          "marked": "{stale: city, treatment: marked}", "either": "{stale: city}",
          "none": "{not_stale: true}"}


def scenario(t: dict[str, str]) -> str:
    return MOVED % t + "".join(ASK % (t | {"id": i, "expect": e}) for i, e in EXPECT.items())


TEXTS = [{"n": "en", "language": "en", "city": "Denver", "airport": "DEN", "now": "Boston",
          "query": "which airport does Mia fly from"},
         {"n": "zh", "language": "zh", "city": "南京", "airport": "南京禄口机场", "now": "厦门",
          "query": "米娅出差从哪个机场出发"}]


def test_a_closed_inference_passes_as_closed_or_either_and_fails_as_marked_or_not_stale(
        evaluated: Any, tmp_path: Path, embedder: Embedder) -> None:
    found = scenarios(tmp_path, "".join(scenario(t) for t in TEXTS))
    result = evaluated(found, [EngineRung("engine", Mode.HYBRID, embedder, as_of=True)],
                       embedder)
    failing = {(f["scenario"], f["ask"], f["check"]) for f in row(result, "engine")["failures"]
               if f["layer"] == "context"}
    for t in TEXTS:
        s = f"moved-{t['n']}"
        assert failing >= {(s, "marked", "stale premise flagged"),
                           (s, "none", "nothing falsely stale")}
        assert not failing & {(s, "closed", "stale premise flagged"),
                              (s, "either", "stale premise flagged")}
