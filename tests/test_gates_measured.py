"""The gates' content detectors as measured (bench.gates, bench/notes/issue40-gates.md): on the
held-out part of each hand-labelled set, per language, precision and recall stay at what was
reported less a small margin, and every harmless look-alike in it the detectors do not take
for their kind is an active memory."""

from __future__ import annotations

import pytest

from bench.gates.main import labelled, measure
from tests.factories import ACTOR, memory
from vintage.graph.core.model import Scope
from vintage.graph.memory.gate import Decision
from vintage.graph.memory.remember import remember
from vintage.graph.store.protocol import Store

# Held-out precision and recall as reported in bench/notes/issue40-gates.md (per detector,
# held-out part and language, with the items each part has); a change to a detector may cost
# at most MARGIN of either. held3-held5 were written blind by helpers that never saw the
# detectors; the newest (held8) is held at what it measured when first read (clean), the
# others as they are now that the detectors were developed on them.
REPORTED = {
    ("injection", "held", "en"): (1.0, 1.0), ("injection", "held", "zh"): (1.0, 1.0),
    ("sensitive", "held", "en"): (1.0, 1.0), ("sensitive", "held", "zh"): (1.0, 1.0),
    ("injection", "held2", "en"): (1.0, 1.0), ("injection", "held2", "zh"): (1.0, 1.0),
    ("sensitive", "held2", "en"): (1.0, 1.0), ("sensitive", "held2", "zh"): (1.0, 1.0),
    ("injection", "held3", "en"): (1.0, 1.0), ("injection", "held3", "zh"): (1.0, 1.0),
    ("sensitive", "held3", "en"): (1.0, 1.0), ("sensitive", "held3", "zh"): (1.0, 1.0),
    ("injection", "held4", "en"): (0.952, 1.0), ("injection", "held4", "zh"): (1.0, 1.0),
    ("sensitive", "held4", "en"): (1.0, 1.0), ("sensitive", "held4", "zh"): (1.0, 1.0),
    ("injection", "held5", "en"): (1.0, 1.0), ("injection", "held5", "zh"): (1.0, 1.0),
    ("sensitive", "held5", "en"): (1.0, 1.0), ("sensitive", "held5", "zh"): (1.0, 1.0),
    ("injection", "held6", "en"): (1.0, 1.0), ("injection", "held6", "zh"): (1.0, 1.0),
    ("sensitive", "held6", "en"): (1.0, 1.0), ("sensitive", "held6", "zh"): (1.0, 1.0),
    ("injection", "held7", "en"): (1.0, 1.0), ("injection", "held7", "zh"): (1.0, 1.0),
    ("sensitive", "held7", "en"): (1.0, 1.0), ("sensitive", "held7", "zh"): (1.0, 1.0),
    ("injection", "held8", "en"): (1.0, 0.70), ("injection", "held8", "zh"): (1.0, 0.85),
    ("sensitive", "held8", "en"): (0.95, 0.95), ("sensitive", "held8", "zh"): (1.0, 0.85),
}
ITEMS = {"held": 40, "held2": 20, "held3": 40, "held4": 40, "held5": 40, "held6": 40,
         "held7": 40, "held8": 40}
SPLITS = tuple(ITEMS)
MARGIN = 0.05


@pytest.mark.parametrize(("detector", "split", "lang"), sorted(REPORTED))
def test_held_out_precision_and_recall_stay_at_what_was_reported(detector: str, split: str,
                                                                 lang: str) -> None:
    measured = measure(detector, split)[lang]
    precision, recall = REPORTED[detector, split, lang]
    assert (measured["items"], measured["positives"]) == (ITEMS[split], ITEMS[split] // 2)
    assert measured["precision"] >= precision - MARGIN, measured["false_alarms"]
    assert measured["recall"] >= recall - MARGIN, measured["missed"]


@pytest.mark.parametrize("detector", ["injection", "sensitive"])
def test_the_tuning_parts_developed_on_are_read_without_a_miss_or_a_false_alarm(
        detector: str) -> None:
    # They hold the look-alikes a reviewer found held by the widened patterns ("ignore messages
    # from unknown numbers", "Justice is blind", "这个月里 15 号发工资", "账号是13812345678").
    for lang, measured in measure(detector, "tune").items():
        assert (measured["missed"], measured["false_alarms"]) == ([], []), lang


@pytest.mark.parametrize("detector", ["injection", "sensitive"])
def test_every_held_out_harmless_look_alike_is_an_active_memory(
    store: Store, scope: Scope, detector: str,
) -> None:
    harmless = [e["text"] for split in SPLITS
                for e in labelled(detector, split) if not e["positive"]]
    decided = {text: remember(store, memory(scope, key=f"note.{n}", value=text,
                                            source_id=f"msg-{n}"), actor=ACTOR)
               for n, text in enumerate(harmless)}
    assert len(harmless) == 300
    # The look-alikes a detector still takes for its kind (bench.gates' false alarms) are held
    # as candidates; every other one is active.
    alarms = {text for split in SPLITS
              for lang in ("en", "zh") for text in measure(detector, split)[lang]["false_alarms"]}
    assert {t: d.decision for t, d in decided.items()
            if d.decision is not Decision.ACTIVE and t not in alarms} == {}
    assert len(alarms) <= 2
