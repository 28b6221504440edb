"""``vintage ingest facts``: observations from a CSV or JSON-lines table.

For figures that are not in XBRL (payment volume, GMV, other KPIs from earnings releases), and
for the bundled demo data. One row is one (fact, source) pair:

    subject, predicate, value, unit, period_start, period_end, source_id, available_at
    optional: subject_name, form, url, source_kind (default: filing), fiscal_year_end

``fiscal_year_end`` (``MM-DD``) declares the subject's fiscal year-end, for a company whose
figures come as quarters with no year-long span to read its fiscal calendar from. It is stored
as a fact, ``vintage:FiscalYearEnd`` of the subject (valid from 1970 on, open-ended), from the
row's source, so it is public from that source's date like any figure: one fact per subject and
source, and a later file declaring another year-end corrects it. One file declares at most one
year-end per subject.

Periods follow the SEC convention: ``period_end`` is the last day, inclusive; an empty
``period_start`` marks an instant (a balance at the end of ``period_end``). Both become the
half-open valid interval ``[start, end + 1 day)``. The whole file is validated before anything is
written: one bad row, and the error names file, row and field, and nothing of the file is stored.
Implausible rows (``vintage.ingest.plausible``) are bad rows: a source public long before the period
it reports on or after now, and one source giving two values for one assertion. Whatever the bytes
hold, reading ends in rows or in one error naming the row (``vintage.ingest.reading``); then the
file is written whole or not at all (``vintage.ingest.batches``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from vintage.graph.core.kinds import SourceKind
from vintage.graph.core.limits import MAX_NAME_CHARS, MAX_URI_CHARS
from vintage.graph.core.model import FactIn, Scope, SourceIn, Subject
from vintage.graph.core.temporal import Interval, TimeError, all_time, day_start, parse_instant
from vintage.graph.store.protocol import Store
from vintage.ingest.batches import Origin, Progress, Summary, write_file
from vintage.ingest.plausible import CLOCK_SKEW, OneValue, from_the_future, too_early
from vintage.ingest.reading import IngestError, csv_rows, jsonl_rows, parse_number

__all__ = ["IngestError", "TableIngest", "ingest_table", "parse_table", "read_rows"]

REQUIRED = ("subject", "predicate", "value", "unit", "period_end", "source_id", "available_at")
OPTIONAL = ("period_start", "subject_name", "form", "url", "source_kind", "fiscal_year_end")
_COLUMNS = frozenset(REQUIRED + OPTIONAL)
_NAMED = ", ".join(REQUIRED) + "; optional: " + ", ".join(OPTIONAL)
_YEAR_END = re.compile(r"([0-9]{2})-([0-9]{2})", re.ASCII)
# vintage.queries.metrics.fiscal reads the declaration under this predicate (ingest may not import
# queries).
FISCAL_YEAR_END = "vintage:FiscalYearEnd"
DECLARED_FROM = day_start(date(1970, 1, 1))
_UNIT = re.compile(r"^(?:[A-Z]{3}|shares|pure|count|percent|[A-Z]{3}/shares)\Z")
_ISO_DAY = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")
M = TypeVar("M", bound=BaseModel)


@dataclass
class TableIngest:
    rows: int = 0
    subjects: dict[str, Subject] = field(default_factory=dict)
    sources: dict[str, SourceIn] = field(default_factory=dict)
    facts: list[FactIn] = field(default_factory=list)
    numbers: list[int] = field(default_factory=list)  # each fact's row, as errors name it
    year_ends: dict[str, str] = field(default_factory=dict)  # subject -> declared MM-DD
    declared: set[tuple[str, str]] = field(default_factory=set)  # (subject, source) written


def read_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Rows numbered as a person counts them: CSV data rows from 2 (after the header)."""
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        yield from jsonl_rows(path)
    elif path.suffix.lower() == ".csv":
        yield from csv_rows(path)
    else:
        raise IngestError(path, [(0, "-", "expected a .csv or .jsonl file")])


