"""A small, safe expression language for derivation recipes (``revenue - cost``, ``sum(q1, q2)``).

User text is tokenized and parsed by hand (``vintage.graph.derivations.expr_parse``) into the frozen
dataclasses of this module; it never reaches ``eval``.
Conditions (comparisons, ``and``, ``or``, ``not``) and numbers are separate kinds, and the node
constructors refuse to mix them, so an ill-typed tree cannot even be built; the parser turns
those refusals into errors that name the column.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from vintage.graph.core.errors import UserError
from vintage.graph.core.limits import INT64_MAX, INT64_MIN

__all__ = ["Binary", "Call", "Expr", "ExprError", "Num", "Unary", "Var"]

MAX_CHARS = 2000
MAX_DEPTH = 64
Number = int | float
FUNCTIONS = ("abs", "if", "max", "min", "sum")
# Binding strength, loosest first; render() parenthesises a child only when it binds looser.
OR, AND, NOT, CMP, ADD, MUL, UNARY, ATOM = range(1, 9)
# op -> (strength, operands are conditions, result is a condition)
BINARY_OPS = {
    "or": (OR, True, True), "and": (AND, True, True),
    **dict.fromkeys(("<", "<=", ">", ">=", "==", "!="), (CMP, False, True)),
    "+": (ADD, False, False), "-": (ADD, False, False),
    "*": (MUL, False, False), "/": (MUL, False, False),
}
UNARY_OPS = {"not": (NOT, True, True), "-": (UNARY, False, False), "+": (UNARY, False, False)}
_APPLY: dict[str, Callable[[Any, Any], Any]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne, "+": operator.add, "-": operator.sub,
    "*": operator.mul, "/": operator.truediv,
}
_REDUCE: dict[str, Callable[[list[Number]], Number]] = {"sum": sum, "min": min, "max": max}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)


class ExprError(UserError, ValueError):
    """A formula that cannot be parsed, built or evaluated; the message says where and why."""


def _need(e: Expr, condition: bool, where: str) -> None:
    if e.is_condition and not condition:
        raise ExprError(f"{where} needs a number, but {e.render()!r} is a condition")
    if condition and not e.is_condition:
        raise ExprError(f"{where} needs a condition (a comparison, 'and', 'or' or 'not'), "
                        f"but {e.render()!r} is a number")


def _in_range(value: Number, what: str) -> Number:
    # Python floats overflow to inf silently and ints never overflow; recipes feed stores that
    # hold finite floats and signed 64-bit ints, so both are caught where they arise.
    if isinstance(value, float) and not math.isfinite(value):
        raise ExprError(f"{what} is not finite")
    if isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:
        raise ExprError(f"{what} is outside the signed 64-bit integer range")
    return value


@dataclass(frozen=True)
class Expr:
    """A parsed formula. Build one with :func:`parse`; trees are immutable and hashable."""

    depth: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._validate()
        depth = 1 + max((c.depth for c in self.children()), default=0)
        # Every walk over the tree recurses, so depth is capped where trees are made.
        if depth > MAX_DEPTH:
            raise ExprError(f"formula nests deeper than {MAX_DEPTH} levels "
                            "(a chain like a + b + c nests once per operator; sum() does not)")
        object.__setattr__(self, "depth", depth)

    def _validate(self) -> None:
        raise TypeError("Expr is abstract; use parse()")

    def children(self) -> tuple[Expr, ...]:
        return ()

    def _spec(self) -> tuple[int, bool, bool]:
        """(binding strength, operands are conditions, result is a condition)."""
        return ATOM, False, False

    @property
    def precedence(self) -> int:
        return self._spec()[0]

    @property
    def is_condition(self) -> bool:
        return self._spec()[2]

    def names(self) -> frozenset[str]:
        """The input roles the formula reads."""
        return frozenset().union(*(c.names() for c in self.children()))

    def evaluate(self, env: Mapping[str, Number]) -> Number:
        """The formula's value given a number for each name in :meth:`names`."""
        if self.is_condition:
            raise ExprError(f"{self.render()!r} is a condition, not a number")
        return self._eval(env)

    def _eval(self, env: Mapping[str, Number]) -> Number:
        raise NotImplementedError

    def render(self) -> str:
        """Canonical text that parses back to an equal tree."""
        raise NotImplementedError

    def _wrap(self, min_strength: int) -> str:
        return self.render() if self.precedence >= min_strength else f"({self.render()})"

    def __str__(self) -> str:
        return self.render()


