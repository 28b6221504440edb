"""Recompute (on request, knowledge axis), in batches: one level of the cascade at a time.

Each derived fact whose justifications all broke is computed again from the current inputs,
using the lowest-id justification whose broken inputs have a successor. A value equal to the old
one (within ``tolerance``) becomes a second justification of the old fact, which therefore
stays current, and the cascade stops there; a different value becomes a new version that
supersedes the old one, and the cascade carries on with it.

A level is the facts whose affected inputs were all decided at earlier levels: its reads
(input values, still-open checks) and writes (derivations, new versions, closes) are one round
trip each for the whole level, in rounds of distinct assertions (``derive_all`` decides each
against the versions stored before it), instead of a dozen per fact.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from vintage.graph.core.model import Fact, Scope, Value
from vintage.graph.derivations.derived import Output, Request, derive_all, rounds
from vintage.graph.derivations.recipes import Recipe, RecipeError, from_derivation
from vintage.graph.store.protocol import Closure, DerivationWrite, Justification, StoreTx
from vintage.graph.writes.cascade import Affected, Fate, Outcome, Plan, justified_until


@dataclass(frozen=True)
class _Redo:
    """A fact to compute again: its plan entry, its end, and the recipe and inputs to use."""

    affected: Affected
    end: datetime
    fact: Fact
    justification: Justification
    recipe: Recipe
    inputs: dict[str, str]  # role -> the input's current version


def recompute_plan(
    tx: StoreTx, now: datetime, p: Plan, successors: Mapping[str, str], actor: str,
    tolerance: float,
) -> list[Outcome]:
    run = _Run(tx, now, actor, tolerance, dict(p.changed), dict(successors))
    ids = [a.fact.id for a in p.affected]
    facts = tx.get_facts(ids)
    justs: dict[str, list[Justification]] = {}
    for j in tx.justifications(ids, now):
        justs.setdefault(j.output_id, []).append(j)
    closures: list[Closure] = []
    for level in _levels(p):
        redo = []
        for a in level:
            fid = a.fact.id
            end = justified_until(p.inputs(fid), lambda i: run.ends[i] if i in run.ends
                                  else p.down.ends[i].knowledge)
            run.ends[fid] = end
            if end is None:
                run.decided[fid] = Outcome(a.fact, a.depth, a.path, Fate.SURVIVES, None)
                continue
            pick = _usable(justs.get(fid, []), run.replaced)
            if pick is None:  # nothing to recompute from, or a recipe nobody can run again
                closures.append(Closure(fid, end, now))
                run.decided[fid] = Outcome(a.fact, a.depth, a.path, Fate.CLOSED, end)
                continue
            j, recipe = pick
            redo.append(_Redo(a, end, facts[fid], j, recipe,
                              {role: run.replaced.get(i, i) for i, role in j.inputs}))
        run.level(redo)
    # A recompute may already have closed some of these (a sibling version of the same
    # assertion); a second close would be a conflict, so close only what is still open.
    still_open = tx.get_facts([c.fact_id for c in closures])
    tx.close_knowledge([c for c in closures if still_open[c.fact_id].superseded_at is None])
    return [run.decided[fid] for fid in ids]


def _levels(p: Plan) -> list[list[Affected]]:
    """The plan's facts by level: each after every affected fact it is derived from, in the
    plan's (topological) order within a level."""
    level: dict[str, int] = {}
    for a in p.affected:
        level[a.fact.id] = 1 + max((level[i] for ids in p.inputs(a.fact.id) for i in ids
                                    if i in level), default=-1)
    levels: list[list[Affected]] = [[] for _ in range(max(level.values(), default=-1) + 1)]
    for a in p.affected:
        levels[level[a.fact.id]].append(a)
    return levels


