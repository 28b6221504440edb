"""``vintage ingest companyfacts``: SEC EDGAR XBRL companyfacts files into facts.

One ``Subject`` per company, one ``Source`` per accession (available from its filed date, or
from its acceptance time when one is given), one observation ``Fact`` per (taxonomy, concept,
unit, period) and value. Every filing repeats the prior periods it shows as comparatives: the
same value again adds ``SUPPORTED_BY``; another value supersedes the earlier one from that
filing's date, classified (``vintage.ingest.sec.revisions``) and recorded on the new version.

The file is parsed as a stream (``vintage.ingest.sec.stream``) into compact rows and validated
whole before the first write: one bad row and the error names the file, the row and the field,
and nothing of the file is stored. Implausible rows are bad rows (``vintage.ingest.plausible``): a
filing public long before the period it reports on, or after now, and one filing giving two values
for one fact. The file is then written whole or not at all, in the order the world learned the
values (``vintage.ingest.batches``). ``fy``, ``fp`` and ``frame`` describe the filing, not the
period, and are ignored; periods key on start/end.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from vintage.graph.core.kinds import SourceKind
from vintage.graph.core.limits import MAX_NAME_CHARS
from vintage.graph.core.model import FactIn, Scope, SourceIn, Subject
from vintage.graph.core.temporal import Interval, all_time, day_start
from vintage.graph.store.protocol import Store
from vintage.ingest.batches import Origin, Progress, Summary, write_file
from vintage.ingest.plausible import CLOCK_SKEW, OneValue, from_the_future, too_early
from vintage.ingest.reading import ACCESSION, IngestError, read_acceptance_times
from vintage.ingest.sec.revisions import Row, ValueChange, classify, in_filing_order, revisions
from vintage.ingest.sec.stream import StreamError, items, opened

_UNIT = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(?:/[A-Za-z][A-Za-z0-9_]*)?\Z")
__all__ = ["ParsedFile", "Planned", "ingest_companyfacts", "plan", "read_acceptance_times",
           "read_companyfacts"]
_FILE_TICKER = re.compile(r"^CIK\d{10}_([A-Z][A-Z0-9.\-]{0,9})\.json(?:\.gz)?\Z")
_FILE_CIK = re.compile(r"^CIK(\d{10})(?:_[^/]*)?\.json(?:\.gz)?\Z")
_ROW_FIELDS = ("end", "val", "accn", "form", "filed")
_LONGEST_FORM = 32  # SEC forms: 10-K, 10-Q/A, DEF 14A, ...


@dataclass(frozen=True)
class Filer:
    cik: str  # ten digits, zero-padded: companyfacts spells it as an integer or as text
    name: str
    ticker: str | None

    @property
    def subject_id(self) -> str:
        """The ticker where known (what analysts type), else ``CIK##########``."""
        return self.ticker or f"CIK{self.cik}"

    def subject(self) -> Subject:
        ids = (f"cik:{self.cik}",) + ((f"ticker:{self.ticker}",) if self.ticker else ())
        return Subject(id=self.subject_id, kind="company", name=self.name, identifiers=ids)


@dataclass(frozen=True)
class ParsedFile:
    path: Path
    filer: Filer
    rows: list[Row]


def read_companyfacts(path: Path, ticker: str | None = None) -> ParsedFile:
    """Stream-parse and validate a whole companyfacts file (``.json`` or ``.json.gz``).

    The ticker comes from ``ticker`` or from a file named ``CIK##########_TICKER.json``."""
    if not path.name.endswith((".json", ".json.gz")):
        raise IngestError(path, [(0, "-", "expected a companyfacts .json or .json.gz file")])
    header: dict[str, Any] = {}
    rows: list[Row] = []
    problems: list[tuple[int, str, str]] = []
    said = OneValue()
    number = 0
    try:
        with opened(path) as handle:
            for number, (where, item) in enumerate(items(handle, header), start=1):
                try:
                    row = _row(where, item, number)
                except _FieldError as exc:
                    problems.append((number, f"{where}.{exc.field}", exc.message))
                    continue
                rows.append(row)
                clash = said.clash(row.key, row.accn, number, row.value)
                if clash:
                    problems.append((number, f"{where}.val", clash))
    except StreamError as exc:  # at the row after the last one read
        raise IngestError(path, [(number + 1, "-", str(exc))]) from None
    filer = _filer(path, header, ticker, problems)
    if problems:
        raise IngestError(path, problems)
    if not rows:
        raise IngestError(path, [(0, "facts", "no fact rows")])
    _check_accessions(path, rows)
    return ParsedFile(path, filer, rows)


