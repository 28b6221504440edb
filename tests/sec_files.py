"""The bundled SEC companyfacts files, and the periods and filings the tests keep coming back
to; shared by the revision tests and the ingest tests."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

from vintage.graph.core.kinds import Change
from vintage.graph.core.temporal import day_start
from vintage.ingest.bundled import DATA
from vintage.ingest.sec.companyfacts import ParsedFile
from vintage.ingest.sec.revisions import ValueChange, classify, revisions

FILES = DATA / "companyfacts"
TICKERS = ("NVDA", "GOOGL", "TSLA", "SNOW", "MRVL", "LPA")

GOOGL_OPERATING_INCOME = "us-gaap:OperatingIncomeLoss"
GOOGL_NET_INCOME = "us-gaap:NetIncomeLoss"
NVDA_EPS = "us-gaap:EarningsPerShareDiluted"
TSLA_COGS = "us-gaap:CostOfGoodsSold"
Q1_2018 = (date(2018, 1, 1), date(2018, 3, 31))
NVDA_FY2024 = (date(2023, 1, 30), date(2024, 1, 28))
TSLA_FY2014 = (date(2014, 1, 1), date(2014, 12, 31))
GOOGL_FIRST = "0001652044-18-000016"
GOOGL_RECAST = "0001652044-19-000015"

RevisionKey = tuple[int, str, str, str, str, str, str]


def data_file(ticker: str) -> Path:
    (path,) = FILES.glob(f"CIK*_{ticker}.json.gz")
    return path


def period(start: date | None, end: date) -> tuple[datetime, datetime]:
    """The half-open valid interval the ingest gives an SEC period (``end`` is inclusive)."""
    return day_start(start or end), day_start(end) + timedelta(days=1)


def classified(parsed_file: ParsedFile) -> dict[ValueChange, Change]:
    return classify(revisions(parsed_file.rows))