def parse_table(path: Path) -> TableIngest:
    parsed = TableIngest()
    problems: list[tuple[int, str, str]] = []
    said = OneValue()
    unknown_seen: set[str] = set()
    for number, row in read_rows(path):
        parsed.rows += 1
        before = len(parsed.facts)
        # A column the table does not know is refused, once, where it first appears: a
        # misspelt optional column (`URL`, `period_begin`) would otherwise be dropped unsaid.
        unknown = [name for name in row if name not in _COLUMNS and name not in unknown_seen]
        if unknown:
            unknown_seen.update(unknown)
            problems.extend((number, name, "a value under a column the header leaves unnamed"
                             if not name else f"unknown column: the columns are {_NAMED}")
                            for name in unknown)
            continue
        try:
            _parse_row(row, parsed)
        except _RowError as exc:
            problems.append((number, exc.field, exc.message))
            continue
        for f in parsed.facts[before:]:  # the row's fact (and any it declares)
            parsed.numbers.append(number)
            clash = said.clash((f.subject, f.predicate, f.unit, f.valid_from, f.valid_to),
                               str(f.source), number, f.value)
            if clash:
                problems.append((number, "value", clash))
    if problems:
        raise IngestError(path, problems)
    if not parsed.facts:
        raise IngestError(path, [(0, "-", "no rows")])
    return parsed


def ingest_table(
    store: Store, scope: Scope, path: Path, actor: str, *,
    available: Interval | None = None, recompute: bool = False, dry_run: bool = False,
    progress: Progress | None = None, clock_skew: timedelta = CLOCK_SKEW,
) -> Summary:
    """Validate the whole file, then write it in batches ordered by availability.

    ``available`` keeps only rows whose source was public in that window (to replay a file in
    the order the world learned it); ``recompute`` recomputes what corrections cascade to.
    A source public after the store's clock plus ``clock_skew`` is refused
    (vintage.ingest.plausible)."""
    parsed = parse_table(path)
    window = available or all_time()
    kept = [(n, f) for n, f in zip(parsed.numbers, parsed.facts, strict=True)
            if window.contains(parsed.sources[str(f.source)].available_at)]
    _refuse_future(path, parsed, kept, store.now(), clock_skew)
    facts = sorted((f for _, f in kept),
                   key=lambda f: parsed.sources[str(f.source)].available_at)
    origin = {id(f): Origin(n, "available_at", "source_id") for n, f in kept}
    summary = write_file(store, scope, path, subjects=list(parsed.subjects.values()),
                         sources=parsed.sources, facts=facts,
                         origins=[origin[id(f)] for f in facts], actor=actor,
                         recompute=recompute, dry_run=dry_run, progress=progress)
    # A declared year-end is one more fact of a row, not a row of the file.
    summary.rows -= sum(f.predicate == FISCAL_YEAR_END for f in facts)
    return summary


def _refuse_future(path: Path, parsed: TableIngest, kept: list[tuple[int, FactIn]],
                   now: datetime, skew: timedelta) -> None:
    """Each source public after now (its first row to be written), or nothing."""
    problems, named = [], set()
    for number, f in kept:
        source = parsed.sources[str(f.source)]
        why = from_the_future(source.available_at, now, skew)
        if why and source.id not in named:
            named.add(source.id)
            problems.append((number, "available_at", why))
    if problems:
        raise IngestError(path, problems)


class _RowError(Exception):
    def __init__(self, field_name: str, message: str) -> None:
        self.field = field_name
        self.message = message


def _text(row: dict[str, Any], name: str, required: bool = True) -> str:
    value = row.get(name)
    if isinstance(value, dict | list):  # JSON lines: a field holds text or a number
        raise _RowError(name, "expected text or a number, not a JSON object or array")
    text = "" if value is None else str(value).strip()
    if required and not text:
        raise _RowError(name, "missing")
    bound = MAX_URI_CHARS if name == "url" else MAX_NAME_CHARS
    if len(text) > bound:
        raise _RowError(name, f"longer than {bound} characters ({len(text):,}): shorten it")
    return text


def _number(text: str) -> int | float:
    value = parse_number(text)
    if value is None:
        raise _RowError("value", f"not a number (digits, a point, an exponent): {text[:40]!r}")
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        raise _RowError("value", "NaN and infinity are not values")
    return value


def _day(row: dict[str, Any], name: str, required: bool = True) -> date | None:
    given = row.get(name)
    if isinstance(given, int | float):  # JSON lines: a number is not a date (20240331)
        raise _RowError(name, f"expected an ISO date as text (YYYY-MM-DD), got the number "
                              f"{given!r}")
    text = _text(row, name, required)
    if not text:
        return None
    try:
        if not _ISO_DAY.match(text):  # date.fromisoformat also takes 20240331
            raise ValueError(text)
        return date.fromisoformat(text)
    except ValueError:
        raise _RowError(name, f"not an ISO date (YYYY-MM-DD): {text[:40]!r}") from None