class _FieldError(Exception):
    def __init__(self, field_name: str, message: str) -> None:
        self.field = field_name
        self.message = message


def _day(item: dict[str, Any], name: str) -> date:
    text = item.get(name)
    if not isinstance(text, str):
        raise _FieldError(name, "missing" if text is None else "expected an ISO date")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise _FieldError(name, f"not an ISO date (YYYY-MM-DD): {text[:40]!r}") from None


def _row(where: str, item: dict[str, Any], number: int) -> Row:
    path = item["_path"]
    if len(path) != 6 or path[3] != "units":
        raise _FieldError("-", "not at facts.TAXONOMY.CONCEPT.units.UNIT[i]")
    _, taxonomy, concept, _, unit, _ = path
    if not _UNIT.match(unit):
        raise _FieldError("unit", f"unknown unit {unit[:20]!r}")
    for name in _ROW_FIELDS:
        if item.get(name) in (None, ""):
            raise _FieldError(name, "missing")
    value = item["val"]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _FieldError("val", f"not a number: {str(value)[:40]!r}")
    end = _day(item, "end")
    start = _day(item, "start") if "start" in item else None
    if start is not None and end < start:
        raise _FieldError("end", f"period ends ({end}) before it starts ({start})")
    if end == date.max:  # its valid interval would end on the day after: year 10000
        raise _FieldError("end", f"{end} is the calendar's last day: a period ends before")
    accn = str(item["accn"])
    if not ACCESSION.match(accn):
        raise _FieldError("accn", f"not an accession number (##########-##-######): "
                                  f"{accn[:40]!r}")
    filed = _day(item, "filed")
    early = too_early(day_start(filed), day_start(start or end))
    if early:
        raise _FieldError("filed", early)
    form = str(item["form"])
    if len(form) > _LONGEST_FORM:  # refused, not cut: a cut form is one no filing has
        raise _FieldError("form", f"longer than {_LONGEST_FORM} characters: not an SEC form")
    return Row(taxonomy, concept, unit, start, end, value, accn, form,
               filed, number, where)


def _filer(
    path: Path, header: dict[str, Any], ticker: str | None, problems: list[tuple[int, str, str]],
) -> Filer:
    cik, name = header.get("cik"), header.get("entityName")
    digits = str(int(cik)) if isinstance(cik, int | float) else str(cik or "").lstrip("0")
    if not digits.isdigit() or len(digits) > 10:
        problems.insert(0, (0, "cik", "missing or not a CIK number"))
    if not isinstance(name, str) or not name.strip():
        problems.insert(0, (0, "entityName", "missing"))
    elif len(name.strip()) > MAX_NAME_CHARS:
        problems.insert(0, (0, "entityName", f"longer than {MAX_NAME_CHARS} characters "
                                             f"({len(name.strip()):,}): not a company's name"))
    if ticker is not None and not ticker.strip():
        problems.insert(0, (0, "ticker", "empty: name the company's ticker, or leave it out "
                                         "(then it is read from a CIK##########_TICKER.json name)"))
    filed_as = _FILE_CIK.match(path.name)
    if filed_as and digits.isdigit() and filed_as.group(1) != digits.zfill(10):
        # EDGAR names the file after its filer: two CIKs is a renamed or mixed-up file, and
        # the ticker in the name would be given to another company.
        problems.insert(0, (0, "cik", f"CIK{digits.zfill(10)}, but the file is named for "
                                      f"CIK{filed_as.group(1)}"))
    named = _FILE_TICKER.match(path.name)
    return Filer(digits.zfill(10), str(name or "").strip(),
                 ticker or (named.group(1) if named else None))


def _check_accessions(path: Path, rows: list[Row]) -> None:
    """One accession is one filing: one form, one filed date."""
    seen: dict[str, tuple[str, date]] = {}
    for number, row in enumerate(rows, start=1):
        known = seen.setdefault(row.accn, (row.form, row.filed))
        if known != (row.form, row.filed):
            raise IngestError(path, [(number, "accn", f"{row.accn} appears as {known[0]} filed "
                                      f"{known[1]} and as {row.form} filed {row.filed}")])


@dataclass
class Planned:
    subject: Subject
    sources: dict[str, SourceIn]
    facts: list[FactIn]  # in the order the world learned them
    revisions: list[ValueChange]
    origins: list[Origin]  # where each fact came from, for an error to name