def _usable(justs: list[Justification], replaced: Mapping[str, str],
            ) -> tuple[Justification, Recipe] | None:
    usable = [j for j in justs if any(i in replaced for i, _ in j.inputs)]
    if not usable:
        return None  # the broken inputs have no successor
    j = min(usable, key=lambda x: x.derivation.id)
    try:
        return j, from_derivation(j.derivation)
    except RecipeError:
        return None  # an inference's evidence: it just closes


@dataclass
class _Run:
    """One recompute's progress: the ends decided, each broken fact's successor, the outcomes,
    and the assertions it has derived a version of."""

    tx: StoreTx
    now: datetime
    actor: str
    tolerance: float
    ends: dict[str, datetime | None]
    replaced: dict[str, str]
    decided: dict[str, Outcome] = field(default_factory=dict)
    derived: set[str] = field(default_factory=set)

    def level(self, redo: list[_Redo]) -> None:
        if not redo:
            return
        values = self.tx.get_facts(sorted({i for r in redo for i in r.inputs.values()}))
        same: list[_Redo] = []
        changed: list[_Redo] = []
        for r in redo:
            value = r.recipe.evaluate({role: values[i].value for role, i in r.inputs.items()})
            (same if _same(value, r.fact.value, self.tolerance) else changed).append(r)
        self.tx.put_derivations(*(DerivationWrite(
            r.recipe.derivation(r.inputs, r.fact.key),
            tuple(sorted((i, role) for role, i in r.inputs.items())), (r.fact.id,), self.now)
            for r in same))
        for r in same:
            self.ends[r.fact.id] = None
            a = r.affected
            self.decided[r.fact.id] = Outcome(a.fact, a.depth, a.path, Fate.UNCHANGED, None)
        # Two versions of one assertion (rare) are superseded one after the other, each round
        # closing before it derives, as one at a time would.
        for part in rounds([r.fact.key for r in changed]):
            self.supersede([changed[n] for n in part])

    def supersede(self, batch: list[_Redo]) -> None:
        # Each was open when the recompute began; only a version this recompute derived of the
        # same assertion can have closed it since (derive_all closes open predecessors), so
        # only those are read again (a read of 10,000 whole facts was a tenth of a recompute).
        doubtful = [r.fact.id for r in batch if r.fact.key in self.derived]
        now_open = self.tx.get_facts(doubtful) if doubtful else {}
        self.tx.close_knowledge([
            Closure(r.fact.id, r.end, self.now) for r in batch
            if now_open.get(r.fact.id, r.fact).superseded_at is None])
        # No cycle walk: a recompute only swaps inputs for newer versions of the same
        # assertions, so the assertion-level graph (checked when the derivation was first
        # written) is unchanged.
        derived = derive_all(self.tx, self.now, [Request(
            Scope.from_terms(r.fact.tenant, list(r.fact.scope)), r.recipe, r.inputs,
            Output(r.fact.subject, r.fact.predicate, r.fact.valid_from, r.fact.valid_to,
                   r.fact.unit, r.fact.status),
            replaces=r.fact.id,
            cause=next(self.replaced[i] for i, _ in r.justification.inputs
                       if i in self.replaced))
            for r in batch], actor=self.actor, check_cycles=False)
        self.derived.update([*(r.fact.key for r in batch), *(d.fact.key for d in derived)])
        for r, d in zip(batch, derived, strict=True):
            a, fresh = r.affected, d.fact
            if fresh.id == r.fact.id:
                self.decided[r.fact.id] = Outcome(a.fact, a.depth, a.path, Fate.UNCHANGED,
                                                  None)
            else:
                self.replaced[r.fact.id] = fresh.id
                self.decided[r.fact.id] = Outcome(a.fact, a.depth, a.path, Fate.RECOMPUTED,
                                                  r.end, fresh)


def _same(new: Value, old: Value, tolerance: float) -> bool:
    numeric = (int, float)
    if isinstance(new, numeric) and isinstance(old, numeric) and not isinstance(new, bool):
        return abs(float(new) - float(old)) <= tolerance
    return new == old
