"""A small, safe expression language for derivation recipes (``revenue - cost``, ``sum(q1, q2)``).

User text is tokenized and parsed by hand into frozen dataclasses; it never reaches ``eval``.
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
from typing import Any, NamedTuple, NoReturn

__all__ = ["Binary", "Call", "Expr", "ExprError", "Name", "Num", "Unary", "parse"]

MAX_CHARS = 2000
MAX_DEPTH = 64
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
Number = int | float
FUNCTIONS = ("abs", "if", "max", "min", "sum")
# Binding strength, loosest first; render() parenthesises a child only when it binds looser.
OR, AND, NOT, CMP, ADD, MUL, UNARY, ATOM = range(1, 9)
# op -> (strength, operands are conditions, result is a condition)
_BINARY = {
    "or": (OR, True, True), "and": (AND, True, True),
    **dict.fromkeys(("<", "<=", ">", ">=", "==", "!="), (CMP, False, True)),
    "+": (ADD, False, False), "-": (ADD, False, False),
    "*": (MUL, False, False), "/": (MUL, False, False),
}
_UNARY = {"not": (NOT, True, True), "-": (UNARY, False, False), "+": (UNARY, False, False)}
_APPLY: dict[str, Callable[[Any, Any], Any]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne, "+": operator.add, "-": operator.sub,
    "*": operator.mul, "/": operator.truediv,
}
_REDUCE: dict[str, Callable[[list[Number]], Number]] = {"sum": sum, "min": min, "max": max}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)
_TOKEN = re.compile(
    r"(?P<num>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op><=|>=|==|!=|[-+*/<>(),])",
    re.ASCII,
)


class ExprError(ValueError):
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
class Name(Expr):
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
        if self.op not in _UNARY:
            raise ExprError(f"unknown unary operator {self.op!r}")
        _need(self.operand, _UNARY[self.op][1], repr(self.op))

    def children(self) -> tuple[Expr, ...]:
        return (self.operand,)

    def _spec(self) -> tuple[int, bool, bool]:
        return _UNARY[self.op]

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
        if self.op not in _BINARY:
            raise ExprError(f"unknown binary operator {self.op!r}")
        for side in (self.left, self.right):
            _need(side, _BINARY[self.op][1], repr(self.op))

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)

    def _spec(self) -> tuple[int, bool, bool]:
        return _BINARY[self.op]

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


class _Token(NamedTuple):
    kind: str  # "num", "name", "op" (the keywords and/or/not included) or "end"
    text: str
    pos: int


class _Parser:
    def __init__(self, text: str) -> None:
        self.text, self.i, self.nesting = text, 0, 0
        self.tokens: list[_Token] = []
        pos = 0
        while True:
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos == len(text):
                break
            m = _TOKEN.match(text, pos)
            if m is None:
                self.fail(f"unexpected character {text[pos]!r}", pos)
            kind = "op" if m.group() in ("and", "or", "not") else m.lastgroup or "op"
            self.tokens.append(_Token(kind, m.group(), pos))
            pos = m.end()
        self.tokens.append(_Token("end", "", len(text)))

    def fail(self, message: str, pos: int) -> NoReturn:
        raise ExprError(f"formula {self.text!r}: {message} at column {pos + 1}")

    def take(self, *ops: str) -> _Token | None:
        """The next token if it is one of ``ops`` (consumed), else None."""
        tok = self.tokens[self.i]
        if tok.kind == "op" and tok.text in ops:
            self.i += 1
            return tok
        return None

    def expect(self, op: str, what: str) -> None:
        if not self.take(op):
            self.fail(f"expected {what}", self.tokens[self.i].pos)

    def build(self, pos: int, make: Callable[..., Expr], *args: Any) -> Expr:
        try:
            return make(*args)
        except ExprError as e:
            self.fail(str(e), pos)

    def nested(self, pos: int, sub: Callable[[], Expr]) -> Expr:
        # Parentheses and prefix operators recurse without deepening the tree much, so the
        # parser bounds its own recursion as well.
        self.nesting += 1
        if self.nesting > MAX_DEPTH:
            self.fail(f"formula nests deeper than {MAX_DEPTH} levels", pos)
        try:
            return sub()
        finally:
            self.nesting -= 1

    def expr(self) -> Expr:
        return self.nested(self.tokens[self.i].pos, lambda: self.binary(OR))

    def binary(self, min_strength: int) -> Expr:
        # Precedence climbing: one frame per operator level keeps deep parentheses cheap.
        left = self.operand(min_strength)
        while True:
            tok = self.tokens[self.i]
            spec = _BINARY.get(tok.text) if tok.kind == "op" else None
            if spec is None or spec[0] < min_strength:
                return left
            self.i += 1
            left = self.build(tok.pos, Binary, tok.text, left, self.binary(spec[0] + 1))
            nxt = self.tokens[self.i]
            if spec[0] == CMP and _BINARY.get(nxt.text, (0,))[0] == CMP:
                self.fail("comparisons cannot be chained; join them with 'and'", nxt.pos)

    def operand(self, min_strength: int) -> Expr:
        # 'not' binds looser than comparisons, so it is only a prefix where a condition may
        # start; elsewhere it falls through to primary() and is reported there.
        if min_strength <= NOT and (tok := self.take("not")):
            inner = self.nested(tok.pos, lambda: self.binary(NOT))
            return self.build(tok.pos, Unary, "not", inner)
        if tok := self.take("-", "+"):
            inner = self.nested(tok.pos, lambda: self.operand(UNARY))
            return self.build(tok.pos, Unary, tok.text, inner)
        return self.primary()

    def primary(self) -> Expr:
        tok = self.tokens[self.i]
        if self.take("("):
            inner = self.expr()
            self.expect(")", "')'")
            return inner
        if tok.kind not in ("num", "name"):
            self.fail("expected a number, name or '('", tok.pos)
        self.i += 1
        if tok.kind == "num":
            value = float(tok.text) if any(c in tok.text for c in ".eE") else int(tok.text)
            if value == math.inf:
                self.fail(f"number {tok.text} is too large", tok.pos)
            return self.build(tok.pos, Num, value)
        if tok.text not in FUNCTIONS:
            if self.tokens[self.i].text == "(":
                self.fail(f"unknown function {tok.text!r}; the functions are "
                          f"{', '.join(FUNCTIONS)}", tok.pos)
            return self.build(tok.pos, Name, tok.text)
        self.expect("(", f"'(' after {tok.text!r}")
        args: list[Expr] = []
        if not self.take(")"):
            args.append(self.expr())
            while self.take(","):
                args.append(self.expr())
            self.expect(")", "',' or ')'")
        return self.build(tok.pos, Call, tok.text, tuple(args))


def parse(text: str) -> Expr:
    """Parse a formula; raise :class:`ExprError` naming the column of the first problem."""
    if not text.strip():
        raise ExprError("formula is empty")
    if len(text) > MAX_CHARS:
        raise ExprError(f"formula is {len(text)} characters long; the limit is {MAX_CHARS}")
    parser = _Parser(text)
    result = parser.expr()
    if (end := parser.tokens[parser.i]).kind != "end":
        parser.fail("expected an operator or the end of the formula", end.pos)
    if result.is_condition:
        raise ExprError(f"formula {text!r} is a condition; a formula must produce a number")
    return result
