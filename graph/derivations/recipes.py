"""Recipes: named, versioned computations from input facts to one derived value.

A recipe is either a formula in the safe expression language (``vintage.graph.derivations.expr``:
parsed, never
``eval``-ed) or a registered Python function. Derivation nodes store the recipe's name, version,
formula and parameters, so a recipe can be rebuilt from the graph to recompute on new inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from vintage.graph.core.errors import UserError
from vintage.graph.core.model import DerivationIn, Value, check_value, digest
from vintage.graph.derivations.expr import Expr, ExprError
from vintage.graph.derivations.expr_parse import parse

Function = Callable[[Mapping[str, Value], Mapping[str, Value]], Value]
_FUNCTIONS: dict[tuple[str, str], Function] = {}


class RecipeError(UserError, ValueError):
    """A recipe that cannot be built or applied to the given inputs."""


def register(name: str, version: str) -> Callable[[Function], Function]:
    """Register a Python recipe ``fn(inputs, parameters) -> value`` under (name, version)."""

    def decorate(fn: Function) -> Function:
        known = _FUNCTIONS.get((name, version))
        if known is not None and known is not fn:
            raise RecipeError(f"recipe {name} v{version} is already registered")
        _FUNCTIONS[(name, version)] = fn
        return fn

    return decorate


@dataclass(frozen=True)
class Recipe:
    name: str
    version: str
    formula: str | None = None
    parameters: Mapping[str, Value] = field(default_factory=dict)
    _expr: Expr | None = field(default=None, compare=False, repr=False)

    def evaluate(self, inputs: Mapping[str, Value]) -> Value:
        if self._expr is not None:
            env: dict[str, Any] = {**self.parameters, **inputs}
            for role, value in env.items():
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise RecipeError(f"{self.name}: input {role!r} is not a number: {value!r}")
            try:
                result: Value = self._expr.evaluate(env)
            except ExprError as exc:
                raise RecipeError(f"{self.name} v{self.version}: {exc}") from exc
        else:
            result = _FUNCTIONS[(self.name, self.version)](inputs, self.parameters)
        try:
            return check_value(result)
        except ValueError as exc:
            raise RecipeError(f"{self.name} v{self.version} produced {exc}") from exc

    def check_roles(self, roles: set[str]) -> None:
        if self._expr is None:
            return
        missing = self._expr.names() - roles - set(self.parameters)
        unused = roles - self._expr.names()
        if missing or unused:
            raise RecipeError(
                f"{self.name}: formula {self.formula!r} needs {sorted(missing) or 'nothing more'}"
                f" and does not use {sorted(unused) or 'nothing'}; inputs must match its names"
            )

    def derivation(self, inputs: Mapping[str, str], output_key: str) -> DerivationIn:
        """The Derivation node for these exact inputs: same recipe, same inputs, same id."""
        ident = "d" + digest(self.name, self.version, self.formula, dict(self.parameters),
                             sorted(inputs.items()), output_key)
        return DerivationIn(id=ident, recipe=self.name, version=self.version,
                            formula=self.formula, parameters=dict(self.parameters))


def expression(name: str, version: str, formula: str, **parameters: Value) -> Recipe:
    try:
        parsed = parse(formula)
    except ExprError as exc:
        raise RecipeError(f"recipe {name}: {exc}") from exc
    return Recipe(name, version, parsed.render(), parameters, parsed)


def function(name: str, version: str, **parameters: Value) -> Recipe:
    if (name, version) not in _FUNCTIONS:
        raise RecipeError(f"no Python recipe registered as {name} v{version}")
    return Recipe(name, version, None, parameters)


def from_derivation(derivation: DerivationIn) -> Recipe:
    """Rebuild the recipe a stored derivation ran, to recompute it on new inputs."""
    if derivation.formula is not None:
        return expression(derivation.recipe, derivation.version, derivation.formula,
                          **derivation.parameters)
    return function(derivation.recipe, derivation.version, **derivation.parameters)
