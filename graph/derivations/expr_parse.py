"""The parser of the recipe expression language (``vintage.graph.derivations.expr``): text to a
typed tree.

A hand-written tokenizer and precedence-climbing parser; every refusal names the column."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from typing import Any, NamedTuple, NoReturn

from vintage.graph.derivations.expr import (
    BINARY_OPS,
    CMP,
    FUNCTIONS,
    MAX_CHARS,
    MAX_DEPTH,
    NOT,
    OR,
    UNARY,
    Binary,
    Call,
    Expr,
    ExprError,
    Num,
    Unary,
    Var,
)

_TOKEN = re.compile(
    r"(?P<num>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op><=|>=|==|!=|[-+*/<>(),])",
    re.ASCII,
)


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
            spec = BINARY_OPS.get(tok.text) if tok.kind == "op" else None
            if spec is None or spec[0] < min_strength:
                return left
            self.i += 1
            left = self.build(tok.pos, Binary, tok.text, left, self.binary(spec[0] + 1))
            nxt = self.tokens[self.i]
            if spec[0] == CMP and BINARY_OPS.get(nxt.text, (0,))[0] == CMP:
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
            return self.build(tok.pos, Var, tok.text)
        self.expect("(", f"'(' after {tok.text!r}")
        args: list[Expr] = []
        if not self.take(")"):
            args.append(self.expr())
            while self.take(","):
                args.append(self.expr())
            self.expect(")", "',' or ')'")
        return self.build(tok.pos, Call, tok.text, tuple(args))


# A recompute rebuilds one recipe per stored derivation, thousands with the same formula; the
# tree is frozen, so one parse serves them all (a failure is not cached: it raises again).
@functools.lru_cache(maxsize=1024)
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
