"""Metric definitions for as-of metric questions: what to read and how to combine it.

A :class:`Metric` names roles (``revenue``, ``operating_income``), gives each role an ordered
list of predicate aliases (the first one a company reported for a period wins, because concepts
change across years and taxonomies), and a formula over the roles in the safe expression
language (``vintage.graph.derivations.expr``). Nothing here touches a store; the engine reads facts
and evaluates.

Decisions:

* ``additive`` says whether the metric's *inputs* may be summed over quarters or subtracted
  (FY - nine months YTD = Q4). Flows are additive. Margins are additive too: their inputs are
  flows, and an LTM margin is sum(operating income) / sum(revenue), not a sum of margins. Diluted
  EPS is not strictly additive (share counts change between quarters), but analysts sum
  quarterly EPS for LTM, so it is marked additive; the value is then an approximation.
* ``growth`` metrics compute the base formula for the period and for the same window a year
  earlier, then ``100 * (current - prior) / abs(prior)``: the usual ``100 * (current / prior -
  1)`` when prior > 0, and still a sensible sign when the prior period was a loss.
* ``fallback`` is a second definition tried when the first cannot be evaluated for a period
  (gross profit = revenue - cost of revenue when GrossProfit was not reported). It carries the
  same name, so lineage reads ``metric:gross_profit`` either way; its formula differs, so its
  recipe version, and hence its derivation ids, differ.
* The recipe version is a digest of everything that changes a computed value (formula, aliases,
  overrides, unit, window, flags, fallback); the description is left out.
* A concept (``us-gaap:Revenues``) is a one-role metric ``value`` with unit ``""``, meaning "the
  concept's own unit".
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, Literal, get_args

from vintage.graph.core.errors import UserError
from vintage.graph.core.model import digest
from vintage.graph.derivations.expr import ExprError
from vintage.graph.derivations.expr_parse import parse
from vintage.graph.derivations.recipes import Recipe, expression

__all__ = [
    "BUILTIN",
    "GROWTH_FORMULA",
    "Metric",
    "MetricError",
    "WindowKind",
    "resolve_metric",
]

WindowKind = Literal["quarter", "fy", "ltm", "any"]
Aliases = tuple[str, ...]
GROWTH_FORMULA = "100 * (current - prior) / abs(prior)"
PREDICATE = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}:[A-Za-z_][A-Za-z0-9_.-]{0,255}", re.ASCII)
NAME = re.compile(r"[a-z][a-z0-9_]{0,63}", re.ASCII)


class MetricError(UserError, ValueError):
    """A metric that cannot be defined, loaded or found; the message names what is wrong."""


def _freeze(roles: Mapping[str, Any]) -> Mapping[str, Aliases]:
    for role, aliases in roles.items():
        if isinstance(aliases, str):  # tuple("a:B") would be a tuple of letters
            raise MetricError(f"role {str(role)[:40]!r}: give a sequence of predicates, "
                              "not one string")
    return MappingProxyType({role: tuple(aliases) for role, aliases in roles.items()})


@dataclass(frozen=True)
class Metric:
    """A metric: ``formula`` over the roles of ``inputs`` (role -> predicate aliases, first
    reported wins per period), in ``unit``; ``window`` is the period used when none is asked
    for ("any" means LTM); ``subjects`` replaces some roles' aliases for one subject."""

    name: str
    formula: str
    inputs: Mapping[str, Aliases]
    unit: str
    window: WindowKind = "any"
    additive: bool = True
    growth: bool = False
    subjects: Mapping[str, Mapping[str, Aliases]] = field(default_factory=dict)
    description: str = ""
    fallback: Metric | None = None

    def __post_init__(self) -> None:
        # Copies, so a caller's later edits to its dicts cannot change a defined metric.
        object.__setattr__(self, "inputs", _freeze(self.inputs))
        object.__setattr__(self, "subjects", MappingProxyType(
            {s: _freeze(roles) for s, roles in self.subjects.items()}))
        self._validate()

    def _fail(self, what: str, message: str) -> MetricError:
        return MetricError(f"metric {self.name[:64]!r}, field {what!r}: {message}")

    def _validate(self) -> None:
        if not (NAME.fullmatch(self.name) or PREDICATE.fullmatch(self.name)):
            raise self._fail("name", "use lowercase letters, digits and '_' "
                                     "(or a concept such as us-gaap:Revenues)")
        try:
            names = parse(self.formula).names()
        except ExprError as exc:
            raise self._fail("formula", str(exc)) from None
        if names != set(self.inputs):
            raise self._fail("formula", f"uses roles {sorted(names)} but inputs define "
                                        f"{sorted(self.inputs)}; they must match exactly")
        if self.window not in get_args(WindowKind):
            raise self._fail("window", f"{self.window!r} is not one of {get_args(WindowKind)}")
        self._check_roles("inputs", self.inputs)
        for subject, roles in self.subjects.items():
            if not subject or not subject.strip():
                raise self._fail("subjects", "a subject id is empty")
            if unknown := set(roles) - set(self.inputs):
                raise self._fail(f"subjects.{subject}", f"overrides unknown roles "
                                                        f"{sorted(unknown)}")
            self._check_roles(f"subjects.{subject}", roles)
        if self.fallback is not None and self.fallback.name != self.name:
            raise self._fail("fallback", f"is named {self.fallback.name!r}; it must share "
                                         "the metric's name")

    def _check_roles(self, what: str, roles: Mapping[str, Aliases]) -> None:
        for role, aliases in roles.items():
            if not aliases:
                raise self._fail(f"{what}.{role}", "needs at least one predicate")
            for p in aliases:
                if not isinstance(p, str) or not PREDICATE.fullmatch(p):
                    raise self._fail(f"{what}.{role}", f"{str(p)[:80]!r} is not a predicate "
                                                       "like prefix:Name")
            if len(set(aliases)) != len(aliases):
                raise self._fail(f"{what}.{role}", "lists a predicate twice")

    def __hash__(self) -> int:
        return hash(self.version)

    @cached_property
    def version(self) -> str:
        """A short digest of the definition: change anything computed, get new derivation ids."""
        return digest(
            self.name, self.formula, sorted(self.inputs.items()), self.unit, self.window,
            self.additive, self.growth,
            sorted((s, sorted(r.items())) for s, r in self.subjects.items()),
            self.fallback.version if self.fallback is not None else None,
        )[:12]

    def aliases_for(self, subject: str, role: str) -> Aliases:
        """The predicates to try for ``role``, in order; a per-subject override replaces them."""
        if role not in self.inputs:
            raise MetricError(f"metric {self.name!r} has no role {role!r}")
        return self.subjects.get(subject, {}).get(role, self.inputs[role])

    def predicates_for(self, subject: str) -> set[str]:
        """Every predicate this metric (or its fallback) may read for ``subject``."""
        found = {p for role in self.inputs for p in self.aliases_for(subject, role)}
        return found | (self.fallback.predicates_for(subject) if self.fallback else set())

    def recipe(self) -> Recipe:
        """The per-period formula; for a growth metric, the base value of each period."""
        return expression(f"metric:{self.name}", self.version, self.formula)

    def growth_recipe(self) -> Recipe:
        """Growth from two base values, roles ``current`` and ``prior`` (growth metrics only)."""
        if not self.growth:
            raise MetricError(f"metric {self.name!r} is not a growth metric")
        return expression(f"metric:{self.name}:growth", self.version, GROWTH_FORMULA)


