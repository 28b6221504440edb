"""One answer after a restatement, on both backends: a restatement changes the basis of the
periods it covers and no other. After a 10-Q/A amends one quarter, ``asof`` at a later cutoff,
an explicit period, ``ingest --recompute`` and ``impact`` all give the twelve months computed
from the amended quarter and the other quarters as last reported; an earlier cutoff keeps the
earlier answer. Nine months inside a year that a 10-K/A restated stay on the old basis until a
10-Q restates them: never mixed with the restated year."""

from __future__ import annotations

from pathlib import Path

from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import parse_instant
from vintage.graph.store.protocol import Store
from vintage.ingest.facts_table import ingest_table
from vintage.queries.lineage.impact import impact
from vintage.queries.metrics.answers import SubjectAnswer
from vintage.queries.metrics.definitions import Metric, resolve_metric
from vintage.queries.metrics.metric_files import load_metrics
from vintage.queries.metrics.periods import parse_period
from vintage.queries.metrics.question import ask

HEADER = "subject,predicate,value,unit,period_start,period_end,source_id,form,available_at\n"
# A payments company's quarters as filed, then a 10-Q/A that amends the first quarter of 2025
# (the case: the take rate over the last twelve months moves from 0.79 to 0.76).
PAY = HEADER + """\
PAY,us-gaap:Revenues,800,USD,2024-07-01,2024-09-30,pay-10q-2024q3,10-Q,2024-11-05
PAY,kpi:PaymentVolume,100000,USD,2024-07-01,2024-09-30,pay-10q-2024q3,10-Q,2024-11-05
PAY,us-gaap:Revenues,800,USD,2024-10-01,2024-12-31,pay-10k-2024,10-K,2025-02-05
PAY,kpi:PaymentVolume,100000,USD,2024-10-01,2024-12-31,pay-10k-2024,10-K,2025-02-05
PAY,us-gaap:Revenues,780,USD,2025-01-01,2025-03-31,pay-10q-2025q1,10-Q,2025-05-05
PAY,kpi:PaymentVolume,100000,USD,2025-01-01,2025-03-31,pay-10q-2025q1,10-Q,2025-05-05
PAY,us-gaap:Revenues,780,USD,2025-04-01,2025-06-30,pay-10q-2025q2,10-Q,2025-08-05
PAY,kpi:PaymentVolume,100000,USD,2025-04-01,2025-06-30,pay-10q-2025q2,10-Q,2025-08-05
"""
AMENDMENT = HEADER + (
    "PAY,us-gaap:Revenues,660,USD,2025-01-01,2025-03-31,pay-10qa-2025q1,10-Q/A,2025-09-10\n")
METRICS = """\
metrics:
  take_rate:
    description: retained revenue per $100 of payment volume
    formula: 100 * revenue / volume
    unit: percent
    window: ltm
    inputs:
      revenue: [us-gaap:Revenues]
      volume: [kpi:PaymentVolume]
"""
BEFORE, AFTER = "2025-08-20", "2025-09-15"
LTM = "2024-07-01..2025-07-01"


