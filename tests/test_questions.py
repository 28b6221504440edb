"""As-of metric questions on the real companyfacts files, on both backends.

Only the concepts the questions read are loaded (real rows, all filings), to keep Neo4j quick.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.factories import BACKENDS, PinnedClock, make_store
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import from_to, parse_instant
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.store.protocol import Store
from vintage.ingest.bundled import COMPANYFACTS
from vintage.ingest.sec.companyfacts import ingest_companyfacts
from vintage.queries.lineage.impact import impact
from vintage.queries.lineage.staleness import SUPERSEDED
from vintage.queries.metrics.answers import SubjectAnswer
from vintage.queries.metrics.definitions import resolve_metric
from vintage.queries.metrics.periods import parse_period
from vintage.queries.metrics.question import ask

DATA = COMPANYFACTS
FILES = {t: next(DATA.glob(f"CIK*_{t}.json.gz")) for t in ("GOOGL", "TSLA", "NVDA", "MRVL")}
RECAST = parse_instant("2019-04-30")


def concepts(*metrics: str) -> set[str]:
    wanted = {"us-gaap:CostOfGoodsSold"}
    for name in metrics:
        wanted |= resolve_metric(name).predicates_for("any")
    return wanted


LOADED = concepts("operating_margin", "net_margin", "eps_diluted", "gross_margin")


@pytest.fixture(scope="module", params=BACKENDS)
def loaded(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Store, Scope]]:
    scope = Scope(tenant="q-" + uuid.uuid4().hex[:10])
    store = make_store(request.param, PinnedClock(), tmp_path_factory.mktemp("q"), request)
    for path in FILES.values():
        ingest_companyfacts(store, scope, path, actor="test", concepts=LOADED)
    yield store, scope
    if isinstance(store, Neo4jStore):
        store.purge_tenant(scope.tenant)


def one(store: Store, scope: Scope, metric: str, subject: str, cutoff: str,
        period: str) -> SubjectAnswer:
    (answer,) = ask(store, scope, resolve_metric(metric), [subject], parse_instant(cutoff),
                    parse_period(period)).answers
    return answer


@pytest.mark.parametrize(("cutoff", "value"), [
    ("2015-06-30", 2_310_011_000), ("2016-06-30", 2_145_749_000), ("2017-06-30", 2_058_344_000),
])
def test_tesla_fy2014_cost_of_goods_sold_is_the_value_of_each_window(
    loaded: tuple[Store, Scope], cutoff: str, value: int,
) -> None:
    answer = one(*loaded, "us-gaap:CostOfGoodsSold", "TSLA", cutoff, "FY2014")
    assert (answer.value, answer.period, answer.span) == (value, "FY2014",
                                                          "2014-01-01..2015-01-01")


def test_a_later_restatement_is_hindsight_said_only_when_asked_and_never_used(
    loaded: tuple[Store, Scope],
) -> None:
    answer = one(*loaded, "eps_diluted", "NVDA", "2024-06-30", "FY2024")
    assert answer.value == 11.93
    assert answer.hindsight is None and not any("1.19" in w for w in answer.warnings)
    store, scope = loaded
    (seen,) = ask(store, scope, resolve_metric("eps_diluted"), ["NVDA"],
                  parse_instant("2024-06-30"), parse_period("FY2024"), hindsight=True).answers
    assert seen.value == 11.93 and seen.warnings == answer.warnings
    assert seen.hindsight is not None
    assert any("split_adjustment" in h and "to 1.19" in h for h in seen.hindsight)
    assert one(*loaded, "eps_diluted", "NVDA", "2025-06-30", "FY2024").value == 1.19


def test_q4_is_derived_as_the_fiscal_year_minus_nine_months_and_persisted(
    loaded: tuple[Store, Scope],
) -> None:
    store, scope = loaded
    answer = one(store, scope, "revenue", "GOOGL", "2019-03-01", "FY2018Q4")
    assert answer.method == "fiscal year - 9 months YTD"
    assert answer.value == 136_819_000_000 - 97_543_000_000
    assert answer.periods_used == ["2018-01-01..2018-10-01", "2018-01-01..2019-01-01"]
    assert [(i.form, i.accession) for i in answer.inputs] == [
        ("10-K", "0001652044-19-000004"), ("10-Q", "0001652044-18-000035")]
    assert answer.derivation_id is not None
    events = len(store.events(scope.tenant))
    again = one(store, scope, "revenue", "GOOGL", "2019-03-01", "FY2018Q4")
    assert again == answer
    assert len(store.events(scope.tenant)) == events  # the derivation was found, not rewritten


def test_ltm_windows_differ_per_company_by_what_each_had_filed(
    loaded: tuple[Store, Scope],
) -> None:
    # 2024-05-15: Alphabet's Q1-2024 10-Q is public (2024-04-26); NVIDIA's Q1-FY2025 10-Q is
    # not (2024-05-29), so NVIDIA's latest twelve months still end with its fiscal 2024.
    store, scope = loaded
    result = ask(store, scope, resolve_metric("revenue"), ["GOOGL", "NVDA"],
                 parse_instant("2024-05-15"), parse_period("LTM"))
    googl, nvda = result.answers
    assert (googl.period, googl.span) == ("LTM to FY2024Q1", "2023-04-01..2024-04-01")
    assert (nvda.period, nvda.span) == ("LTM to FY2024Q4", "2023-01-30..2024-01-29")
    assert nvda.value == 60_922_000_000 and nvda.method == "reported"
    assert googl.derivation_id is not None and googl.refused is None


def test_an_ltm_that_would_mix_a_reclassified_quarter_with_old_ones_is_not_computed(
    loaded: tuple[Store, Scope],
) -> None:
    # After the 2019-04-30 recast, Q1-2019 is on the new basis and Q2..Q4-2018 on the old one.
    answer = one(*loaded, "operating_income", "GOOGL", "2019-05-15", "LTM")
    assert answer.period == "LTM to FY2018Q4"
    assert answer.value == 26_321_000_000
    assert any("LTM to FY2019Q1" in w and "mix vintages" in w for w in answer.warnings)


def test_gross_margin_falls_back_to_revenue_minus_cost_where_gross_profit_is_not_filed(
    loaded: tuple[Store, Scope],
) -> None:
    store, scope = loaded
    googl, nvda = ask(store, scope, resolve_metric("gross_margin"), ["GOOGL", "NVDA"],
                      parse_instant("2025-10-30"), parse_period("FY2024")).answers
    assert googl.method == "100 * (revenue - cost_of_revenue) / revenue"
    assert {i.predicate for i in googl.inputs} >= {"us-gaap:CostOfRevenue"}
    assert nvda.method == "100 * gross_profit / revenue"
    assert round(float(str(nvda.value)), 2) == 72.72


def test_a_fixed_quarter_whose_inputs_straddle_a_recast_is_computed_on_the_earlier_basis(
    loaded: tuple[Store, Scope],
) -> None:
    # 2019-11-15: nine months of 2018 were recast (10-Q of 2019-10-29), the year 2018 not yet
    # (10-K of 2020-02-04). FY - 9M would mix them; both as known before the recast agree.
    answer = one(*loaded, "operating_income", "GOOGL", "2019-11-15", "FY2018Q4")
    assert answer.value == 26_321_000_000 - 18_118_000_000
    assert answer.method == "fiscal year - 9 months YTD"
    assert any("would mix vintages" in w for w in answer.warnings)
    assert any("basis reported before 2019-10-29" in w for w in answer.warnings)
    assert all(i.available_at < parse_instant("2019-10-29") for i in answer.inputs)


def test_an_answer_on_the_earlier_basis_is_marked_stale_naming_the_restated_premise(
    loaded: tuple[Store, Scope],
) -> None:
    # The nine months the answer rests on were recast on 2019-10-29, before the cutoff: the
    # answer says so (premise, when, by what), as search, context and explain do.
    answer = one(*loaded, "operating_income", "GOOGL", "2019-11-15", "FY2018Q4")
    assert answer.stale is not None
    assert answer.stale.premise in {i.id for i in answer.inputs}
    assert (answer.stale.reason, answer.stale.when) == (SUPERSEDED, parse_instant("2019-10-29"))
    assert answer.stale.by is not None and answer.stale.item == answer.fact_id


def test_a_restatement_after_the_cutoff_or_of_another_period_marks_no_metric_answer_stale(
    loaded: tuple[Store, Scope],
) -> None:
    before = one(*loaded, "operating_margin", "GOOGL", "2018-06-30", "FY2018Q1")  # recast later
    recast = one(*loaded, "operating_margin", "GOOGL", "2019-06-30", "FY2018Q1")  # recomputed
    other = one(*loaded, "operating_margin", "GOOGL", "2019-06-30", "FY2017Q1")  # not recast
    assert [a.derivation_id is not None for a in (before, recast, other)] == [True] * 3
    assert [a.stale for a in (before, recast, other)] == [None, None, None]


def test_a_metric_nobody_filed_yet_is_refused_with_the_reason(
    loaded: tuple[Store, Scope],
) -> None:
    answer = one(*loaded, "revenue", "NVDA", "2005-01-01", "LTM")
    assert answer.value is None and answer.refused is not None
    assert "nothing public" in answer.refused


def test_the_recast_reaches_the_operating_margin_and_not_the_net_margin(
    store: Store, scope: Scope,
) -> None:
    wanted = concepts("operating_margin", "net_margin")
    before = from_to(None, RECAST)
    ingest_companyfacts(store, scope, FILES["GOOGL"], actor="t", concepts=wanted,
                        available=before)
    old_op = one(store, scope, "operating_margin", "GOOGL", "2018-06-30", "FY2018Q1")
    old_net = one(store, scope, "net_margin", "GOOGL", "2018-06-30", "FY2018Q1")
    events = len(store.events(scope.tenant))
    preview = ingest_companyfacts(store, scope, FILES["GOOGL"], actor="t", concepts=wanted,
                                  available=from_to(RECAST, None), recompute=True, dry_run=True)
    assert len(store.events(scope.tenant)) == events  # the preview wrote nothing
    assert [o.fact.id for o in preview.cascade] == [old_op.fact_id]
    summary = ingest_companyfacts(store, scope, FILES["GOOGL"], actor="t", concepts=wanted,
                                  available=from_to(RECAST, None), recompute=True)
    reached = {o.fact.id: o for o in summary.cascade}
    assert old_op.fact_id in reached and old_net.fact_id not in reached
    new = reached[str(old_op.fact_id)].replacement
    assert new is not None and round(float(new.value), 2) == 24.51
    assert round(float(str(old_op.value)), 2) == 22.48
    # The answer at the 2018 cutoff is the same after the recast; at 2019 it is the new one.
    then = one(store, scope, "operating_margin", "GOOGL", "2018-06-30", "FY2018Q1")
    assert (then.value, then.fact_id, then.derivation_id) == (
        old_op.value, old_op.fact_id, old_op.derivation_id)
    assert not any("reclassification" in w for w in then.warnings)  # after the cutoff
    assert one(store, scope, "operating_margin", "GOOGL", "2019-06-30",
               "FY2018Q1").fact_id == new.id
    assert one(store, scope, "net_margin", "GOOGL", "2019-06-30", "FY2018Q1") == old_net


def test_impact_after_the_recast_lists_old_and_new_values_down_the_chain(
    store: Store, scope: Scope,
) -> None:
    wanted = concepts("operating_margin")
    ingest_companyfacts(store, scope, FILES["GOOGL"], actor="t", concepts=wanted,
                        available=from_to(None, RECAST))
    one(store, scope, "operating_margin", "GOOGL", "2018-06-30", "FY2018Q1")
    ingest_companyfacts(store, scope, FILES["GOOGL"], actor="t", concepts=wanted,
                        available=from_to(RECAST, None), recompute=True)
    result = impact(store, scope, source_id="0001652044-19-000015")
    got = [(r.old.predicate, r.old.value, r.new.value if r.new else None, r.change)
           for r in result.revised if r.old.valid[0] == parse_instant("2018-01-01")]
    assert [(p, o, n, c) for p, o, n, c in got if p == "us-gaap:OperatingIncomeLoss"] == [
        ("us-gaap:OperatingIncomeLoss", 7_001_000_000, 7_633_000_000, "reclassification")]
    (margin,) = [(o, n) for p, o, n, c in got if p == "metric:operating_margin"]
    assert (round(float(margin[0]), 2), round(float(str(margin[1])), 2)) == (22.48, 24.51)