def _one(role: str, *aliases: str) -> dict[str, Aliases]:
    return {role: aliases}


REVENUE = _one(
    "revenue", "us-gaap:Revenues", "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
    "us-gaap:RevenueFromContractWithCustomerIncludingAssessedTax", "us-gaap:SalesRevenueNet",
    "us-gaap:SalesRevenueGoodsNet", "ifrs-full:Revenue",
)
# CostOfServices and CostOfGoodsAndServiceExcludingDepreciation... are left out: the first is
# only part of the cost of revenue for most filers, the second leaves out depreciation.
COST = _one(
    "cost_of_revenue", "us-gaap:CostOfRevenue", "us-gaap:CostOfGoodsAndServicesSold",
    "us-gaap:CostOfGoodsSold", "ifrs-full:CostOfSales",
)
GROSS = _one("gross_profit", "us-gaap:GrossProfit", "ifrs-full:GrossProfit")
OPERATING = _one(
    "operating_income", "us-gaap:OperatingIncomeLoss",
    "ifrs-full:ProfitLossFromOperatingActivities",
)
# Attributable to the parent first: that is what EPS divides. ProfitLoss (with minority
# interests) is the fallback for filers that tag only the consolidated figure.
NET = _one(
    "net_income", "us-gaap:NetIncomeLoss", "ifrs-full:ProfitLossAttributableToOwnersOfParent",
    "us-gaap:ProfitLoss", "ifrs-full:ProfitLoss",
)
EPS = _one(
    "eps_diluted", "us-gaap:EarningsPerShareDiluted", "us-gaap:EarningsPerShareBasicAndDiluted",
    "ifrs-full:DilutedEarningsLossPerShare", "ifrs-full:BasicAndDilutedEarningsLossPerShare",
)


