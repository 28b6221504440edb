"""Background ingest jobs: an uploaded file is loaded by a worker thread while the client polls
``/v1/jobs/{id}`` for its progress and its summary.

Jobs live in the process: a restart forgets them (the file's ingest is idempotent, so the client
uploads it again and nothing is duplicated). A job is seen by the key that started it and by the
tenant's admin keys only; any other asks as for a job that does not exist.
"""

from __future__ import annotations

import logging
import shutil
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from vintage.graph.access import Principal
from vintage.graph.core.errors import UserError
from vintage.graph.store.protocol import Clock, StoreUnreachable, UnknownReference
from vintage.http.problems import INTERNAL, detail_of, kind_of

WORKERS = 2  # ingests write in large batches: more in parallel only queue on the store
_log = logging.getLogger("vintage.http")
Progress = Callable[[int, int], None]


class JobState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


@dataclass
class Job:
    id: str
    tenant: str
    key_id: str
    kind: str
    file: str
    created_at: datetime
    state: JobState = JobState.QUEUED
    done: int = 0
    total: int | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None  # type, title, status, detail: a problem's members
    scratch: Path | None = field(default=None, repr=False)  # the upload's folder, until done
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def advance(self, done: int, total: int) -> None:
        with self._lock:
            self.done, self.total = done, total


def job_error(exc: BaseException, file: str, scratch: Path) -> dict[str, Any]:
    """A failed job's problem; the scratch folder's path is the server's, never shown."""
    kind = kind_of(exc)
    if kind is INTERNAL or not isinstance(exc, UserError | StoreUnreachable):
        _log.error("ingest job failed", exc_info=exc)
        return {"type": INTERNAL.type, "title": INTERNAL.title, "status": INTERNAL.status}
    said = {"type": kind.type, "title": kind.title, "status": kind.status}
    detail = detail_of(exc)
    if detail is not None:
        said["detail"] = detail.replace(str(scratch / file), file).replace(str(scratch), "")
    return said


class Jobs:
    def __init__(self, clock: Clock, workers: int = WORKERS) -> None:
        self.clock = clock
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="vintage-job")
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def submit(self, principal: Principal, kind: str, file: str, scratch: Path,
               run: Callable[[Path, Progress], dict[str, Any]]) -> Job:
        """Run ``run(path, progress)`` on ``scratch / file`` in the background; the scratch
        folder is removed when it ends, however it ends."""
        job = Job(id="j" + uuid.uuid4().hex, tenant=principal.tenant,
                  key_id=principal.key_id, kind=kind, file=file, created_at=self.clock(),
                  scratch=scratch)
        with self._lock:
            self._jobs[job.id] = job
        try:
            self._pool.submit(self._run, job, scratch, run)
        except RuntimeError:  # shutting down: the job never ran
            self._end(job, StoreUnreachable("the service is shutting down"))
            raise StoreUnreachable("the service is shutting down") from None
        return job

    def _run(self, job: Job, scratch: Path,
             run: Callable[[Path, Progress], dict[str, Any]]) -> None:
        job.started_at, job.state = self.clock(), JobState.RUNNING
        try:
            job.result = run(scratch / job.file, job.advance)
        except Exception as exc:
            self._end(job, exc)
        else:
            self._end(job)

    def _end(self, job: Job, exc: BaseException | None = None) -> None:
        if exc is None:
            job.state = JobState.SUCCEEDED
        else:
            job.error = job_error(exc, job.file, job.scratch or Path("-"))
            job.state = JobState.FAILED
        job.finished_at = self.clock()
        if job.scratch is not None:
            shutil.rmtree(job.scratch, ignore_errors=True)
            job.scratch = None

    def get(self, principal: Principal, job_id: str) -> Job:
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None or job.tenant != principal.tenant or not (
                job.key_id == principal.key_id or principal.can_read_tenant_wide):
            raise UnknownReference(f"no job {job_id[:40]}")
        return job

    def close(self) -> None:
        """Wait for the running jobs; the queued ones never run (and say so)."""
        self._pool.shutdown(wait=True, cancel_futures=True)
        with self._lock:
            queued = [j for j in self._jobs.values() if j.state is JobState.QUEUED]
        for job in queued:
            self._end(job, StoreUnreachable("the service stopped before this job ran"))
