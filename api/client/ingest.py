"""Loading and retracting over ``vintage --server`` (``vintage.client.commands``): ``ingest
companyfacts`` and ``ingest facts`` upload each file (streamed from disk) as a background job,
follow it (``/v1/jobs/{id}``, a progress bar on stderr) and print its summary as the local command
does;
``retract`` (and ``--undo``) is one request whose answer the local renderer prints.

The server names an upload by what it is told, not by the path on this machine: the summary
shows the local file's name, as the local command does. A cascade the summary lists shows its
values without their unit (the job's summary does not carry it).
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from vintage.cli.options import as_csv_unless_json
from vintage.client.facts import shown_fact
from vintage.client.http import Remote, problem_error, segment
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.temporal import parse_instant
from vintage.graph.writes.cascade import Fate, Outcome
from vintage.graph.writes.corrections import ExitReport
from vintage.graph.writes.reach import FactRef
from vintage.ingest.batches import Summary
from vintage.render import facts as render
from vintage.render import listings
from vintage.render.rows import print_table_csv
from vintage.render.terminal import console, print_json, safe

_out = console()
_err = console(stderr=True)
POLL_SECONDS = 0.2
ENDED = ("succeeded", "failed")
# What the API takes as an upload's name (``vintage.http.models_ingest.FileName``).
SENDABLE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}\Z")


def companyfacts(remote: Remote, p: dict[str, Any]) -> None:
    if p["accepted"] is not None:
        raise InvalidArgument("--accepted is not available over --server: the API takes one "
                              "file per upload and no acceptance-time table")
    if p["ticker"] is not None and len(p["files"]) > 1:
        raise typer.BadParameter("--ticker names one company: give one file",
                                 param_hint="--ticker")
    _load(remote, "/v1/ingest/companyfacts", p, lambda path: {
        "ticker": p["ticker"],
        "filename": path.name if SENDABLE_NAME.match(path.name) else None})


def table(remote: Remote, p: dict[str, Any]) -> None:
    # As ``vintage.ingest.facts_table`` reads it: by its suffix; a name it refuses is refused here.
    def query(path: Path) -> dict[str, Any]:
        suffix = path.suffix.lower()
        if suffix not in (".csv", ".jsonl", ".ndjson"):
            raise InvalidArgument(f"{path.name}: expected a .csv or .jsonl file")
        return {"format": "csv" if suffix == ".csv" else "jsonl"}
    _load(remote, "/v1/ingest/facts", p, query)


def _load(remote: Remote, route: str, p: dict[str, Any],
          query: Callable[[Path], dict[str, Any]]) -> None:
    files: list[Path] = p["files"]
    to_csv = as_csv_unless_json(p["fmt"], p["as_json"])
    asked = [query(path) | {"recompute": p["recompute"] or None,
                            "dry_run": p["dry_run"] or None} for path in files]
    results: list[dict[str, Any]] = []
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  console=_err, transient=True, disable=p["as_json"]) as bar:
        for path, q in zip(files, asked, strict=True):
            task = bar.add_task(safe(path.name), total=None)
            job = remote.upload(route, path, q)
            while job["state"] not in ENDED:
                time.sleep(POLL_SECONDS)
                job = remote.call("GET", f"/v1/jobs/{segment(job['id'])}")
                bar.update(task, completed=job["done"], total=job["total"])
            if job["state"] == "failed":
                problem = job["error"] or {}
                raise problem_error(int(problem.get("status") or 500),
                                    json.dumps(problem).encode())
            results.append(job["result"] | {"file": path.name})
    if to_csv:
        print_table_csv(*listings.cascade([summary_of(r) for r in results]))
    elif p["as_json"]:
        print_json(_out, json.dumps(results))
    else:
        for result in results:
            render.ingest_summary(_out, summary_of(result))


def summary_of(data: dict[str, Any]) -> Summary:
    """A job's summary read back into what ``render.ingest_summary`` prints."""
    def outcome(c: dict[str, Any]) -> Outcome:
        new = c["new_value"] if c["new_value"] is not None else (
            c["old_value"] if c["new_fact"] else None)
        return Outcome(
            fact=FactRef(c["fact"], c["predicate"], c["subject"], c["old_value"]),
            depth=c["depth"], path=(), fate=Fate(c["fate"]), ends_at=None,
            replacement=shown_fact(id=c["new_fact"], value=new, unit=None)
            if c["new_fact"] else None)
    return Summary(
        file=data["file"], subjects=list(data["subjects"]), sources=data["sources"],
        rows=data["rows"], created=data["facts_created"], repeated=data["support_repeats"],
        superseded=[("", "")] * data["superseded"], revisions=Counter(data["revisions"]),
        cascade=[outcome(c) for c in data["cascade"]], events=list(data["events"]),
        dry_run=data["dry_run"])


def retract(remote: Remote, p: dict[str, Any]) -> None:
    path = f"/v1/sources/{segment(p['source'])}/retraction" + ("/undo" if p["undo"] else "")
    done = remote.call("POST", path, body={"reason": p["reason"]})

    def touched(t: dict[str, Any]) -> Outcome:
        ends = t.get("known_until")
        return Outcome(fact=FactRef(t["fact"], t["predicate"]),
                       depth=t.get("depth") or 0, path=(), fate=Fate(t["fate"]),
                       ends_at=parse_instant(ends, "known_until") if ends else None)
    report = ExitReport(event_id=done["event"], invalidated=list(done["facts"]),
                        cascade=[touched(t) for t in done["cascade"]],
                        knowledge=[touched(t) for t in done["knowledge"]])
    render.retraction(_out, report, p["undo"], p["as_json"])


INGEST_COMMANDS: dict[str, Callable[[Remote, dict[str, Any]], None]] = {
    "ingest companyfacts": companyfacts, "ingest facts": table, "retract": retract}
