"""Uploads: a companyfacts file or a CSV / JSON-lines table as the request body, streamed to a
scratch file (never held in memory), then loaded by a background job; ``/v1/jobs/{id}`` tells
its progress and, once it ends, its summary or its problem.

The file is checked whole before anything is written (``ingest``), and loading it again
changes nothing: a job lost to a restart is uploaded again, with no duplicate.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, HTTPException, Query, Request, Response
from fastapi import Path as PathParam

from vintage.graph.access import check_write
from vintage.graph.core.kinds import SourceKind
from vintage.http import guard
from vintage.http.auth import Authenticated, service
from vintage.http.jobs import Progress
from vintage.http.models_ingest import CompanyfactsQuery, JobOut, TableQuery
from vintage.http.problems import documented
from vintage.http.routes_memory import user_and_project
from vintage.http.strict import StrictRoute
from vintage.ingest.batches import Summary
from vintage.ingest.facts_table import ingest_table, parse_table
from vintage.ingest.sec.companyfacts import ingest_companyfacts

router = APIRouter(prefix="/v1", tags=["ingest"], route_class=StrictRoute)
MAX_UPLOAD_BYTES = 2**30  # the largest companyfacts files are a few hundred MB unpacked
GZIP_MAGIC = b"\x1f\x8b"
BODY = {"requestBody": {"required": True, "content": {
    "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
    "description": "The file itself (not a form): JSON, gzip or a table."}}
ACCEPTED: dict[int | str, dict[str, Any]] = {
    202: {"model": JobOut, "description": "Accepted: poll the job (its Location)."}}


async def save_upload(request: Request, name: str | None, default: str) -> tuple[Path, str]:
    """Stream the body into a fresh scratch folder; its file is ``name``, else ``default``
    (``.gz`` added when the body is gzip). The folder is the caller's to remove."""
    scratch = Path(tempfile.mkdtemp(prefix="vintage-upload-"))
    part, size, head = scratch / "upload.part", 0, b""
    try:
        with part.open("wb") as out:
            async for chunk in request.stream():
                size += len(chunk)
                if size > MAX_UPLOAD_BYTES:
                    raise HTTPException(413, f"larger than {MAX_UPLOAD_BYTES} bytes")
                head = head or chunk[:2]
                await anyio.to_thread.run_sync(out.write, chunk)
        chosen = name or (default + ".gz" if head == GZIP_MAGIC else default)
        part.rename(scratch / chosen)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    return scratch, chosen


def summarised(summary: Summary) -> dict[str, Any]:
    # ``as_data`` holds values and instants as they are: JSON-ready as the CLI prints them.
    data: dict[str, Any] = json.loads(json.dumps(summary.as_data(), default=str))
    return data


def _started(request: Request, caller: Authenticated, kind: str, scratch: Path, file: str,
             run: Callable[[Path, Progress], Summary], response: Response) -> JobOut:
    job = service(request).jobs.submit(caller.principal, kind, file, scratch,
                                       lambda path, progress: summarised(run(path, progress)))
    response.headers["Location"] = f"/v1/jobs/{job.id}"
    response.status_code = 202
    return JobOut.of(job)


@router.post("/ingest/companyfacts", response_model=JobOut, status_code=202,
             openapi_extra=BODY, responses=ACCEPTED | documented(400, 403, 413))
async def companyfacts(request: Request, caller: Authenticated,
                       q: Annotated[CompanyfactsQuery, Query()], response: Response) -> JobOut:
    """Load an SEC companyfacts file: one fact per concept, unit and period, revisions
    classified, in the key's scope."""
    scope = guard.write_scope(caller.principal)
    check_write(caller.principal, SourceKind.FILING, **user_and_project(scope))
    scratch, file = await save_upload(request, q.filename, "companyfacts.json")

    def run(path: Path, progress: Progress) -> Summary:
        return ingest_companyfacts(caller.store, scope, path, actor=caller.actor,
                                   ticker=q.ticker, recompute=q.recompute, dry_run=q.dry_run,
                                   progress=progress)

    return _started(request, caller, "companyfacts", scratch, file, run, response)


@router.post("/ingest/facts", response_model=JobOut, status_code=202, openapi_extra=BODY,
             responses=ACCEPTED | documented(400, 403, 413))
async def table(request: Request, caller: Authenticated, q: Annotated[TableQuery, Query()],
                response: Response) -> JobOut:
    """Load observations (KPIs from earnings releases, ...) from a CSV or JSON-lines table.
    Each row names its source kind: a kind the key may not write fails the job (403) before
    anything is written."""
    scope = guard.write_scope(caller.principal)
    scratch, file = await save_upload(request, None, f"facts.{q.format}")

    def run(path: Path, progress: Progress) -> Summary:
        for kind in sorted({s.kind for s in parse_table(path).sources.values()}):
            check_write(caller.principal, kind, **user_and_project(scope))
        return ingest_table(caller.store, scope, path, caller.actor, recompute=q.recompute,
                            dry_run=q.dry_run, progress=progress)

    return _started(request, caller, "facts", scratch, file, run, response)


@router.get("/jobs/{job_id}", response_model=JobOut, responses=documented(404))
def job(request: Request, caller: Authenticated,
        job_id: Annotated[str, PathParam(min_length=1, max_length=64)]) -> JobOut:
    """A job's state and progress; its summary or its problem once it ends."""
    return JobOut.of(service(request).jobs.get(caller.principal, job_id))