def _parse_row(row: dict[str, Any], parsed: TableIngest) -> None:
    for name in REQUIRED:
        _text(row, name)
    unit = _text(row, "unit")
    if not _UNIT.match(unit):
        raise _RowError("unit", f"unknown unit {unit[:20]!r} (ISO currency, shares, pure, ...)")
    end = _day(row, "period_end")
    start = _day(row, "period_start", required=False) or end
    assert start is not None and end is not None
    if end < start:
        raise _RowError("period_end", f"period ends ({end}) before it starts ({start})")
    if end == date.max:  # its valid interval would end on the day after: year 10000
        raise _RowError("period_end", f"{end} is the calendar's last day: a period ends before")
    try:
        available = parse_instant(_text(row, "available_at"), "available_at")
    except TimeError as exc:
        raise _RowError("available_at", str(exc)) from None
    early = too_early(available, day_start(start))
    if early:
        raise _RowError("available_at", early)
    kind_text = _text(row, "source_kind", required=False) or SourceKind.FILING.value
    try:
        kind = SourceKind(kind_text)
    except ValueError:
        raise _RowError("source_kind", f"unknown source kind {kind_text[:30]!r}") from None
    subject_id = _text(row, "subject")
    source_id = _text(row, "source_id")
    source = _built(SourceIn, _SOURCE_COLUMNS, id=source_id, kind=kind, available_at=available,
                    form=_text(row, "form", False) or None,
                    accession=source_id if kind is SourceKind.FILING else None,
                    uri=_text(row, "url", False) or None)
    fact = _built(FactIn, _FACT_COLUMNS, subject=subject_id, predicate=_text(row, "predicate"),
                  value=_number(_text(row, "value")), unit=unit, valid_from=day_start(start),
                  valid_to=day_start(end) + timedelta(days=1), source=source_id)
    known = parsed.sources.get(source_id)
    if known is not None and known != source:
        raise _RowError("source_id", f"source {source_id!r} appears with other attributes")
    subject = _built(Subject, {"id": "subject", "name": "subject_name"}, id=subject_id,
                     kind="company", name=_text(row, "subject_name", False) or None)
    parsed.sources[source_id] = source
    parsed.subjects.setdefault(subject_id, subject)
    parsed.facts.append(fact)
    year_end = _text(row, "fiscal_year_end", required=False)
    if year_end:
        _declare(parsed, subject_id, source_id, year_end)


# A model's field -> the column it came from, so that its error names the column.
_SOURCE_COLUMNS = {"id": "source_id", "accession": "source_id", "uri": "url",
                   "kind": "source_kind"}
_FACT_COLUMNS = {"valid_from": "period_start", "valid_to": "period_end", "source": "source_id"}


def _built(model: type[M], columns: dict[str, str], **values: Any) -> M:
    try:
        return model(**values)
    except ValidationError as exc:
        first = exc.errors()[0]
        name = str(first["loc"][0]) if first["loc"] else "-"
        raise _RowError(columns.get(name, name), first["msg"]) from None


def _declare(parsed: TableIngest, subject: str, source: str, text: str) -> None:
    m = _YEAR_END.fullmatch(text)
    try:
        # A year that is not a leap year: a year-end must be a day of every year.
        ok = m is not None and date(2001, int(m.group(1)), int(m.group(2))) is not None
    except ValueError:
        ok = False
    if not ok:
        raise _RowError("fiscal_year_end", f"not MM-DD, a day of every year (such as 12-31 or "
                                           f"09-30): {text[:20]!r}")
    known = parsed.year_ends.setdefault(subject, text)
    if known != text:
        raise _RowError("fiscal_year_end", f"{text} differs from {known}, declared for "
                                           f"{subject[:40]!r} on an earlier row")
    if (subject, source) not in parsed.declared:
        parsed.declared.add((subject, source))
        parsed.facts.append(FactIn(subject=subject, predicate=FISCAL_YEAR_END, value=text,
                                   unit=None, valid_from=DECLARED_FROM, source=source))
