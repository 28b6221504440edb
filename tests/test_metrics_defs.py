"""Metric definitions: built-ins, resolution by name, YAML user metrics, and real-data coverage."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.raw_companyfacts import TICKERS, calendar, reported, rows
from vintage.graph.derivations.expr_parse import parse
from vintage.graph.derivations.recipes import RecipeError
from vintage.queries.metrics.definitions import BUILTIN, Metric, MetricError, resolve_metric
from vintage.queries.metrics.fiscal import Span
from vintage.queries.metrics.metric_files import load_metrics

REVENUE = ("us-gaap:Revenues", "ifrs-full:Revenue")
TAKE_RATE = """\
metrics:
  take_rate:
    description: retained revenue per $100 of payment volume
    formula: 100 * revenue / volume
    unit: percent
    window: ltm
    inputs:
      revenue: [us-gaap:Revenues, us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax]
      volume: [kpi:TotalPaymentVolume]
    subjects:
      PYPL: {volume: [kpi:TPV]}
"""


def take_rate(**changes: object) -> Metric:
    fields: dict[str, object] = {
        "name": "take_rate", "formula": "100 * revenue / volume", "unit": "percent",
        "inputs": {"revenue": REVENUE, "volume": ("kpi:TotalPaymentVolume",)},
        "subjects": {"PYPL": {"volume": ("kpi:TPV",)}}, **changes}
    return Metric(**fields)  # type: ignore[arg-type]


# Built-in metrics


def test_the_built_in_metrics_are_the_documented_ones() -> None:
    assert set(BUILTIN) == {
        "revenue", "cost_of_revenue", "gross_profit", "operating_income", "net_income",
        "eps_diluted", "gross_margin", "operating_margin", "net_margin", "revenue_growth",
        "net_income_growth", "operating_income_growth"}


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_every_built_in_recipe_reads_exactly_its_roles(name: str) -> None:
    metric = BUILTIN[name]
    for m in (metric, metric.fallback) if metric.fallback else (metric,):
        recipe = m.recipe()
        assert recipe.name == f"metric:{name}"
        recipe.check_roles(set(m.inputs))


def test_margins_are_percentages_of_revenue() -> None:
    inputs = {"revenue": 200, "operating_income": 50, "net_income": 30, "gross_profit": 120}
    for name, expected in (("operating_margin", 25.0), ("net_margin", 15.0),
                           ("gross_margin", 60.0)):
        metric = BUILTIN[name]
        assert metric.unit == "percent"
        assert metric.recipe().evaluate({r: inputs[r] for r in metric.inputs}) == expected


def test_gross_profit_falls_back_to_revenue_less_cost_of_revenue() -> None:
    gross = BUILTIN["gross_profit"]
    assert gross.aliases_for("GOOGL", "gross_profit") == ("us-gaap:GrossProfit",
                                                          "ifrs-full:GrossProfit")
    assert gross.fallback is not None
    assert gross.fallback.recipe().evaluate({"revenue": 100, "cost_of_revenue": 45}) == 55
    assert gross.fallback.version != gross.version
    margin = BUILTIN["gross_margin"].fallback
    assert margin is not None
    assert margin.recipe().evaluate({"revenue": 200, "cost_of_revenue": 80}) == 60.0


def test_flows_and_their_margins_are_additive_and_eps_is_summed_by_convention() -> None:
    assert all(m.additive for m in BUILTIN.values())
    assert BUILTIN["eps_diluted"].unit == "USD/shares"


def test_growth_is_the_percentage_change_against_the_same_window_a_year_earlier() -> None:
    growth = BUILTIN["revenue_growth"]
    assert growth.growth and growth.unit == "percent"
    assert growth.recipe().evaluate({"revenue": 120}) == 120  # the base value of one period
    recipe = growth.growth_recipe()
    assert recipe.name == "metric:revenue_growth:growth"
    assert recipe.evaluate({"current": 120, "prior": 100}) == 20.0
    # A loss shrinking from -100 to -50 is an improvement, so growth is positive.
    assert recipe.evaluate({"current": -50, "prior": -100}) == 50.0
    with pytest.raises(RecipeError, match="division by zero"):
        recipe.evaluate({"current": 1, "prior": 0})


def test_only_growth_metrics_have_a_growth_recipe() -> None:
    with pytest.raises(MetricError, match="not a growth metric"):
        BUILTIN["revenue"].growth_recipe()


# Definitions


def test_a_subject_override_replaces_the_aliases_of_that_role_only() -> None:
    metric = take_rate()
    assert metric.aliases_for("PYPL", "volume") == ("kpi:TPV",)
    assert metric.aliases_for("PYPL", "revenue") == REVENUE
    assert metric.aliases_for("SQ", "volume") == ("kpi:TotalPaymentVolume",)
    assert metric.predicates_for("PYPL") == {*REVENUE, "kpi:TPV"}
    with pytest.raises(MetricError, match="no role 'fees'"):
        metric.aliases_for("PYPL", "fees")


def test_predicates_for_includes_what_the_fallback_reads() -> None:
    assert BUILTIN["gross_profit"].predicates_for("X") >= {
        "us-gaap:GrossProfit", "us-gaap:Revenues", "us-gaap:CostOfRevenue"}


def test_the_version_changes_with_anything_computed_but_not_with_the_description() -> None:
    base = take_rate()
    assert base.version == take_rate().version
    assert len(base.version) == 12
    assert take_rate(description="other words").version == base.version
    for changed in (take_rate(formula="revenue / volume"), take_rate(unit="pure"),
                    take_rate(window="fy"), take_rate(additive=False), take_rate(subjects={}),
                    take_rate(inputs={"revenue": REVENUE[::-1],
                                      "volume": ("kpi:TotalPaymentVolume",)})):
        assert changed.version != base.version
    assert take_rate(formula="revenue / volume").recipe().version != base.recipe().version


def test_a_metric_is_unaffected_by_later_edits_to_the_dicts_it_was_built_from() -> None:
    inputs = {"revenue": REVENUE, "volume": ("kpi:TotalPaymentVolume",)}
    metric = take_rate(inputs=inputs)
    inputs["volume"] = ("kpi:Other",)
    assert metric.inputs["volume"] == ("kpi:TotalPaymentVolume",)
    assert hash(metric) == hash(take_rate())


@pytest.mark.parametrize(("changes", "message"), [
    ({"formula": "100 * revenue"}, "field 'formula': uses roles"),
    ({"formula": "100 * revenue / volume / fees"}, "field 'formula': uses roles"),
    ({"formula": "revenue >"}, "field 'formula'"),
    ({"inputs": {"revenue": (), "volume": ("kpi:V",)}}, "field 'inputs.revenue'"),
    ({"inputs": {"revenue": ("Revenues",), "volume": ("kpi:V",)}}, "like prefix:Name"),
    ({"inputs": {"revenue": ("a:B", "a:B"), "volume": ("kpi:V",)}}, "twice"),
    ({"subjects": {"PYPL": {"fees": ("kpi:F",)}}}, "field 'subjects.PYPL'"),
    ({"subjects": {"PYPL": {"volume": ("TPV",)}}}, "field 'subjects.PYPL.volume'"),
    ({"window": "week"}, "field 'window'"),
    ({"inputs": {"revenue": "us-gaap:Revenues", "volume": ("kpi:V",)}}, "not one string"),
    ({"name": "Take Rate"}, "field 'name'"),
    ({"fallback": BUILTIN["revenue"]}, "field 'fallback'"),
])
def test_an_ill_formed_definition_is_refused_naming_the_field(
        changes: dict[str, object], message: str) -> None:
    with pytest.raises(MetricError, match=message):
        take_rate(**changes)


roles = st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True), min_size=1, max_size=5,
                 unique=True).filter(lambda rs: not {"if", "or", "and", "not", "abs", "max",
                                                     "min", "sum"} & set(rs))


@given(roles)
def test_a_metric_over_any_roles_yields_a_recipe_that_accepts_exactly_them(rs: list[str]) -> None:
    formula = " + ".join(rs)
    metric = Metric("m", formula, {r: (f"kpi:{r}",) for r in rs}, "USD")
    metric.recipe().check_roles(set(rs))
    assert parse(metric.recipe().formula or "").names() == set(rs)
    assert metric.recipe().evaluate(dict.fromkeys(rs, 1)) == len(rs)


# Resolving names


@pytest.mark.parametrize("text", ["revenue", "Revenue", "REVENUE", " revenue "])
def test_built_in_names_resolve_in_any_case(text: str) -> None:
    assert resolve_metric(text) is BUILTIN["revenue"]


@pytest.mark.parametrize("text", ["gross-margin", "gross margin", "Gross_Margin"])
def test_dashes_and_spaces_stand_for_underscores(text: str) -> None:
    assert resolve_metric(text) is BUILTIN["gross_margin"]


def test_user_metrics_resolve_by_name() -> None:
    user = {"take_rate": take_rate()}
    assert resolve_metric("take-rate", user) is user["take_rate"]


def test_a_concept_becomes_a_one_input_metric_in_its_own_unit() -> None:
    metric = resolve_metric("us-gaap:ResearchAndDevelopmentExpense")
    assert metric.inputs == {"value": ("us-gaap:ResearchAndDevelopmentExpense",)}
    assert (metric.formula, metric.unit, metric.additive) == ("value", "", True)
    assert metric.recipe().name == "metric:us-gaap:ResearchAndDevelopmentExpense"
    assert metric.recipe().evaluate({"value": 7}) == 7


def test_an_unknown_name_is_refused_with_close_built_in_names() -> None:
    with pytest.raises(MetricError, match="Did you mean operating_margin"):
        resolve_metric("operating-margn")
    with pytest.raises(MetricError, match=r"unknown metric 'x{40}…'\. Built-in metrics: revenue, "):
        resolve_metric("x" * 100)


# Loading user metrics from YAML


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str], Path]:
    def write_file(text: str) -> Path:
        path = tmp_path / "metrics.yaml"
        path.write_text(text, encoding="utf-8")
        return path

    return write_file


def test_a_metrics_file_defines_user_metrics(write: Callable[[str], Path]) -> None:
    metrics = load_metrics(write(TAKE_RATE))
    assert list(metrics) == ["take_rate"]
    m = metrics["take_rate"]
    assert (m.formula, m.unit, m.window, m.additive, m.growth) == (
        "100 * revenue / volume", "percent", "ltm", True, False)
    assert m.aliases_for("PYPL", "volume") == ("kpi:TPV",)
    assert m.description == "retained revenue per $100 of payment volume"
    assert resolve_metric("take_rate", metrics) is m


def test_defaults_apply_to_what_a_metrics_file_leaves_out(write: Callable[[str], Path]) -> None:
    path = write("metrics:\n  churn:\n    formula: lost\n    unit: pure\n"
                 "    inputs: {lost: [kpi:Churn]}\n")
    m = load_metrics(path)["churn"]
    assert (m.window, m.additive, m.growth, m.description, dict(m.subjects)) == (
        "any", True, False, "", {})


@pytest.mark.parametrize(("edit", "message"), [
    (("unit: percent", "unit: ''"), "metric 'take_rate', field 'unit'"),
    (("unit: percent", "unit: 5"), "metric 'take_rate', field 'unit'"),
    (("window: ltm", "window: weekly"), "metric 'take_rate', field 'window'"),
    (("window: ltm", "windows: ltm"), "metric 'take_rate', field 'windows'"),
    (("formula: 100 * revenue / volume", "formula: revenue"),
     "metric 'take_rate', field 'formula': uses roles"),
    (("formula: 100 * revenue / volume", "formula: 100 * (revenue"),
     "metric 'take_rate', field 'formula'"),
    (("[kpi:TotalPaymentVolume]", "[TotalPaymentVolume]"),
     "metric 'take_rate', field 'inputs.volume'"),
    (("[kpi:TotalPaymentVolume]", "kpi:TotalPaymentVolume"),
     "metric 'take_rate', field 'inputs.volume'"),
    (("{volume: [kpi:TPV]}", "{fees: [kpi:TPV]}"), "metric 'take_rate', field 'subjects.PYPL'"),
    (("  take_rate:", "  revenue:"), "metric 'revenue': the name is a built-in"),
    (("  take_rate:", "  TakeRate:"), "metric 'TakeRate', field 'name'"),
    (("    unit: percent", "    unit: percent\n    unit: pure"), "appears twice"),
    (("metrics:", "metric:"), "field 'metrics': Field required"),
    (("    formula:", "   formula:"), "not valid YAML"),
])
def test_a_bad_metrics_file_is_refused_naming_file_metric_and_field(
        write: Callable[[str], Path], edit: tuple[str, str], message: str) -> None:
    path = write(TAKE_RATE.replace(*edit))
    with pytest.raises(MetricError, match=message) as err:
        load_metrics(path)
    assert str(err.value).startswith(str(path))


@pytest.mark.parametrize("text", ["", "[1, 2]", "metrics: [take_rate]"])
def test_a_metrics_file_must_map_names_to_definitions(
        write: Callable[[str], Path], text: str) -> None:
    with pytest.raises(MetricError, match=r"metrics\.yaml: "):
        load_metrics(write(text))


def test_a_missing_metrics_file_is_a_metric_error(tmp_path: Path) -> None:
    with pytest.raises(MetricError, match="cannot read"):
        load_metrics(tmp_path / "absent.yaml")


# Coverage of the bundled SEC filings

CORE = ("revenue", "operating_income", "net_income", "eps_diluted")


def resolves(ticker: str, metric: Metric, span: Span) -> bool:
    """Does every role have some alias the company reported for exactly this span?"""
    have = reported(ticker)
    return all(any(span in have.get(p, ()) for p in metric.aliases_for(ticker, role))
               for role in metric.inputs)


@pytest.mark.parametrize("ticker", TICKERS)
def test_core_metrics_resolve_for_each_companys_last_three_fiscal_years(ticker: str) -> None:
    years = calendar(ticker).years()[-3:]
    assert len(years) == 3
    missing = [(name, y.label) for y in years for name in CORE
               if not resolves(ticker, BUILTIN[name], y.span)]
    assert missing == []


@pytest.mark.parametrize("ticker", TICKERS)
def test_gross_profit_resolves_directly_or_by_its_fallback_except_for_lpa(ticker: str) -> None:
    gross = BUILTIN["gross_profit"]
    assert gross.fallback is not None
    found = {y.label: (resolves(ticker, gross, y.span), resolves(ticker, gross.fallback, y.span))
             for y in calendar(ticker).years()[-3:]}
    if ticker == "LPA":  # IFRS, expenses by nature: neither cost of sales nor gross profit
        assert set(found.values()) == {(False, False)}
    elif ticker == "GOOGL":  # Alphabet reports no gross profit line
        assert set(found.values()) == {(False, True)}
    else:
        assert all(direct for direct, _ in found.values())


@pytest.mark.parametrize("ticker", [t for t in TICKERS if t != "LPA"])
def test_quarters_resolve_directly_or_as_year_less_nine_months(ticker: str) -> None:
    cal = calendar(ticker)
    for year in cal.years()[-2:]:
        for name in CORE:
            metric = BUILTIN[name]
            for n in (1, 2, 3):
                quarter = cal.quarter(year.label, n)
                assert quarter is not None and resolves(ticker, metric, quarter), (name, n)
            nine = cal.ytd(year.label, 3)
            q4 = cal.quarter(year.label, 4)
            assert nine is not None and q4 is not None
            assert resolves(ticker, metric, q4) or (
                resolves(ticker, metric, year.span) and resolves(ticker, metric, nine)), name


def test_the_first_revenue_and_cost_aliases_are_the_totals_where_several_are_reported() -> None:
    # Tesla tags total revenue Revenues and automotive sales SalesRevenueGoodsNet (likewise
    # CostOfRevenue and CostOfGoodsSold): the order of aliases must put the total first.
    for ticker in TICKERS:
        values: dict[tuple[str, str, Span], float] = {
            (r.accn, r.predicate, r.span): r.value for r in rows(ticker) if r.span}
        for name in ("revenue", "cost_of_revenue"):
            aliases = BUILTIN[name].inputs[name]
            for (accn, predicate, span), value in values.items():
                if predicate not in aliases:
                    continue
                for earlier in aliases[:aliases.index(predicate)]:
                    first = values.get((accn, earlier, span))
                    assert first is None or first >= value, (ticker, accn, predicate, span)
