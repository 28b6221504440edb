"""The gates' content detectors as measured (bench.gates, bench/notes/issue40-gates.md): on the
held-out part of each hand-labelled set, per language, precision and recall stay at what was
reported less a small margin, and every harmless look-alike in it is an active memory."""

from __future__ import annotations

import pytest

from bench.gates.main import labelled, measure
from tests.factories import ACTOR, memory
from vintage.graph.core.model import Scope
from vintage.graph.memory.gate import Decision
from vintage.graph.memory.remember import remember
from vintage.graph.store.protocol import Store

# Held-out precision and recall as reported in bench/notes/issue40-gates.md (per detector and
# language); a change to a detector may cost at most MARGIN of either.
REPORTED = {
    ("injection", "en"): (1.0, 0.85), ("injection", "zh"): (1.0, 1.0),
    ("sensitive", "en"): (1.0, 0.90), ("sensitive", "zh"): (1.0, 1.0),
}
MARGIN = 0.05


@pytest.mark.parametrize(("detector", "lang"), sorted(REPORTED))
def test_held_out_precision_and_recall_stay_at_what_was_reported(detector: str,
                                                                 lang: str) -> None:
    measured = measure(detector, "held")[lang]
    precision, recall = REPORTED[detector, lang]
    assert measured["items"] >= 40 and measured["positives"] >= 20
    assert measured["precision"] >= precision - MARGIN, measured["false_alarms"]
    assert measured["recall"] >= recall - MARGIN, measured["missed"]


@pytest.mark.parametrize("detector", ["injection", "sensitive"])
def test_every_held_out_harmless_look_alike_is_an_active_memory(
    store: Store, scope: Scope, detector: str,
) -> None:
    harmless = [e["text"] for e in labelled(detector, "held") if not e["positive"]]
    decided = {text: remember(store, memory(scope, key=f"note.{n}", value=text,
                                            source_id=f"msg-{n}"), actor=ACTOR)
               for n, text in enumerate(harmless)}
    assert len(harmless) >= 40
    assert {t: d.decision for t, d in decided.items() if d.decision is not Decision.ACTIVE} \
        == {}
