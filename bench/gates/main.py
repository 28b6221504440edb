"""``python -m bench.gates [--split tune|held|...|held8|all] [--out FILE]``: precision
and recall of the memory gates' two content detectors, per language, on labelled sets written
by hand.

* the injection detector (``vintage.graph.memory.injection.instructions_in``): instructions to
  the model (direct, indirect, obfuscated) against harmless look-alikes ("ignore the first
  draft", "the assistant manager", "请忽略上一封邮件");
* the sensitive-content detector (``vintage.graph.memory.sensitive.sensitive_fields``, the
  value of a memory under a neutral key): addresses, health, financial account data,
  government ids and credentials against look-alikes ("prefers aisle seats", a price, a
  product number, "办公室在三楼").

Each set has a tuning part (``*_tune.jsonl``, developed on), two held-out parts written by
the detectors' author (``*_held.jsonl``, ``*_held2.jsonl``) and six written blind by helper
sessions that never saw the detectors (``*_held3.jsonl`` ... ``*_held8.jsonl``, with a
``HELDn.md`` each saying how): each was measured once before anything changed for it
(``bench/results/gates-heldN-clean.json``), and all but the newest were developed on since
(bench/notes/issue40-gates.md). The number to report is the newest part's clean one.
Positive = the detector fires. It prints a Markdown table and writes the JSON (machine,
commit, date, counts, misses by text) to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from statistics import median
from typing import Any

from bench.report import machine, provenance
from vintage.graph.memory.injection import instructions_in
from vintage.graph.memory.sensitive import sensitive_fields

HERE = Path(__file__).resolve().parent
LANGUAGES = ("en", "zh")
SPLITS = ("tune", "held", "held2", "held3", "held4", "held5", "held6", "held7", "held8")


def labelled(detector: str, split: str) -> list[dict[str, Any]]:
    """The labelled items of one detector's split (``tune``, ``held``, ``held2``), each with
    ``text``, ``lang`` and ``positive``."""
    path = HERE / f"{detector}_{split}.jsonl"
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
             if line.strip()]
    label = "instruction" if detector == "injection" else "sensitive"
    return [{"text": e["text"], "lang": e["lang"], "positive": bool(e[label]),
             "category": e.get(label)} for e in items]


def _sensitive(text: str) -> bool:
    return bool(sensitive_fields({"key": "note", "value": text}))


DETECTORS: dict[str, Callable[[str], bool]] = {
    "injection": lambda text: instructions_in(text) is not None,
    "sensitive": _sensitive,
}


def measure(detector: str, split: str) -> dict[str, Any]:
    """Per language: counts, precision, recall, and the texts it got wrong."""
    fires = DETECTORS[detector]
    out: dict[str, Any] = {}
    for lang in LANGUAGES:
        items = [e for e in labelled(detector, split) if e["lang"] == lang]
        said = [(e, fires(e["text"])) for e in items]
        tp = sum(1 for e, hit in said if hit and e["positive"])
        fp = sum(1 for e, hit in said if hit and not e["positive"])
        fn = sum(1 for e, hit in said if not hit and e["positive"])
        out[lang] = {
            "items": len(items), "positives": tp + fn, "tp": tp, "fp": fp, "fn": fn,
            "precision": tp / (tp + fp) if tp + fp else 1.0,
            "recall": tp / (tp + fn) if tp + fn else 1.0,
            "missed": [e["text"] for e, hit in said if not hit and e["positive"]],
            "false_alarms": [e["text"] for e, hit in said if hit and not e["positive"]],
        }
    return out


def scan_microseconds(detector: str) -> float:
    """Median time of one scan over every labelled text (warm: the detectors loaded)."""
    fires = DETECTORS[detector]
    texts = [e["text"] for split in SPLITS for e in labelled(detector, split)]
    fires(texts[0])
    times = []
    for text in texts:
        began = time.perf_counter()
        fires(text)
        times.append((time.perf_counter() - began) * 1e6)
    return median(times)


# Texts at the write limit (16 KiB a field) built to make a pattern backtrack: long runs of
# digits, of Han characters, of line breaks, of look-alike letters. A scan must stay linear.
ADVERSARIAL = {
    "digits": "1" * 16_000, "digits and commas": "1," * 8_000, "Han": "的" * 5_000,
    "Han and digits": "的1" * 5_000, "line breaks": "x.\n" + "\n" * 16_000,
    "spaced letters": "a " * 8_000, "Cyrillic": "а" * 8_000, "base64": "QUJD" * 4_000,
}


def worst_case_ms(detector: str) -> dict[str, float]:
    """Milliseconds of one scan of each ``ADVERSARIAL`` text."""
    fires = DETECTORS[detector]
    out = {}
    for name, text in ADVERSARIAL.items():
        began = time.perf_counter()
        fires(text)
        out[name] = round((time.perf_counter() - began) * 1000, 1)
    return out


def table(results: dict[str, dict[str, Any]]) -> str:
    lines = ["| detector | split | language | items (positives) | precision | recall | "
             "false alarms | misses |", "|---|---|---|---:|---:|---:|---:|---:|"]
    for name, by_split in results.items():
        for split, by_lang in by_split.items():
            for lang, r in by_lang.items():
                lines.append(f"| {name} | {split} | {lang} | {r['items']} ({r['positives']}) | "
                             f"{r['precision']:.3f} | {r['recall']:.3f} | {r['fp']} | "
                             f"{r['fn']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.gates", description=__doc__)
    parser.add_argument("--split", choices=(*SPLITS, "all"), default="all")
    parser.add_argument("--out", type=Path, default=Path("bench/results/gates.json"))
    args = parser.parse_args(argv)
    splits = SPLITS if args.split == "all" else (args.split,)
    results = {name: {split: measure(name, split) for split in splits} for name in DETECTORS}
    speed = {name: scan_microseconds(name) for name in DETECTORS}
    worst = {name: worst_case_ms(name) for name in DETECTORS}
    print(table(results))
    print()
    for name, us in speed.items():
        print(f"{name}: median {us:.0f} µs per text; 16 KiB adversarial texts, slowest "
              f"{max(worst[name].values()):.0f} ms")
    for name, by_split in results.items():
        for split, by_lang in by_split.items():
            for lang, r in by_lang.items():
                for text in r["missed"]:
                    print(f"missed ({name}, {split}, {lang}): {text}")
                for text in r["false_alarms"]:
                    print(f"false alarm ({name}, {split}, {lang}): {text}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"machine": machine(), "provenance": provenance(),
                                    "results": results, "median_scan_us": speed,
                                    "adversarial_scan_ms": worst},
                                   ensure_ascii=False, indent=2), encoding="utf-8")
    return 0
