"""A command's table as rows of plain values: for ``--format csv`` and for ``vintage.to_pandas``.

One row per line of the table, one column per field, every digit kept (``7001000000``, not
``7,001M``), instants in ISO 8601, an open end empty. The same rows serve the CSV the command
line writes and the data frame a program builds, so the two never disagree.

Text that reaches a terminal is shown, not obeyed: in CSV, a control character in a value is
written as its escape (``\\x1b``), as in every table; newlines and tabs stay (quoted). The data
frame keeps the exact text.
"""

from __future__ import annotations

import csv
import importlib
import io
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeAlias

from vintage.queries.search.request import SearchResult
from vintage.render.terminal import visible

if TYPE_CHECKING:  # loaded when a table of theirs is made (``table_of``): a search needs neither
    from vintage.queries.lineage.asof import Answer
    from vintage.queries.lineage.impact import Impact
    from vintage.queries.metrics.answers import MetricAnswer

Row = dict[str, Any]
Tabular: TypeAlias = ("MetricAnswer | Sequence[MetricAnswer] | Sequence[Answer] | SearchResult"
                      " | Impact")


def _iso(t: datetime | None) -> str | None:
    return None if t is None else t.isoformat()


METRIC = ("metric", "cutoff", "subject", "value", "unit", "period", "span", "method",
          "concepts", "fact_id", "derivation_id", "refused", "warnings")
FACT = ("id", "subject", "predicate", "value", "unit", "revision", "kind", "status",
        "valid_from", "valid_to", "known_from", "known_until", "recorded_from",
        "recorded_until", "sources")
SEARCH = ("rank", "score", "id", "subject", "predicate", "value", "unit", "status",
          "valid_from", "valid_to", "sources")
# An impact's two tables in one: ``entry`` ``downstream`` (a derived fact it reaches, with its
# depth, path and whether it survives), then ``revised`` (what the source already changed: the
# old version, the new one's id and value, the kind of revision and, for a filed one, its class).
IMPACT = ("entry", "depth", "id", "subject", "predicate", "value", "unit", "valid_from",
          "valid_to", "known_from", "known_until", "survives", "path", "new_id", "new_value",
          "revision", "change")


def table_of(result: Tabular) -> tuple[tuple[str, ...], list[tuple[Any, ...]]]:
    """The columns and the rows of ``result``: a metric answer (or one per cutoff), facts as
    of a cutoff or a history, a search, an impact."""
    if isinstance(result, SearchResult):
        return SEARCH, search_rows(result)
    from vintage.queries.lineage.asof import Answer
    from vintage.queries.lineage.impact import Impact
    from vintage.queries.metrics.answers import MetricAnswer

    if isinstance(result, MetricAnswer):
        return METRIC, metric_rows([result])
    if isinstance(result, Impact):
        return IMPACT, impact_rows(result)
    items = list(result)
    metrics = [i for i in items if isinstance(i, MetricAnswer)]
    if metrics and len(metrics) == len(items):
        return METRIC, metric_rows(metrics)
    return FACT, fact_rows([i for i in items if isinstance(i, Answer)])


def rows(result: Tabular) -> list[Row]:
    """``result``'s rows as dicts, column name to value."""
    columns, found = table_of(result)
    return [dict(zip(columns, row, strict=True)) for row in found]


def metric_rows(answers: Sequence[MetricAnswer]) -> list[tuple[Any, ...]]:
    return [(a.metric, _iso(a.cutoff), s.subject, s.value, s.unit, s.period, s.span, s.method,
             " ".join(dict.fromkeys(i.predicate for i in s.inputs)), s.fact_id,
             s.derivation_id, s.refused, " | ".join(s.warnings))
            for a in answers for s in a.answers]


def fact_rows(answers: Sequence[Answer]) -> list[tuple[Any, ...]]:
    return [(f.id, f.subject, f.predicate, f.value, f.unit, f.revision, f.kind.value,
             f.status.value, _iso(f.valid_from), _iso(f.valid_to), _iso(f.available_at),
             _iso(f.superseded_at), _iso(f.recorded_at), _iso(f.invalidated_at),
             " ".join(s.id for s in a.sources))
            for a in answers for f in (a.fact,)]


def search_rows(result: SearchResult) -> list[tuple[Any, ...]]:
    return [(f.rank, f.score, f.id, f.subject, f.predicate, f.value, f.unit, f.status,
             _iso(f.valid[0]), _iso(f.valid[1]),
             " ".join(s.accession or s.id for s in f.sources))
            for f in result.results]


def impact_rows(result: Impact) -> list[tuple[Any, ...]]:
    downstream = [
        ("downstream", r.depth, f.id, f.subject, f.predicate, f.value, f.unit, _iso(f.valid[0]),
         _iso(f.valid[1]), _iso(f.knowledge[0]), _iso(f.knowledge[1]), r.survives,
         " -> ".join(r.path), None, None, None, None)
        for r in result.affected for f in (r.fact,)]
    return downstream + [
        ("revised", None, f.id, f.subject, f.predicate, f.value, f.unit, _iso(f.valid[0]),
         _iso(f.valid[1]), _iso(f.knowledge[0]), _iso(f.knowledge[1]), None, None,
         r.new.id if r.new else None, r.new.value if r.new else None, r.revision, r.change)
        for r in result.revised for f in (r.old,)]


def as_csv(result: Tabular) -> str:
    """``result`` as CSV text: a header row, then a row per line of its table."""
    return csv_text(*table_of(result))


def csv_text(columns: Sequence[str], found: Sequence[Sequence[Any]]) -> str:
    """A header row, then the rows (RFC 4180 quoting: a cell holding a comma, a quote or a
    newline is quoted; text in any script is written as it is, UTF-8 on the way out)."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(columns)
    for row in found:
        writer.writerow(["" if v is None else visible(v, lines=True) for v in row])
    return text.getvalue()


def print_csv(result: Tabular) -> None:
    """``--format csv``: plain text on stdout, no rich markup or colour."""
    sys.stdout.write(as_csv(result))


def print_table_csv(columns: Sequence[str], found: Sequence[Sequence[Any]]) -> None:
    """``--format csv`` of a listing (``vintage.render.listings``): plain text on stdout."""
    sys.stdout.write(csv_text(columns, found))


def to_pandas(result: Tabular) -> Any:
    """``result``'s rows as a pandas ``DataFrame`` (pandas is optional: ``pip install
    'vintage[pandas]'``; without it this raises ``ModuleNotFoundError`` saying so)."""
    try:
        # Imported by name: pandas is optional, and the type checker needs neither it nor its
        # stubs (a DataFrame is Any here).
        pandas = importlib.import_module("pandas")
    except ImportError:
        raise ModuleNotFoundError(
            "to_pandas needs pandas, which is not installed: pip install 'vintage[pandas]' "
            "(or pip install pandas)", name="pandas") from None
    columns, found = table_of(result)
    return pandas.DataFrame.from_records(found, columns=list(columns))
