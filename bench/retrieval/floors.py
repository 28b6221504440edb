"""Choosing the relevance floors (``vintage.queries.search.abstain.FLOORS`` and
``KEYWORD_FLOOR``) from a retrieval bench run, on its tuning half, and reading them on its
held-out half (docs/retrieval.md, "Calibrated scores and abstention").

    python -m bench.retrieval --sizes 10000 --backends embedded --out /tmp/floors.json
    python -m bench.retrieval.floors /tmp/floors.json [--backend embedded] [--size 10000]

The bench records, for every search of the query set and of the unanswerable questions, its
best answer's relevance and identifier count (``bench.retrieval.abstention``): whatever the
floors in the table then were, those numbers do not depend on them, so the floors are chosen
from them and the verdict each would give is computed exactly as ``abstain.judge`` gives it.

The rule, per mode: the highest floor that says "nothing relevant" to none of the tuning half's
answerable questions that found anything (``SPARE`` of them: none), the held-out half then
saying how well that holds on questions the choice never saw; among floors that refuse no more,
the highest refuses the most unanswerable questions. A search that found nothing at all (no
word of the query in a keyword search) says nothing relevant at any floor, so it does not
decide one. A looser rule (one refusal in a hundred) chose 0.22 for hybrid on the 10k run of
2026-12-06, and the held-out half, whose ten asks of "current incident responder" score
0.17-0.20, then had a verdict precision of 0.79. Exact mode has no floor (an identifier carried
is a match). A keyword search that shared no term with any item is not judged at all (its
verdict says so, ``abstain.Verdict.matched``): it is counted apart, never as a refusal. The
script prints the figures of each half
and the rows to paste into the table, with the run's commit and embedder.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

SPARE = 0.0
MODES = ("keyword", "semantic", "hybrid")
Record = list[Any]  # as bench.retrieval.abstention records a search


def refuses(record: Record, floor: float, mode: str = "hybrid") -> bool:
    """What ``abstain.judge`` says for this search at ``floor``: nothing relevant when no answer
    carries an identifier and the best relevance is under the floor. A keyword search with no
    answer at all shared no term with any legal item: not judged (``Verdict.matched``), so not
    a refusal (every question of the bench has a legal set: none is empty)."""
    best, exact = record[3], record[4]
    if best is None:
        return mode != "keyword"
    return bool(exact < 1 and best < floor)


def unmatched(record: Record, mode: str) -> bool:
    """A keyword search that shared no term with any legal item (no verdict either way)."""
    return mode == "keyword" and record[3] is None


def choose(records: list[Record], mode: str = "hybrid") -> float:
    """The highest floor refusing at most ``SPARE`` of the tuning half's answerable searches
    that found anything."""
    tuning = [r for r in records if r[1] == "tuning" and r[3] is not None]
    allowed = math.floor(SPARE * sum(1 for r in tuning if r[2]))
    scores = sorted({round(r[3], 6) for r in tuning if r[3] is not None and r[4] < 1})
    floor = 0.0
    for candidate in scores:  # refusing more as the floor rises: stop at the first too many
        if sum(refuses(r, candidate, mode) for r in tuning if r[2]) > allowed:
            break
        floor = candidate
    return floor


def figures(records: list[Record], floor: float, mode: str = "hybrid") -> dict[str, Any]:
    out = {}
    for part in ("tuning", "held-out", "all"):
        rs = [r for r in records if part == "all" or r[1] == part]
        said = [r for r in rs if refuses(r, floor, mode)]
        apart = [r for r in rs if unmatched(r, mode)]
        empty = [r for r in rs if not r[2]]
        right = [r for r in said if not r[2]]
        out[part] = {
            "answerable": sum(1 for r in rs if r[2]),
            "answerable_refused": sum(1 for r in said if r[2]),
            "unanswerable": len(empty),
            "abstained": sum(1 for r in empty if refuses(r, floor, mode)),
            "no_term": len(apart), "no_term_answerable": sum(1 for r in apart if r[2]),
            "verdict_precision": len(right) / len(said) if said else None,
            "abstention_recall": len(right) / len(empty) if empty else None}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.retrieval.floors",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path, help="a bench.retrieval JSON")
    parser.add_argument("--backend", default="embedded")
    parser.add_argument("--size", default=None, help="corpus size (default: the first)")
    args = parser.parse_args(argv)
    try:
        run = json.loads(args.run.read_text(encoding="utf-8"))
        size = args.size or next(iter(run["sizes"]))
        modes = run["sizes"][size][args.backend]["modes"]
        records = {m: modes[m]["abstention"]["records"] for m in MODES}
    except (OSError, ValueError, KeyError, StopIteration) as e:
        print(f"error: {args.run}: not a bench.retrieval run with abstention records "
              f"({type(e).__name__}: {str(e)[:80]})", file=sys.stderr)
        return 2
    chosen = {m: choose(records[m], m) for m in MODES}
    print(f"run {args.run} (commit {run.get('commit')}, {run.get('date_utc')}), embedder "
          f"{run.get('embedder')}, {args.backend}, {size} items")
    for m in MODES:
        print(f"\n{m}: floor {chosen[m]}")
        for part, f in figures(records[m], chosen[m], m).items():
            print(f"  {part:9} answerable refused {f['answerable_refused']}/{f['answerable']}"
                  f", unanswerable abstained {f['abstained']}/{f['unanswerable']}, precision "
                  f"{_f(f['verdict_precision'])}, abstention recall "
                  f"{_f(f['abstention_recall'])}"
                  + (f"; no term in common {f['no_term']} ({f['no_term_answerable']} "
                     "answerable)" if m == "keyword" else ""))
    print("\nvintage/queries/search/abstain.py:")
    print(f'    "{run.get("embedder")}": {{Mode.SEMANTIC: {chosen["semantic"]}, '
          f'Mode.HYBRID: {chosen["hybrid"]}}},')
    print(f"KEYWORD_FLOOR = {chosen['keyword']}")
    return 0


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


if __name__ == "__main__":
    sys.exit(main())
