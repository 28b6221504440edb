"""The recipe formula language: grammar, evaluation, errors and the render/parse round trip."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vintage.graph.derivations.expr import Binary, Call, Expr, ExprError, Num, Unary, Var
from vintage.graph.derivations.expr_parse import parse

A, B, C = Var("a"), Var("b"), Var("c")
INT64_MAX = 2**63 - 1
relaxed = settings(deadline=None, max_examples=150)


def value(text: str, **env: float) -> float:
    return parse(text).evaluate(env)


# Grammar: precedence, associativity, literals


def test_multiplication_binds_tighter_than_addition() -> None:
    assert parse("a + b * c") == Binary("+", A, Binary("*", B, C))
    assert parse("a * b + c") == Binary("+", Binary("*", A, B), C)
    assert value("2 + 3 * 4") == 14


def test_subtraction_and_division_associate_to_the_left() -> None:
    assert parse("a - b - c") == Binary("-", Binary("-", A, B), C)
    assert parse("a / b * c") == Binary("*", Binary("/", A, B), C)
    assert value("10 - 4 - 3") == 3
    assert value("64 / 4 / 2") == 8.0


def test_parentheses_override_precedence() -> None:
    assert parse("(a + b) * c") == Binary("*", Binary("+", A, B), C)
    assert parse("a - (b - c)") == Binary("-", A, Binary("-", B, C))
    assert value("10 - (4 - 3)") == 9


def test_unary_minus_binds_tighter_than_any_binary_operator_and_can_repeat() -> None:
    assert parse("-a * b") == Binary("*", Unary("-", A), B)
    assert parse("a * -b") == Binary("*", A, Unary("-", B))
    assert parse("-(a + b)") == Unary("-", Binary("+", A, B))
    assert value("--a", a=5) == 5
    assert value("a - -b", a=1, b=2) == 3
    assert value("-x", x=3) == -3


def test_unary_plus_is_accepted_and_kept_in_the_tree() -> None:
    assert parse("+a") == Unary("+", A)
    assert value("+a - 1", a=2) == 1


def test_comparisons_bind_looser_than_arithmetic() -> None:
    tree = parse("if(a + 1 > b * 2, 1, 0)")
    assert tree == Call("if", (Binary(">", Binary("+", A, Num(1)), Binary("*", B, Num(2))),
                               Num(1), Num(0)))


def test_not_binds_looser_than_comparisons_and_and_binds_tighter_than_or() -> None:
    lt, gt, eq = Binary("<", A, B), Binary(">", B, C), Binary("==", A, C)
    tree = parse("if(not a < b and b > c or a == c, 1, 0)")
    assert tree.children()[0] == Binary("or", Binary("and", Unary("not", lt), gt), eq)


def test_each_comparison_operator_compares_numbers() -> None:
    cases = {"<": (True, False, False), "<=": (True, True, False), ">": (False, False, True),
             ">=": (False, True, True), "==": (False, True, False), "!=": (True, False, True)}
    for op, expected in cases.items():
        got = tuple(value(f"if(a {op} b, 1, 0)", a=a, b=2) == 1 for a in (1, 2, 3))
        assert got == expected, op


def test_numbers_may_be_integers_decimals_or_carry_an_exponent() -> None:
    assert parse("42") == Num(42)
    assert type(parse("42").evaluate({})) is int
    assert parse("2.50") == Num(2.5)
    assert parse(".5") == Num(0.5)
    assert repr(parse("1e6")) == repr(Num(1000000.0))
    assert parse("2.5E-3") == Num(0.0025)


def test_whitespace_is_insignificant() -> None:
    assert parse("  sum( a ,b )\t*\n2 ") == parse("sum(a, b) * 2")


# Functions and laziness


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("sum(a)", 1), ("sum(a, b, c)", 6), ("min(c, a, b)", 1), ("min(b)", 2),
        ("max(a, c, b)", 3), ("max(a, b) - min(a, b)", 1), ("abs(a - c)", 2), ("abs(c)", 3),
    ],
)
def test_sum_min_max_and_abs_compute_what_their_names_say(text: str, expected: int) -> None:
    assert value(text, a=1, b=2, c=3) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("revenue - cost", 70),
        ("100 * (op_income / revenue)", 25.0),
        ("sum(q1, q2, q3, q4)", 100),
        ("if(revenue > 0, net / revenue, 0)", 0.125),
        ("-cost", -30),
    ],
)
def test_typical_recipe_formulas_evaluate_as_expected(text: str, expected: float) -> None:
    env = {"revenue": 100, "cost": 30, "op_income": 25, "net": 12.5,
           "q1": 10, "q2": 20, "q3": 30, "q4": 40}
    assert parse(text).evaluate(env) == expected


def test_if_evaluates_only_the_chosen_branch() -> None:
    assert value("if(b == 0, 0, a / b)", a=1, b=0) == 0
    assert value("if(b != 0, a / b, -1)", a=1, b=0) == -1
    assert value("if(b != 0, a / b, -1)", a=1, b=4) == 0.25


def test_and_and_or_stop_as_soon_as_the_answer_is_known() -> None:
    assert value("if(b != 0 and a / b > 1, 1, 0)", a=1, b=0) == 0
    assert value("if(b == 0 or a / b > 1, 1, 0)", a=1, b=0) == 1
    assert value("if(not b == 0 and a / b > 1, 1, 0)", a=3, b=1) == 1


def test_integers_stay_integers_and_division_always_gives_a_float() -> None:
    for text in ("a + b", "a - b", "a * b", "-a", "sum(a, b)", "min(a, b)", "max(a, b)",
                 "abs(a)"):
        assert type(value(text, a=6, b=3)) is int, text
    assert value("a / b", a=6, b=3) == 2.0
    assert type(value("a / b", a=6, b=3)) is float
    assert type(value("a + b", a=1, b=0.5)) is float
    assert type(value("sum(a, b)", a=1, b=0.5)) is float


def test_integer_arithmetic_is_exact_up_to_the_64_bit_limit() -> None:
    assert value("a * 2 + 1", a=2**62 - 1) == INT64_MAX
    assert value("a - 1", a=-(2**63) + 1) == -(2**63)


def test_names_lists_every_input_role_once() -> None:
    assert parse("if(revenue > 0, net / revenue, 0)").names() == {"revenue", "net"}
    assert parse("sum(q1, q2, q1) + -x").names() == {"q1", "q2", "x"}
    assert parse("1 + 2").names() == frozenset()


# Error paths


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a + * b", "formula 'a + * b': expected a number, name or '(' at column 5"),
        ("a +", "expected a number, name or '(' at column 4"),
        ("(a + b", "expected ')' at column 7"),
        ("a b", "expected an operator or the end of the formula at column 3"),
        ("sum(a b)", "expected ',' or ')' at column 7"),
        ("sum + 1", "expected '(' after 'sum' at column 5"),
        ("a < b < c", "comparisons cannot be chained; join them with 'and' at column 7"),
        ("a ^ b", "unexpected character '^' at column 3"),
        ("a + not b", "expected a number, name or '(' at column 5"),
        ("foo(a)", "unknown function 'foo'; the functions are abs, if, max, min, sum at column 1"),
        ("sum()", "sum() needs at least one argument at column 1"),
        ("abs(a, b)", "abs() takes exactly 1 argument, got 2 at column 1"),
        ("if(a > b, c)", "if() takes 3 arguments (condition, then, else), got 2 at column 1"),
        ("1e999", "number 1e999 is too large at column 1"),
        ("9223372036854775808", "outside the signed 64-bit integer range at column 1"),
    ],
)
def test_syntax_errors_name_the_column_and_what_was_expected(text: str, message: str) -> None:
    with pytest.raises(ExprError) as info:
        parse(text)
    assert message in str(info.value)


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_empty_formulas_are_refused(text: str) -> None:
    with pytest.raises(ExprError, match="formula is empty"):
        parse(text)


def test_formulas_longer_than_2000_characters_are_refused() -> None:
    assert parse("a" * 2000).names() == {"a" * 2000}
    with pytest.raises(ExprError, match="2001 characters long; the limit is 2000"):
        parse("a" * 2001)


@pytest.mark.parametrize(
    "build", [lambda n: "(" * n + "a" + ")" * n, lambda n: "-" * n + "a",
              lambda n: "a" + "+a" * n, lambda n: "if(" + "not " * n + "a > 0, 1, 0)",
              lambda n: "if(" * n + "a > 0" + ", 1, 0) > 0" * (n - 1) + ", 1, 0)"],
)
def test_nesting_deeper_than_64_levels_is_refused(build: Callable[[int], str]) -> None:
    parse(build(20))
    with pytest.raises(ExprError, match="nests deeper than 64 levels"):
        parse(build(70))


def test_a_missing_name_is_reported_by_name() -> None:
    with pytest.raises(ExprError, match="no value for 'cost'"):
        value("revenue - cost", revenue=1)


@pytest.mark.parametrize("zero", [0, 0.0, -0.0])
def test_division_by_zero_names_the_division(zero: float) -> None:
    with pytest.raises(ExprError, match=r"^division by zero in 'a / b'$"):
        value("a / b", a=1, b=zero)
    with pytest.raises(ExprError, match=r"division by zero in 'a / \(b - b\)'"):
        value("1 + a / (b - b)", a=1, b=zero)


def test_results_that_are_not_finite_are_refused() -> None:
    with pytest.raises(ExprError, match=r"result of 'a \* b' is not finite"):
        value("a * b", a=1e200, b=1e200)
    with pytest.raises(ExprError, match=r"result of 'sum\(a, a\)' is not finite"):
        value("sum(a, a)", a=1.7e308)
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(ExprError, match="value for 'a' is not finite"):
            value("a + 1", a=bad)


def test_integer_results_outside_the_64_bit_range_are_refused() -> None:
    with pytest.raises(ExprError, match=r"result of 'a \* b' is outside the signed 64-bit"):
        value("a * b", a=2**62, b=2)
    with pytest.raises(ExprError, match="result of '-a' is outside"):
        value("-a", a=-(2**63))
    with pytest.raises(ExprError, match=r"result of 'abs\(a\)' is outside"):
        value("abs(a)", a=-(2**63))
    with pytest.raises(ExprError, match="value for 'a' is outside"):
        value("a", a=2**63)


def test_a_condition_used_as_a_number_is_refused() -> None:
    with pytest.raises(ExprError, match=r"'\+' needs a number, but 'a > b' is a condition"):
        parse("(a > b) + 1")
    with pytest.raises(ExprError, match=r"argument 2 of if\(\) needs a number"):
        parse("if(a > b, a > b, 1)")
    with pytest.raises(ExprError, match="'<' needs a number"):
        Binary("<", Binary("<", A, B), C)


def test_a_number_used_as_a_condition_is_refused() -> None:
    with pytest.raises(ExprError, match=r"argument 1 of if\(\) needs a condition"):
        parse("if(a, 1, 0)")
    with pytest.raises(ExprError, match=r"'and' needs a condition .* but 'b' is a number"):
        parse("if(a > 0 and b, 1, 0)")
    with pytest.raises(ExprError, match="'not' needs a condition"):
        parse("if(not a, 1, 0)")


def test_a_formula_must_produce_a_number_not_a_condition() -> None:
    with pytest.raises(ExprError, match="is a condition; a formula must produce a number"):
        parse("a > b")
    with pytest.raises(ExprError, match="'a > b' is a condition, not a number"):
        Binary(">", A, B).evaluate({"a": 1, "b": 2})


@pytest.mark.parametrize("bad", [True, "3", None, [1]])
def test_inputs_must_be_ints_or_floats(bad: object) -> None:
    with pytest.raises(ExprError, match="value for 'a' must be an int or a float"):
        parse("a + 1").evaluate({"a": bad})  # type: ignore[dict-item]


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os')", "a.b", "a[0]", "'x'", '"x"', "lambda: 0", "lambda x: x",
        "os.system('ls')", "a if b else c", "a ** b", "a // b", "a % b", "x = 1", "a; b",
        "eval(a)", "exec(a)", "getattr(a, b)", "[a]", "{a}", "a @ b", "`a`", "a\\b", "#a",
        "f(a)(b)", "sum(a)(b)", "(a)(b)", "a ~ b", "1_000", "0x10", "a & b", "a | b",
    ],
)
def test_code_injection_and_other_python_syntax_are_syntax_errors(text: str) -> None:
    with pytest.raises(ExprError, match=r"^formula .* at column \d+$"):
        parse(text)


def test_ill_typed_or_unrenderable_trees_cannot_be_built() -> None:
    for build in (
        lambda: Num(-1), lambda: Num(True), lambda: Num(math.nan), lambda: Num(2**63),
        lambda: Var("a b"), lambda: Var("sum"), lambda: Var("and"), lambda: Unary("~", A),
        lambda: Binary("**", A, B), lambda: Call("eval", (A,)), lambda: Call("if", (A, B, C)),
    ):
        with pytest.raises(ExprError):
            build()
    with pytest.raises(TypeError):
        Expr()


def test_trees_are_immutable_and_hashable() -> None:
    tree = parse("a + b")
    with pytest.raises(dataclasses.FrozenInstanceError):
        tree.op = "-"  # type: ignore[attr-defined]
    assert hash(tree) == hash(parse("a+b"))
    assert {tree, parse("a+b")} == {tree}


# Rendering


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("a+b*c", "a + b * c"), ("(a+b)*c", "(a + b) * c"), ("a-(b-c)", "a - (b - c)"),
        ("(a-b)-c", "a - b - c"), ("a/(b*c)", "a / (b * c)"), ("-(a)", "-a"),
        ("-(-a)", "--a"), ("-(a*b)", "-(a * b)"), ("(-a)*b", "-a * b"), ("((a))", "a"),
        ("sum( a,b )", "sum(a, b)"), ("1E3", "1000.0"), ("0.50", "0.5"),
        ("if((a<b) and (not(b>c) or a==c), 1, 0)", "if(a < b and (not b > c or a == c), 1, 0)"),
        ("if(not (a < b and b < c), 1, 0)", "if(not (a < b and b < c), 1, 0)"),
        ("if((a + 1) < (b * 2), 1, 0)", "if(a + 1 < b * 2, 1, 0)"),
    ],
)
def test_render_is_canonical_with_only_the_parentheses_needed(text: str, canonical: str) -> None:
    tree = parse(text)
    assert tree.render() == canonical
    assert str(tree) == canonical
    assert parse(canonical) == tree


# Property-based checks

NAMES = ("a", "b", "c", "revenue", "q_1", "_x")
names = st.sampled_from(NAMES).map(Var)
small_ints = st.integers(min_value=0, max_value=9).map(Num)
floats = st.floats(min_value=0, max_value=1e300, allow_nan=False).map(lambda f: Num(abs(f)))


def conditions(numbers: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
    # Kept shallow: comparisons draw whole number trees, so a recursive mix would blow up.
    compare = st.builds(Binary, st.sampled_from(["<", "<=", ">", ">=", "==", "!="]),
                        numbers, numbers)
    return st.one_of(
        compare,
        st.builds(lambda c: Unary("not", c), compare),
        st.builds(Binary, st.sampled_from(["and", "or"]), compare, compare),
        st.builds(lambda c, d: Binary("and", Unary("not", c), c), compare, compare),
    )


def number_trees(leaves: st.SearchStrategy[Expr], ops: list[str]) -> st.SearchStrategy[Expr]:
    def extend(kids: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
        return st.one_of(
            st.builds(Unary, st.sampled_from(["-", "+"]), kids),
            st.builds(Binary, st.sampled_from(ops), kids, kids),
            st.builds(Call, st.sampled_from(["sum", "min", "max"]),
                      st.lists(kids, min_size=1, max_size=3).map(tuple)),
            st.builds(lambda k: Call("abs", (k,)), kids),
            st.builds(lambda c, t, o: Call("if", (c, t, o)), conditions(kids), kids, kids),
        )

    return st.recursive(leaves, extend, max_leaves=12)


any_trees = number_trees(st.one_of(names, small_ints, floats), ["+", "-", "*", "/"])
int_trees = number_trees(st.one_of(names, small_ints), ["+", "-", "*"])


@relaxed
@given(any_trees)
def test_render_then_parse_gives_back_the_same_tree(tree: Expr) -> None:
    again = parse(tree.render())
    assert again == tree
    assert repr(again) == repr(tree)  # equality alone would let Num(1) stand for Num(1.0)
    assert again.render() == tree.render()


def reference(e: Expr, env: dict[str, int]) -> int | bool:
    """Written apart from Expr.evaluate on purpose: the property compares the two."""
    match e:
        case Num(value=int(v)):
            return v
        case Var(name=n):
            return env[n]
        case Unary(op="-", operand=x):
            return -reference(x, env)
        case Unary(op="+", operand=x):
            return reference(x, env)
        case Unary(op="not", operand=x):
            return not reference(x, env)
        case Binary(op=op, left=lhs, right=rhs):
            left, right = reference(lhs, env), reference(rhs, env)
            return {
                "+": left + right, "-": left - right, "*": left * right,
                "<": left < right, "<=": left <= right, ">": left > right,
                ">=": left >= right, "==": left == right, "!=": left != right,
                "and": bool(left) and bool(right), "or": bool(left) or bool(right),
            }[op]
        case Call(func="if", args=(cond, then, otherwise)):
            return reference(then if reference(cond, env) else otherwise, env)
        case Call(func="abs", args=(x,)):
            return abs(reference(x, env))
        case Call(func=func, args=args):
            values = [reference(a, env) for a in args]
            return sum(values) if func == "sum" else min(values) if func == "min" else max(values)
    raise AssertionError(f"unexpected node {e!r}")


@relaxed
@given(int_trees, st.fixed_dictionaries({n: st.integers(-9, 9) for n in NAMES}))
def test_evaluate_agrees_with_an_independent_reference_on_integer_arithmetic(
    tree: Expr, env: dict[str, int]
) -> None:
    # Leaves are at most 9 in size and at most 12 in number, so nothing nears the 64-bit limit.
    got = tree.evaluate(env)
    assert got == reference(tree, env)
    assert type(got) is int


@relaxed
@given(st.text(alphabet="ab1.e+-*/()<>=! ,notrsumifx_'[]", max_size=30))
def test_arbitrary_text_either_parses_or_raises_expr_error(text: str) -> None:
    try:
        tree = parse(text)
    except ExprError:
        return
    env = dict.fromkeys(tree.names(), 1)
    try:
        result = tree.evaluate(env)
    except ExprError:
        return
    assert isinstance(result, int | float)
    assert parse(tree.render()) == tree
