"""How a figure over a window is obtained from the facts visible at a cutoff: pure, no store.

A plan is a tree: ``Observed`` leaves (facts as filed) under ``Computed`` nodes (a recipe over
named inputs, persisted later as a derivation). For one role of a metric and one window, the
candidate plans come in order of preference:

- a quarter: as reported; else year-to-date minus the previous year-to-date (Q4 = fiscal year
  minus nine months, Q3 = nine months minus six, Q2 = six months minus Q1);
- a fiscal year: as reported; else the sum of its four quarters;
- the twelve months ending with a quarter (LTM): the fiscal year itself when the quarter is a
  Q4; the sum of four quarters; the latest year-to-date + the last fiscal year - the prior
  year-to-date;
- any window by dates, with or without a fiscal calendar (``tiled``): as reported, else the sum
  of the consecutive reported periods that tile it exactly, fewest pieces first
  (``vintage.queries.metrics.tiling``).

**One basis.** Which candidates share one vintage is ``vintage.queries.metrics.basis``'s to
say: a mixed plan is never used, the next candidate is tried, and the caller says why.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import product

from vintage.graph.core.model import Fact, Value
from vintage.graph.derivations.recipes import Recipe, expression
from vintage.queries.metrics.fiscal import FiscalCalendar, Span, kind_of
from vintage.queries.metrics.tiling import tilings

YTD_DIFFERENCE = expression("ytd_difference", "1", "ytd - prior_ytd")
QUARTER_SUM = expression("sum_of_quarters", "1", "q1 + q2 + q3 + q4")
LTM_FROM_YTD = expression("ltm_from_ytd", "1", "ytd + last_year - prior_ytd")
_MAX_COMBINATIONS = 16
Series = dict[Span, Fact]  # one role's facts by period; the first alias wins per period


@dataclass(frozen=True)
class Observed:
    fact: Fact

    @property
    def value(self) -> Value:
        return self.fact.value

    @property
    def span(self) -> Span:
        assert self.fact.valid_to is not None
        return Span.from_valid(self.fact.valid_from, self.fact.valid_to)


@dataclass(frozen=True)
class Computed:
    recipe: Recipe
    inputs: tuple[tuple[str, PlanNode], ...]
    predicate: str
    unit: str | None
    span: Span
    method: str

    @property
    def value(self) -> Value:
        return self.recipe.evaluate({role: node.value for role, node in self.inputs})


PlanNode = Observed | Computed


def method_of(node: PlanNode) -> str:
    """How a plan's figure is obtained: "reported", or its computation's description."""
    return "reported" if isinstance(node, Observed) else node.method


def leaves(node: PlanNode) -> list[Fact]:
    if isinstance(node, Observed):
        return [node.fact]
    return [f for _, child in node.inputs for f in leaves(child)]


def series(facts: Iterable[Fact], aliases: Sequence[str]) -> Series:
    rank = {p: i for i, p in enumerate(aliases)}
    best: Series = {}
    for fact in facts:
        if fact.predicate not in rank or fact.valid_to is None or isinstance(fact.value, bool) \
                or not isinstance(fact.value, int | float):
            continue
        span = Span.from_valid(fact.valid_from, fact.valid_to)
        known = best.get(span)
        if known is None or rank[fact.predicate] < rank[known.predicate]:
            best[span] = fact
    return best


def _computed(recipe: Recipe, inputs: Sequence[tuple[str, PlanNode]], span: Span,
              method: str) -> Computed:
    first = leaves(inputs[0][1])[0]
    base = first.predicate.removeprefix("derived:")
    return Computed(recipe, tuple(inputs), f"derived:{base}", first.unit, span, method)


def quarter(s: Series, cal: FiscalCalendar, label: int, n: int) -> list[PlanNode]:
    q = cal.quarter(label, n)
    if q is None:
        return []
    found: list[PlanNode] = [Observed(s[q])] if q in s else []
    ytd, prior = cal.ytd(label, n), cal.ytd(label, n - 1) if n > 1 else None
    if ytd is not None and prior is not None and ytd in s and prior in s:
        name = "fiscal year" if n == 4 else f"{3 * n} months YTD"
        found.append(_computed(YTD_DIFFERENCE, [("ytd", Observed(s[ytd])),
                                                ("prior_ytd", Observed(s[prior]))],
                               q, f"{name} - {3 * (n - 1)} months YTD"))
    return found


def year(s: Series, cal: FiscalCalendar, label: int) -> list[PlanNode]:
    fy = cal.year(label)
    if fy is None:
        return []
    found: list[PlanNode] = [Observed(s[fy.span])] if fy.span in s else []
    return found + _sums(s, cal, [(label, k) for k in (1, 2, 3, 4)], fy.span,
                         "sum of the four fiscal quarters")


def ltm(s: Series, cal: FiscalCalendar, label: int, n: int) -> list[PlanNode]:
    """Twelve months ending with quarter ``n`` of fiscal year ``label``."""
    last = cal.quarter(label, n)
    back = [(label, k) for k in range(n, 0, -1)] + [(label - 1, k) for k in range(4, n, -1)]
    first = cal.quarter(*back[-1])
    if last is None or first is None:
        return []
    window = Span(first.start, last.end)
    fy = cal.year(label)
    found: list[PlanNode] = [Observed(s[fy.span])] if n == 4 and fy and fy.span in s else []
    found += _sums(s, cal, list(reversed(back)), window, "sum of four quarters")
    ytd, prior, last_year = cal.ytd(label, n), cal.ytd(label - 1, n), cal.year(label - 1)
    if n < 4 and ytd in s and prior in s and last_year is not None and last_year.span in s:
        assert ytd is not None and prior is not None
        found.append(_computed(LTM_FROM_YTD, [
            ("ytd", Observed(s[ytd])), ("last_year", Observed(s[last_year.span])),
            ("prior_ytd", Observed(s[prior]))], window,
            "year-to-date + last fiscal year - prior year-to-date"))
    return found


def _sums(s: Series, cal: FiscalCalendar, quarters: list[tuple[int, int]], span: Span,
          method: str) -> list[PlanNode]:
    options = [quarter(s, cal, label, k) for label, k in quarters]
    if not all(options):
        return []
    found: list[PlanNode] = []
    for combo in product(*options):
        found.append(_computed(QUARTER_SUM, [(f"q{i}", node) for i, node in
                                             enumerate(combo, 1)], span, method))
        if len(found) == _MAX_COMBINATIONS:
            break
    return found


def tiled(s: Series, span: Span) -> list[PlanNode]:
    """``span`` as reported, else summed from the reported periods that tile it exactly."""
    found: list[PlanNode] = []
    for pieces in tilings(span, s, _MAX_COMBINATIONS):
        if len(pieces) == 1:
            found.append(Observed(s[pieces[0]]))
            continue
        nodes = [Observed(s[p]) for p in pieces]
        if len(pieces) == 4 and all(kind_of(p) == "quarter" for p in pieces):
            found.append(_computed(QUARTER_SUM, [(f"q{i}", n) for i, n in enumerate(nodes, 1)],
                                   span, "sum of four quarters"))
            continue
        roles = [f"p{i}" for i in range(1, len(pieces) + 1)]
        recipe = expression(f"sum_of_{len(pieces)}_periods", "1", " + ".join(roles))
        found.append(_computed(recipe, list(zip(roles, nodes, strict=True)), span,
                               f"sum of {len(pieces)} consecutive reported periods"))
    return found
