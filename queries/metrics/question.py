"""``vintage asof METRIC``: a metric per company as it could have been computed at a cutoff.

One store read of every subject's predicates *as known at the cutoff*
(``vintage.queries.metrics.known``: the filter runs inside the store, before anything is chosen);
per subject, its fiscal calendar from its own periods, the latest window whose inputs exist and
share one basis (``vintage.queries.metrics.plans``), and the computation persisted as derivations,
so that a later restatement cascades to the answer: a repeated question finds them all in its one
read transaction, a first one writes them in one more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta

from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.model import Fact, Scope
from vintage.graph.core.temporal import Interval, day_start, from_to
from vintage.graph.derivations.recipes import RecipeError
from vintage.graph.store.protocol import Store, StoreTx
from vintage.queries.lineage.staleness import ReadInstants, Stale, decide
from vintage.queries.lineage.subjects import resolve_in
from vintage.queries.metrics import plans
from vintage.queries.metrics.answers import MetricAnswer, SubjectAnswer
from vintage.queries.metrics.basis import BasisChange, basis_changes, judge, restated_note
from vintage.queries.metrics.chosen import Chosen, Saved, find_all
from vintage.queries.metrics.definitions import Metric
from vintage.queries.metrics.fiscal import (
    FISCAL_YEAR_END,
    FiscalCalendar,
    PeriodSpec,
    Span,
    declared_year_end,
    kind_of,
)
from vintage.queries.metrics.known import Known, known_all
from vintage.queries.metrics.plans import Computed, PlanNode, Series, method_of
from vintage.queries.metrics.windows import Window, windows

_MARGIN = timedelta(days=800)  # two years and some, around an explicit span
_LTM_LOOKBACK = timedelta(days=5 * 366)
Basis = Mapping[str, list[BasisChange]]  # per predicate, the filings that started a new basis


def ask(
    store: Store, scope: Scope, metric: Metric, subjects: Sequence[str], cutoff: datetime,
    period: PeriodSpec, *, actor: str = "vintage asof", hindsight: bool = False,
) -> MetricAnswer:
    """``hindsight``: also say, in each answer's own ``hindsight`` field, how its inputs were
    revised after the cutoff (``hindsight``); without it nothing later is read."""
    if not subjects:
        raise InvalidArgument("name at least one subject")
    if len(set(subjects)) != len(subjects):
        raise InvalidArgument("a subject is named twice")

    def read(tx: StoreTx) -> tuple[list[SubjectAnswer | Chosen], dict[str, Stale]]:
        ids = resolve_in(tx, subjects)  # by id, CIK or ticker
        if len(set(ids)) != len(ids):
            raise InvalidArgument(f"{', '.join(subjects)} name the same subject twice")
        known = known_all(tx, store.now(), scope, {s: _wanted(metric, s) for s in ids}, cutoff,
                          _reach(period, cutoff))
        found = [_subject(tx, store, scope, metric, s, cutoff, period, hindsight, known=known[s])
                 for s in ids]
        find_all(tx, store.now(), [f for f in found if isinstance(f, Chosen)])
        return found, _stale(tx, [f.saved.fact.id for f in found
                                  if isinstance(f, Chosen) and f.saved is not None], instants)

    def write(tx: StoreTx, todo: list[Chosen]) -> tuple[list[Saved], dict[str, Stale]]:
        saved = [f.save(tx, store.now(), actor) for f in todo]
        # As of after the save: the walk reads the derivations it just recorded.
        return saved, _stale(tx, [s.fact.id for s in saved], ReadInstants(cutoff, store.now()))

    # One read for the names and every company (their premises' staleness too), one write for
    # plans not yet persisted: not a transaction per company in threads, whose Python shares
    # the GIL (bench/RESULTS.md).
    instants = ReadInstants(cutoff, store.now())
    found, marks = store.reading(scope.tenant, read)
    todo = [f for f in found if isinstance(f, Chosen) and f.saved is None]
    if todo:
        saved, more = store.write(scope.tenant, lambda tx: write(tx, todo))
        marks = {**marks, **more}
        for f, done in zip(todo, saved, strict=True):
            f.saved = done
    answers = [a.model_copy(update={"stale": marks[a.fact_id]}) if a.fact_id in marks else a
               for a in (f if isinstance(f, SubjectAnswer) else f.answer(store, f.ready)
                         for f in found)]
    if hindsight:  # asked for: a refusal has none to say, not "none asked"
        answers = [a if a.hindsight is not None else a.model_copy(update={"hindsight": []})
                   for a in answers]
    return MetricAnswer(metric=metric.name, description=metric.description, cutoff=cutoff,
                        period=str(period), answers=answers)


def _stale(tx: StoreTx, ids: Sequence[str], read: ReadInstants) -> dict[str, Stale]:
    """Each persisted answer (its root fact's id) whose premise at any depth stopped holding as
    of the question's cutoff and now, in the transaction that found or wrote it (one walk for
    every company), as search, context and explain mark theirs; a figure filed as is rests on
    no premise."""
    return decide(tx, ids, read) if ids else {}


def _wanted(metric: Metric, subject: str) -> list[str]:
    # A declared fiscal year-end is read with the figures, as known at the same cutoff.
    return [*sorted(metric.predicates_for(subject)), FISCAL_YEAR_END]


def _subject(tx: StoreTx, store: Store, scope: Scope, metric: Metric, subject: str,
             cutoff: datetime, period: PeriodSpec, hindsight: bool = False,
             asked: datetime | None = None, known: Known | None = None) -> SubjectAnswer | Chosen:
    """``asked``: the question's cutoff, when ``cutoff`` is an earlier one that an answer on
    an earlier basis reads at (what was revised in between is the question's to know).
    ``known``: the subject's figures at ``cutoff``, read with the question's other subjects."""
    predicates = sorted(metric.predicates_for(subject))
    if known is None:
        known = known_all(tx, store.now(), scope, {subject: _wanted(metric, subject)}, cutoff,
                          _reach(period, cutoff))[subject]
    year_end = declared_year_end(known.facts)
    known.facts = [f for f in known.facts if f.predicate != FISCAL_YEAR_END]
    if not known.facts:
        return SubjectAnswer(subject=subject, refused=(
            f"nothing public by {cutoff.date()} for {', '.join(predicates)}"))
    spans = {Span.from_valid(f.valid_from, f.valid_to) for f in known.facts if f.valid_to}
    cal = FiscalCalendar.from_spans((s for s in spans if kind_of(s) is not None), year_end)
    if period.kind in ("fy", "quarter") and not cal.quarters():
        return SubjectAnswer(subject=subject, refused=(
            f"no {period} in {subject}'s fiscal calendar as known at {cutoff.date()}: it "
            "reported no year-long period" + ("" if year_end else " and declared no fiscal "
                                              "year-end (MM-DD)")))
    basis = basis_changes(known.facts)
    roles = _tables(metric, subject, known.facts)
    skipped: list[str] = []
    for window in windows(cal, period, spans):
        try:
            node = _plan(metric, window, roles, known, basis, skipped)
        except RecipeError as exc:
            skipped.append(f"{window.label}: {exc}")
            continue
        if node is not None:
            leaves = plans.leaves(node)
            # Said of the answer itself: inputs left on an older basis, and which are restated.
            said = [*judge(leaves, known.confirmed, basis).old, restated_note(leaves)]
            return Chosen(scope, subject, cutoff, asked or cutoff, hindsight, window, node,
                          known, [*skipped, *(s for s in said if s)])
    mixed = any("mix vintages" in reason for reason in skipped)
    if mixed and period.kind != "ltm":
        return _on_the_earlier_basis(tx, store, scope, metric, subject, cutoff, period, basis,
                                     skipped, hindsight, asked or cutoff)
    return SubjectAnswer(subject=subject, refused="; ".join(skipped) or (
        f"no {period} window in {subject}'s fiscal calendar as known at {cutoff.date()}"))


def _on_the_earlier_basis(
    tx: StoreTx, store: Store, scope: Scope, metric: Metric, subject: str, cutoff: datetime,
    period: PeriodSpec, basis: Basis, skipped: list[str],
    hindsight: bool, asked: datetime,
) -> SubjectAnswer | Chosen:
    """A fixed period whose current inputs straddle a restatement: answer it as it was known
    just before the latest restating filing (one consistent, older basis), and say so; refuse
    when that is mixed or missing too."""
    latest = max(c.at for changes in basis.values() for c in changes if c.at <= cutoff)
    earlier = _subject(tx, store, scope, metric, subject, latest - timedelta(microseconds=1),
                       period, hindsight, asked)
    if isinstance(earlier, SubjectAnswer):
        assert earlier.refused is not None
        return SubjectAnswer(subject=subject, refused="; ".join(
            [*skipped, f"as known before {latest.date()}: {earlier.refused}"]))
    note = (f"computed on the basis reported before {latest.date()} (as known then): the "
            f"restated basis of {period} is not complete at the cutoff")
    earlier.warnings = [*skipped, note, *earlier.warnings]
    return earlier


def _reach(spec: PeriodSpec, cutoff: datetime) -> Interval:
    """The valid times a period's plans can touch, with room for the fiscal calendar around
    it and a year-earlier window: the read stays small on a long history. An LTM looks back
    five years from the cutoff (a company that stopped filing before that gets a refusal)."""
    if spec.kind in ("fy", "quarter"):
        assert spec.year is not None
        return from_to(day_start(date(spec.year - 2, 1, 1)), day_start(date(spec.year + 2, 1, 1)))
    if spec.kind == "span":
        assert spec.span is not None
        return from_to(spec.span.valid_from - _MARGIN, spec.span.valid_to + _MARGIN)
    # A cutoff in the calendar's first years looks back to its beginning (open), not past it.
    early = cutoff - datetime.min.replace(tzinfo=cutoff.tzinfo) <= _LTM_LOOKBACK
    return from_to(None if early else cutoff - _LTM_LOOKBACK, None)


Tables = dict[str, dict[str, Series]]  # metric version -> role -> series


def _tables(metric: Metric, subject: str, facts: list[Fact]) -> Tables:
    """Each role's series, for the metric and every fallback definition of it."""
    tables: Tables = {}
    variant: Metric | None = metric
    while variant is not None:
        tables[variant.version] = {role: plans.series(facts, variant.aliases_for(subject, role))
                                   for role in variant.inputs}
        variant = variant.fallback
    return tables


def _plan(metric: Metric, window: Window, roles: Tables, known: Known,
          basis: Basis, skipped: list[str]) -> PlanNode | None:
    node = _first_base(metric, window, roles, known, basis, skipped)
    if node is None or not metric.growth:
        return node
    prior = _first_base(metric, window.prior, roles, known, basis, skipped) if window.prior \
        else None
    if prior is None:
        skipped.append(f"{window.label}: no value a year earlier to grow from")
        return None
    why = judge(plans.leaves(node) + plans.leaves(prior), known.confirmed, basis).mixed
    if why is not None:
        skipped.append(f"{window.label}: the year-over-year comparison would mix vintages: {why}")
        return None
    return Computed(metric.growth_recipe(), (("current", node), ("prior", prior)),
                    f"metric:{metric.name}", "percent", node.span, "year-over-year growth")


def _first_base(metric: Metric, window: Window, roles: Tables, known: Known,
                basis: Basis, skipped: list[str]) -> PlanNode | None:
    """The metric's own definition for this window, else its fallback's (gross profit as
    revenue - cost of revenue where it is not reported); why neither works goes to skipped."""
    tried: list[str] = []
    variant: Metric | None = metric
    while variant is not None:
        mark = len(tried)
        node = _base(variant, window, roles[variant.version], known, basis, tried)
        if node is not None:
            # What the chosen definition avoided (a mixed or older plan) is said with it.
            skipped += tried[mark:]
            return node
        variant = variant.fallback
    skipped += tried
    return None


def _base(metric: Metric, window: Window, roles: Mapping[str, Series], known: Known,
          basis: Basis, skipped: list[str]) -> PlanNode | None:
    chosen: dict[str, PlanNode] = {}
    for role in sorted(metric.inputs):
        candidates = window.plans(roles[role])
        if not candidates:
            tried = metric.aliases_for(known.subject, role)  # the subject's own mapping
            skipped.append(f"{window.label}: no {role} ({', '.join(tried[:2])}"
                           f"{', ...' if len(tried) > 2 else ''}) "
                           f"{_missing(window, roles[role])}")
            return None
        verdicts = [judge(plans.leaves(c), known.confirmed, basis) for c in candidates]
        # Never a mixed plan; one wholly on the current basis before one left on an older one.
        usable = sorted((i for i, v in enumerate(verdicts) if v.mixed is None),
                        key=lambda i: not verdicts[i].current)
        if not usable:
            skipped.append(f"{window.label}: {role} would mix vintages: {verdicts[0].mixed}")
            return None
        preferred, best = verdicts[0], usable[0]
        if best != 0 and preferred.mixed is not None:
            skipped.append(f"{window.label}: mixed vintage avoided for {role} "
                           f"({preferred.mixed}); computed as {method_of(candidates[best])}")
        elif best != 0:
            skipped.append(f"{window.label}: older basis avoided for {role} "
                           f"({preferred.old[0]}); computed as {method_of(candidates[best])}")
        chosen[role] = candidates[best]
    if metric.formula.strip() in chosen:
        return chosen[metric.formula.strip()]
    first = chosen[sorted(chosen)[0]]
    unit = metric.unit or plans.leaves(first)[0].unit
    return Computed(metric.recipe(), tuple(sorted(chosen.items())), f"metric:{metric.name}",
                    unit, first.span, metric.formula)


def _missing(window: Window, s: Series) -> str:
    """Why a role has no plan: a window by dates names its gaps and overlaps."""
    problems = window.why(s) if window.why is not None else []
    return f"covering it exactly: {', '.join(problems)}" if problems else "reported yet"
