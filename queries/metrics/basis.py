"""One basis: whether a plan's inputs (``vintage.queries.metrics.plans``) share one vintage.

A filing that revises figures of a concept starts a new basis for that concept. How far the new
basis reaches depends on the class of the change (``Change``, on the new version):

* **A split adjustment or a reclassification** changes how the concept is measured or presented
  from then on: it reaches every period from the earliest one it revised onward. A figure of
  that range last confirmed before the filing is on the old basis; a figure reported or
  confirmed by it (or later) is on the new one.
* **A restatement** (an amendment, or a correction told apart from neither; a correction nobody
  classified, such as a KPI table's, is taken for one) corrects the periods it covers, and
  nothing else. A figure whose period lies outside every later restatement's periods is on the
  current basis whenever it was reported: after a 10-Q/A amends one quarter, the other quarters
  as last reported and the amended one make one basis. A figure last confirmed before the
  restatement whose period shares days with a restated period is on the old basis: it lies
  inside one (nine months inside a restated year), or holds one (a half-year holding an amended
  quarter), unless it is itself a restated figure whose sub-periods catch up with it later (a
  restated year whose nine months the next 10-Q restates as its comparative).

A plan whose inputs are on the old and the new basis of one filing is *mixed* and never used. A
plan with an input left on the basis before a restatement and none on its new basis is on one,
older, basis: usable, but a plan wholly on the current basis is preferred, and the answer says
which input is old. (Before a split or a reclassification, such a plan is used as it always
was: the whole range before it is one presentation.)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from vintage.graph.core.kinds import Change
from vintage.graph.core.model import Fact
from vintage.queries.metrics.periods import Span

__all__ = ["BasisChange", "Verdict", "basis_changes", "judge", "restated", "restated_note"]

# Classes whose new basis reaches every later period, not only the periods revised.
FORWARD = frozenset({Change.SPLIT_ADJUSTMENT, Change.RECLASSIFICATION})
BASIS_CHANGES = FORWARD | {Change.RESTATEMENT}


def change_of(fact: Fact) -> Change | None:
    """The class of a version's change; a correction nobody classified (a KPI table's) may be
    a restatement: it is taken for one."""
    return fact.change or (Change.RESTATEMENT if fact.revision > 1 else None)


def restated(fact: Fact) -> bool:
    """Whether this version restated its figure (by period), rather than first reporting it."""
    return change_of(fact) is Change.RESTATEMENT


@dataclass(frozen=True)
class BasisChange:
    predicate: str
    at: datetime  # when the revising filing became public
    since: datetime  # the earliest period start it revised
    change: Change  # a forward class wins over a restatement within one filing
    periods: tuple[Span, ...] = ()  # the periods it revised

    @property
    def forward(self) -> bool:
        return self.change in FORWARD

    def old(self, fact: Fact, confirmed: datetime) -> bool:
        """Whether ``fact`` (last confirmed at ``confirmed``) is on the basis before this one."""
        if confirmed >= self.at:
            return False
        if self.forward:
            return fact.valid_from >= self.since
        span = _span(fact)
        hit = [p for p in self.periods if p.overlaps(span)]
        if not hit:
            return False  # outside every period it restated: current
        # A restated figure whose sub-periods are restated later is being caught up with.
        return not (restated(fact) and all(span.contains(p) and span != p for p in hit))

    def new(self, fact: Fact, confirmed: datetime) -> bool:
        """Whether ``fact`` is on this filing's basis: reported or confirmed by it or later,
        and (for a restatement) over a period it restated."""
        if confirmed < self.at:
            return False
        return self.forward or any(p.overlaps(_span(fact)) for p in self.periods)


def basis_changes(facts: Iterable[Fact]) -> dict[str, list[BasisChange]]:
    """Per predicate, the filings (known at the cutoff) that started a new basis, oldest
    first: one per predicate and filing, with every period it revised."""
    found: dict[tuple[str, datetime], tuple[datetime, set[Change], set[Span]]] = {}
    for f in facts:
        change = change_of(f)
        if change not in BASIS_CHANGES:
            continue
        assert change is not None
        since, classes, periods = found.get((f.predicate, f.available_at), (f.valid_from, set(),
                                                                            set()))
        classes.add(change)
        if f.valid_to is not None:  # an open-ended figure has no period to restate
            periods.add(_span(f))
        found[(f.predicate, f.available_at)] = (min(since, f.valid_from), classes, periods)
    out: dict[str, list[BasisChange]] = {}
    for (predicate, at), (since, classes, periods) in sorted(found.items()):
        # A filing that also reclassifies or split-adjusts the concept moves its whole range.
        change = min(classes & FORWARD) if classes & FORWARD else Change.RESTATEMENT
        out.setdefault(predicate, []).append(
            BasisChange(predicate, at, since, change, tuple(sorted(periods))))
    return out


@dataclass(frozen=True)
class Verdict:
    """What the basis rule says of one plan's inputs."""

    mixed: str | None = None  # why they are not on one basis (the plan is never used)
    old: tuple[str, ...] = ()  # each input left on the basis before a later restatement

    @property
    def current(self) -> bool:
        return self.mixed is None and not self.old


def judge(facts: Sequence[Fact], confirmed: Mapping[str, datetime],
          basis: Mapping[str, list[BasisChange]]) -> Verdict:
    """Whether these facts share one basis, and which are on an older one."""
    old: list[str] = []
    for predicate in sorted({f.predicate for f in facts}):
        own = sorted((f for f in facts if f.predicate == predicate), key=lambda f: f.valid_from)
        for change in basis.get(predicate, []):
            before = [f for f in own if change.old(f, confirmed[f.id])]
            after = [f for f in own if change.new(f, confirmed[f.id])]
            if before and after:
                return Verdict(mixed=(
                    f"{predicate} {_span(before[0])} is as reported before "
                    f"{change.at.date()}, while {_span(after[0])} is on the basis of the "
                    f"{change.change.value} filed {change.at.date()}"))
            if change.forward:
                continue  # a whole range on the earlier presentation: one basis, as before
            old += [f"{predicate} {_span(f)} is as reported before the {change.change.value} "
                    f"of {', '.join(map(str, change.periods))} filed {change.at.date()}, "
                    "which did not report it again: this answer is on the basis before it"
                    for f in before]
    return Verdict(old=tuple(dict.fromkeys(old)))


def restated_note(facts: Sequence[Fact]) -> str | None:
    """Which inputs are restated figures, and that the others are as last reported."""
    found = sorted({f.id: f for f in facts if restated(f)}.values(),
                   key=lambda f: (f.valid_from, f.predicate))
    if not found:
        return None
    named = "; ".join(f"{f.predicate} {_span(f)} (restated {f.available_at.date()})"
                      for f in found)
    others = len({f.id for f in facts}) - len(found)
    return (f"restated input{'s' if len(found) > 1 else ''}: {named}"
            + ("; the other inputs as last reported" if others else ""))


def _span(fact: Fact) -> Span:
    assert fact.valid_to is not None
    return Span.from_valid(fact.valid_from, fact.valid_to)