def written(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def take_rate(tmp_path: Path) -> Metric:
    return load_metrics(written(tmp_path, "metrics.yaml", METRICS))["take_rate"]


def one(store: Store, scope: Scope, metric: Metric, subject: str, cutoff: str,
        period: str = "LTM") -> SubjectAnswer:
    (answer,) = ask(store, scope, metric, [subject], parse_instant(cutoff),
                    parse_period(period)).answers
    return answer


def amended(store: Store, scope: Scope, tmp_path: Path) -> tuple[Metric, SubjectAnswer]:
    """PAY's quarters, the take rate asked before the amendment, then the 10-Q/A ingested with
    ``--recompute``; the metric and the answer given before it."""
    ingest_table(store, scope, written(tmp_path, "pay.csv", PAY), "test")
    metric = take_rate(tmp_path)
    earlier = one(store, scope, metric, "PAY", BEFORE)
    ingest_table(store, scope, written(tmp_path, "amendment.csv", AMENDMENT), "test",
                 recompute=True)
    return metric, earlier


def test_after_a_10q_a_amends_a_quarter_the_ltm_uses_it_and_the_others_as_last_reported(
        store: Store, scope: Scope, tmp_path: Path) -> None:
    metric, earlier = amended(store, scope, tmp_path)
    now = one(store, scope, metric, "PAY", AFTER)
    assert (now.value, now.period, now.span, now.refused) == (0.76, "LTM to 2025-06-30", LTM, None)
    revenue = {i.period: (i.value, i.restated) for i in now.inputs
               if i.predicate == "us-gaap:Revenues"}
    assert revenue == {"2024-07-01..2024-10-01": (800, False),
                       "2024-10-01..2025-01-01": (800, False),
                       "2025-01-01..2025-04-01": (660, True),
                       "2025-04-01..2025-07-01": (780, False)}
    assert now.warnings == ["restated input: us-gaap:Revenues 2025-01-01..2025-04-01 "
                            "(restated 2025-09-10); the other inputs as last reported"]
    # An earlier cutoff still gives the earlier answer, on the figures filed by then.
    then = one(store, scope, metric, "PAY", BEFORE)
    assert (then.value, then.fact_id, then.warnings) == (0.79, earlier.fact_id, [])
    assert not any(i.restated for i in then.inputs)


def test_an_explicit_period_gives_the_same_answer_as_the_latest_twelve_months(
        store: Store, scope: Scope, tmp_path: Path) -> None:
    metric, _ = amended(store, scope, tmp_path)
    ltm = one(store, scope, metric, "PAY", AFTER)
    window = one(store, scope, metric, "PAY", AFTER, LTM)
    assert (window.value, window.fact_id, window.span) == (ltm.value, ltm.fact_id, LTM)
    assert not any("mix vintages" in w or "basis reported before" in w for w in window.warnings)


def test_asof_answers_with_the_fact_the_recompute_wrote_and_impact_names(
        store: Store, scope: Scope, tmp_path: Path) -> None:
    metric, earlier = amended(store, scope, tmp_path)
    now = one(store, scope, metric, "PAY", AFTER)
    revised = impact(store, scope, source_id="pay-10qa-2025q1").revised
    by_predicate = {r.old.predicate: r for r in revised}
    rate = by_predicate["metric:take_rate"]
    assert (rate.old.id, rate.old.value) == (earlier.fact_id, 0.79)
    assert rate.new is not None and (rate.new.id, rate.new.value) == (now.fact_id, 0.76)
    # A filed revision and a recomputed derivation are labelled apart.
    assert {p: (r.revision, r.change) for p, r in by_predicate.items()} == {
        "us-gaap:Revenues": ("filed", None),
        "derived:us-gaap:Revenues": ("recomputed", None),
        "metric:take_rate": ("recomputed", None)}


def test_without_recompute_impact_labels_the_closed_derivations_and_asof_derives_them_anew(
        store: Store, scope: Scope, tmp_path: Path) -> None:
    ingest_table(store, scope, written(tmp_path, "pay.csv", PAY), "test")
    metric = take_rate(tmp_path)
    earlier = one(store, scope, metric, "PAY", BEFORE)
    ingest_table(store, scope, written(tmp_path, "amendment.csv", AMENDMENT), "test")
    revised = impact(store, scope, source_id="pay-10qa-2025q1").revised
    assert {(r.old.predicate, r.revision, r.new is None) for r in revised} == {
        ("us-gaap:Revenues", "filed", False), ("derived:us-gaap:Revenues", "closed", True),
        ("metric:take_rate", "closed", True)}
    now = one(store, scope, metric, "PAY", AFTER)
    assert (now.value, now.refused) == (0.76, None) and now.fact_id != earlier.fact_id
    assert one(store, scope, metric, "PAY", BEFORE).fact_id == earlier.fact_id


def test_a_half_year_that_holds_the_amended_quarter_is_not_used_where_the_quarters_are(
        store: Store, scope: Scope, tmp_path: Path) -> None:
    # The second 10-Q also reported the half year; it holds the first quarter as filed.
    half = "PAY,us-gaap:Revenues,1560,USD,2025-01-01,2025-06-30,pay-10q-2025q2,10-Q,2025-08-05\n"
    ingest_table(store, scope, written(tmp_path, "pay.csv", PAY + half), "test")
    ingest_table(store, scope, written(tmp_path, "amendment.csv", AMENDMENT), "test")
    revenue = resolve_metric("us-gaap:Revenues")
    before = one(store, scope, revenue, "PAY", BEFORE, "2025-01-01..2025-07-01")
    assert (before.value, before.method) == (1560, "reported")
    after = one(store, scope, revenue, "PAY", AFTER, "2025-01-01..2025-07-01")
    assert (after.value, after.method) == (660 + 780, "sum of 2 consecutive reported periods")
    assert any("older basis avoided" in w and "2025-01-01..2025-07-01 is as reported before"
               in w for w in after.warnings)


# A 10-K/A restates fiscal 2024 (the third and fourth quarters were overstated); the nine
# months stay as filed until the next year's third-quarter 10-Q restates them as comparatives.
NINE = HEADER + """\
NINE,us-gaap:Revenues,100,USD,2024-01-01,2024-03-31,nine-10q-2024q1,10-Q,2024-05-06
NINE,us-gaap:Revenues,110,USD,2024-04-01,2024-06-30,nine-10q-2024q2,10-Q,2024-08-05
NINE,us-gaap:Revenues,210,USD,2024-01-01,2024-06-30,nine-10q-2024q2,10-Q,2024-08-05
NINE,us-gaap:Revenues,120,USD,2024-07-01,2024-09-30,nine-10q-2024q3,10-Q,2024-11-04
NINE,us-gaap:Revenues,330,USD,2024-01-01,2024-09-30,nine-10q-2024q3,10-Q,2024-11-04
NINE,us-gaap:Revenues,400,USD,2023-01-01,2023-12-31,nine-10k-2024,10-K,2025-02-20
NINE,us-gaap:Revenues,460,USD,2024-01-01,2024-12-31,nine-10k-2024,10-K,2025-02-20
NINE,us-gaap:Revenues,115,USD,2025-01-01,2025-03-31,nine-10q-2025q1,10-Q,2025-05-05
NINE,us-gaap:Revenues,100,USD,2024-01-01,2024-03-31,nine-10q-2025q1,10-Q,2025-05-05
NINE,us-gaap:Revenues,435,USD,2024-01-01,2024-12-31,nine-10ka-2024,10-K/A,2025-06-16
NINE,us-gaap:Revenues,125,USD,2025-04-01,2025-06-30,nine-10q-2025q2,10-Q,2025-08-04
NINE,us-gaap:Revenues,240,USD,2025-01-01,2025-06-30,nine-10q-2025q2,10-Q,2025-08-04
NINE,us-gaap:Revenues,130,USD,2025-07-01,2025-09-30,nine-10q-2025q3,10-Q,2025-11-03
NINE,us-gaap:Revenues,370,USD,2025-01-01,2025-09-30,nine-10q-2025q3,10-Q,2025-11-03
NINE,us-gaap:Revenues,100,USD,2024-07-01,2024-09-30,nine-10q-2025q3,10-Q,2025-11-03
NINE,us-gaap:Revenues,310,USD,2024-01-01,2024-09-30,nine-10q-2025q3,10-Q,2025-11-03
"""


def test_nine_months_inside_a_year_a_10k_a_restated_are_never_mixed_with_it_until_restated(
        store: Store, scope: Scope, tmp_path: Path) -> None:
    ingest_table(store, scope, written(tmp_path, "nine.csv", NINE), "test")
    revenue = resolve_metric("revenue")
    assert one(store, scope, revenue, "NINE", "2025-03-01", "FY2024Q4").value == 460 - 330
    # After the 10-K/A: the restated year less the nine months as filed would be 105, a mix.
    q4 = one(store, scope, revenue, "NINE", "2025-07-01", "FY2024Q4")
    assert q4.value == 460 - 330
    assert any("would mix vintages" in w for w in q4.warnings)
    assert any("basis reported before 2025-06-16" in w for w in q4.warnings)
    ltm = one(store, scope, revenue, "NINE", "2025-07-01")
    assert (ltm.value, ltm.period) == (435, "LTM to FY2024Q4")
    assert any("LTM to FY2025Q1" in w and "would mix vintages" in w for w in ltm.warnings)
    # Once a 10-Q restates the nine months, they catch up with the restated year: one basis.
    q4 = one(store, scope, revenue, "NINE", "2025-12-01", "FY2024Q4")
    assert (q4.value, q4.method) == (435 - 310, "fiscal year - 9 months YTD")
    assert not any("mix vintages" in w or "basis reported before" in w for w in q4.warnings)
    assert {i.period: i.restated for i in q4.inputs} == {
        "2024-01-01..2024-10-01": True, "2024-01-01..2025-01-01": True}
    ltm = one(store, scope, revenue, "NINE", "2025-12-01")
    assert (ltm.value, ltm.period) == (435 - 310 + 115 + 125 + 130, "LTM to FY2025Q3")