def _builtins() -> dict[str, Metric]:
    gross_computed = Metric("gross_profit", "revenue - cost_of_revenue", {**REVENUE, **COST},
                            "USD", description="revenue less cost of revenue")
    margin_computed = Metric("gross_margin", "100 * (revenue - cost_of_revenue) / revenue",
                             {**REVENUE, **COST}, "percent",
                             description="100 * (revenue - cost of revenue) / revenue")
    metrics = [
        Metric("revenue", "revenue", REVENUE, "USD", description="total revenue"),
        Metric("cost_of_revenue", "cost_of_revenue", COST, "USD",
               description="cost of revenue (cost of goods and services sold)"),
        Metric("gross_profit", "gross_profit", GROSS, "USD", fallback=gross_computed,
               description="gross profit as reported, else revenue - cost of revenue"),
        Metric("operating_income", "operating_income", OPERATING, "USD",
               description="operating income (loss)"),
        Metric("net_income", "net_income", NET, "USD",
               description="net income (loss) attributable to the parent"),
        Metric("eps_diluted", "eps_diluted", EPS, "USD/shares",
               description="diluted earnings per share; LTM sums four quarters"),
        Metric("gross_margin", "100 * gross_profit / revenue", {**GROSS, **REVENUE}, "percent",
               fallback=margin_computed, description="gross profit per 100 of revenue"),
        Metric("operating_margin", "100 * operating_income / revenue", {**OPERATING, **REVENUE},
               "percent", description="operating income per 100 of revenue"),
        Metric("net_margin", "100 * net_income / revenue", {**NET, **REVENUE}, "percent",
               description="net income per 100 of revenue"),
    ]
    for base, inputs in (("revenue", REVENUE), ("net_income", NET),
                         ("operating_income", OPERATING)):
        metrics.append(Metric(f"{base}_growth", base, inputs, "percent", growth=True,
                              description=f"{base.replace('_', ' ')}, change on the same "
                                          "window a year earlier, in percent"))
    return {m.name: m for m in metrics}


BUILTIN: Mapping[str, Metric] = MappingProxyType(_builtins())


def resolve_metric(text: str, user_metrics: Mapping[str, Metric] | None = None) -> Metric:
    """A built-in or user metric by name (any case, '-' or ' ' for '_'), or a concept."""
    raw = text.strip()
    if PREDICATE.fullmatch(raw):
        return Metric(raw, "value", {"value": (raw,)}, "",
                      description=f"the concept {raw} as reported")
    key = re.sub(r"[-\s]+", "_", raw.lower())
    user = user_metrics or {}
    if key in BUILTIN:
        return BUILTIN[key]
    if key in user:
        return user[key]
    close = difflib.get_close_matches(key, [*BUILTIN, *user], n=3, cutoff=0.6)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    shown = raw[:40] + ("…" if len(raw) > 40 else "")
    raise MetricError(f"unknown metric {shown!r}.{hint} Built-in metrics: {', '.join(BUILTIN)}; "
                      "or give a concept such as us-gaap:Revenues")