@dataclass(frozen=True)
class Num(Expr):
    value: Number

    def _validate(self) -> None:
        v = self.value
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise ExprError(f"a number must be an int or a float, not {type(v).__name__}")
        # A negative literal would render as unary minus and so not survive a round trip.
        if math.copysign(1, v) < 0:
            raise ExprError(f"number {v!r} is negative; use unary minus")
        _in_range(v, f"number {v!r}")

    def _eval(self, env: Mapping[str, Number]) -> Number:
        return self.value

    def render(self) -> str:
        return repr(self.value)


@dataclass(frozen=True)
class Var(Expr):
    name: str

    def _validate(self) -> None:
        if not _IDENT.fullmatch(self.name) or self.name in (*FUNCTIONS, "and", "or", "not"):
            raise ExprError(f"{self.name!r} is not a usable name")

    def names(self) -> frozenset[str]:
        return frozenset({self.name})

    def _eval(self, env: Mapping[str, Number]) -> Number:
        if self.name not in env:
            raise ExprError(f"no value for {self.name!r}")
        value: object = env[self.name]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ExprError(f"value for {self.name!r} must be an int or a float, "
                            f"not {type(value).__name__}")
        return _in_range(value, f"value for {self.name!r}")

    def render(self) -> str:
        return self.name


@dataclass(frozen=True)
class Unary(Expr):
    op: str  # "-", "+" or "not"
    operand: Expr

    def _validate(self) -> None:
        if self.op not in UNARY_OPS:
            raise ExprError(f"unknown unary operator {self.op!r}")
        _need(self.operand, UNARY_OPS[self.op][1], repr(self.op))

    def children(self) -> tuple[Expr, ...]:
        return (self.operand,)

    def _spec(self) -> tuple[int, bool, bool]:
        return UNARY_OPS[self.op]

    def _eval(self, env: Mapping[str, Number]) -> Number:
        v = self.operand._eval(env)
        if self.op == "not":
            return not v
        return _in_range(-v if self.op == "-" else v, f"result of {self.render()!r}")

    def render(self) -> str:
        return ("not " if self.op == "not" else self.op) + self.operand._wrap(self.precedence)


@dataclass(frozen=True)
class Binary(Expr):
    op: str  # arithmetic, comparison, "and" or "or"
    left: Expr
    right: Expr

    def _validate(self) -> None:
        if self.op not in BINARY_OPS:
            raise ExprError(f"unknown binary operator {self.op!r}")
        for side in (self.left, self.right):
            _need(side, BINARY_OPS[self.op][1], repr(self.op))

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)

    def _spec(self) -> tuple[int, bool, bool]:
        return BINARY_OPS[self.op]

    def _eval(self, env: Mapping[str, Number]) -> Number:
        left = self.left._eval(env)
        # and/or short-circuit, so a guard such as `b != 0 and a / b > 1` is safe.
        if self.op == "and":
            return bool(left) and bool(self.right._eval(env))
        if self.op == "or":
            return bool(left) or bool(self.right._eval(env))
        right = self.right._eval(env)
        if self.op == "/" and right == 0:
            raise ExprError(f"division by zero in {self.render()!r}")
        return _in_range(_APPLY[self.op](left, right), f"result of {self.render()!r}")

    def render(self) -> str:
        # Left-associative (comparisons never chain): only the right child needs parentheses
        # at equal strength.
        p = self.precedence
        return f"{self.left._wrap(p)} {self.op} {self.right._wrap(p + 1)}"


@dataclass(frozen=True)
class Call(Expr):
    func: str  # one of FUNCTIONS
    args: tuple[Expr, ...]

    def _validate(self) -> None:
        f, n = self.func, len(self.args)
        if f not in FUNCTIONS:
            raise ExprError(f"unknown function {f!r}; the functions are {', '.join(FUNCTIONS)}")
        if f == "if" and n != 3:
            raise ExprError(f"if() takes 3 arguments (condition, then, else), got {n}")
        if f == "abs" and n != 1:
            raise ExprError(f"abs() takes exactly 1 argument, got {n}")
        if n == 0:
            raise ExprError(f"{f}() needs at least one argument")
        for i, a in enumerate(self.args):
            _need(a, f == "if" and i == 0, f"argument {i + 1} of {f}()")

    def children(self) -> tuple[Expr, ...]:
        return self.args

    def _eval(self, env: Mapping[str, Number]) -> Number:
        if self.func == "if":
            # Lazy on purpose: the untaken branch is often the one that would divide by zero.
            cond, then, otherwise = self.args
            return (then if cond._eval(env) else otherwise)._eval(env)
        values = [a._eval(env) for a in self.args]
        result = abs(values[0]) if self.func == "abs" else _REDUCE[self.func](values)
        return _in_range(result, f"result of {self.render()!r}")

    def render(self) -> str:
        return f"{self.func}({', '.join(a.render() for a in self.args)})"