def plan(
    parsed: ParsedFile, accepted: Mapping[str, datetime] | None = None, *,
    available: Interval | None = None, concepts: Collection[str] | None = None,
    now: datetime | None = None, clock_skew: timedelta = CLOCK_SKEW,
) -> Planned:
    """Subjects, sources and fact drafts of a parsed file, with every revision classified.

    ``available`` keeps the filings public in that window (to replay a file in the order the
    world learned it); ``concepts`` keeps those predicates (``us-gaap:Revenues``). Revisions are
    classified on the whole file either way. With ``now``, a filing it would write that is
    public later than ``now`` plus ``clock_skew`` is refused (``vintage.ingest.plausible``)."""
    accepted = accepted or {}
    window = available or all_time()
    found = revisions(parsed.rows)
    classes = classify(found)
    change_of = {(rev.row.key, rev.row.accn): change for rev, change in classes.items()}
    subject = _subject(parsed)
    sources: dict[str, SourceIn] = {}
    facts: list[FactIn] = []
    origins: list[Origin] = []
    late: list[tuple[int, str, str]] = []  # refused: filings public in the future, bad drafts
    for row in in_filing_order(parsed.rows):
        if concepts is not None and row.predicate not in concepts:
            continue
        source = sources.get(row.accn) or _source(parsed, row, accepted.get(row.accn))
        if not window.contains(source.available_at):
            continue
        if row.accn not in sources and now is not None:
            future = from_the_future(source.available_at, now, clock_skew)
            if future:
                late.append((row.number, f"{row.where}.filed", f"{row.accn}: {future}"))
        sources[row.accn] = source
        start = row.start or row.end
        try:
            facts.append(FactIn(
                subject=subject.id, predicate=row.predicate, value=row.value, unit=row.unit,
                valid_from=day_start(start), valid_to=day_start(row.end) + timedelta(days=1),
                source=row.accn, change=change_of.get((row.key, row.accn)),
            ))
        except ValidationError as exc:  # a concept over 512 characters, a value out of range
            first = exc.errors()[0]
            field_name = _FACT_FIELDS.get(str(first["loc"][0]), "val")
            late.append((row.number, f"{row.where}.{field_name}", first["msg"]))
            continue
        origins.append(Origin(row.number, f"{row.where}.filed", f"{row.where}.accn"))
    if late:
        raise IngestError(parsed.path, late)
    return Planned(subject, sources, facts, found, origins)


# A fact draft's field -> where a companyfacts row holds it (the concept: in the path).
_FACT_FIELDS = {"predicate": "concept", "unit": "unit", "valid_from": "start",
                "valid_to": "end", "value": "val"}


def _subject(parsed: ParsedFile) -> Subject:
    try:
        return parsed.filer.subject()
    except ValidationError as exc:
        first = exc.errors()[0]
        name = "entityName" if first["loc"] and first["loc"][0] == "name" else "ticker"
        raise IngestError(parsed.path, [(0, name, first["msg"])]) from None


def _source(parsed: ParsedFile, row: Row, accepted: datetime | None) -> SourceIn:
    if accepted is not None and (row.filed - accepted.date()).days not in (0, 1):
        raise IngestError(parsed.path, [(0, "accepted", (
            f"{row.accn}: acceptance {accepted.isoformat()} is not on or the day before its "
            f"filed date {row.filed}"))])
    folder = row.accn.replace("-", "")
    return SourceIn(
        id=row.accn, kind=SourceKind.FILING, available_at=accepted or day_start(row.filed),
        accession=row.accn, form=row.form,
        uri=f"https://www.sec.gov/Archives/edgar/data/{int(parsed.filer.cik)}/{folder}/",
    )


def ingest_companyfacts(
    store: Store, scope: Scope, path: Path, *, actor: str, ticker: str | None = None,
    accepted: Mapping[str, datetime] | None = None, recompute: bool = False,
    dry_run: bool = False, progress: Progress | None = None, available: Interval | None = None,
    concepts: Collection[str] | None = None, clock_skew: timedelta = CLOCK_SKEW,
) -> Summary:
    """Validate the whole file, then write it; re-running it changes nothing."""
    planned = plan(read_companyfacts(path, ticker), accepted, available=available,
                   concepts=concepts, now=store.now(), clock_skew=clock_skew)
    return write_file(store, scope, path, subjects=[planned.subject],
                      sources=planned.sources, facts=planned.facts, origins=planned.origins,
                      actor=actor, recompute=recompute, dry_run=dry_run, progress=progress)
