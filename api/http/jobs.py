"""Background ingest jobs: an uploaded file is loaded by a worker thread while the client polls
``/v1/jobs/{id}`` for its progress and its summary.

Each change of a job's state is also recorded in the store, as an ``ingest-job`` event of its
tenant (ids, counts and the summary or problem; never the file), so that a restarted server still
answers for a job it accepted: how it ended, or, for one that was queued or running when the
server stopped, that it was interrupted. An interrupted file landed whole or not at all (files are
written in one transaction, docs/cli.md), so the client uploads it again and nothing is
duplicated. A job is seen by the key that started it and by the tenant's admin keys only; any
other asks as for a job that does not exist.
"""

from __future__ import annotations

import json
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
from vintage.graph.core.model import Event, new_event_id
from vintage.graph.store.protocol import Clock, Store, StoreUnreachable, UnknownReference
from vintage.http.kinds import INTERNAL, UNAVAILABLE, detail_of, kind_of

WORKERS = 2  # ingests write in large batches: more in parallel only queue on the store
JOB_EVENT = "ingest-job"
INTERRUPTED = {"type": UNAVAILABLE.type, "title": "Interrupted by a server restart",
               "status": UNAVAILABLE.status,
               "detail": "the server stopped while this job was queued or running; the file "
                         "landed whole or not at all: upload it again (nothing is duplicated)"}
_log = logging.getLogger("vintage.http")
Progress = Callable[[int, int], None]


class JobState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


_STAGE = {JobState.QUEUED: 0, JobState.RUNNING: 1, JobState.SUCCEEDED: 2, JobState.FAILED: 2}


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
    def __init__(self, clock: Clock, store: Callable[[], Store] | None = None,
                 workers: int = WORKERS) -> None:
        self.clock = clock
        self._store = store  # where each state is recorded (None: in this process only)
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
        self._record(job)
        try:
            self._pool.submit(self._run, job, scratch, run)
        except RuntimeError:  # shutting down: the job never ran
            self._end(job, StoreUnreachable("the service is shutting down"))
            raise StoreUnreachable("the service is shutting down") from None
        return job

    def _run(self, job: Job, scratch: Path,
             run: Callable[[Path, Progress], dict[str, Any]]) -> None:
        job.started_at, job.state = self.clock(), JobState.RUNNING
        self._record(job)
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
        self._record(job)

    def _record(self, job: Job) -> None:
        """The job's state as an event of its tenant; a store that does not answer loses the
        record, not the job (it is still answered for by this process)."""
        if self._store is None:
            return
        details: dict[str, Any] = {
            "job": job.id, "key": job.key_id, "kind": job.kind, "file": job.file,
            "state": job.state.value, "done": job.done, "total": job.total,
            "created_at": _stamp(job.created_at), "started_at": _stamp(job.started_at),
            "finished_at": _stamp(job.finished_at),
            "result": None if job.result is None else json.dumps(job.result, default=str),
            "error": None if job.error is None else json.dumps(job.error)}
        event = Event(id=new_event_id(), tenant=job.tenant, at=self.clock(), actor=job.key_id,
                      action=JOB_EVENT, reason=f"ingest job {job.state.value}",
                      details={k: v for k, v in details.items() if v is not None})
        try:
            self._store().write(job.tenant, lambda tx: tx.append_events(event))
        except (StoreUnreachable, UserError) as exc:
            _log.warning("ingest job %s: its state %s was not recorded: %s", job.id,
                         job.state.value, exc)

    def _recorded(self, tenant: str, job_id: str) -> Job | None:
        """The last recorded state of a job this process does not hold (a restart)."""
        if self._store is None:
            return None
        # Its furthest state: events of one instant come back in id order, not written order.
        states = [e.details for e in self._store().events(tenant, actions=[JOB_EVENT])
                  if e.details.get("job") == job_id]
        if not states:
            return None
        last = max(states, key=lambda d: _STAGE[JobState(str(d["state"]))])
        job = Job(id=job_id, tenant=tenant, key_id=str(last["key"]), kind=str(last["kind"]),
                  file=str(last["file"]),
                  created_at=_instant(last.get("created_at")) or self.clock(),
                  state=JobState(str(last["state"])), done=int(str(last.get("done", 0))),
                  total=_number(last.get("total")), started_at=_instant(last.get("started_at")),
                  finished_at=_instant(last.get("finished_at")),
                  result=_document(last.get("result")), error=_document(last.get("error")))
        if job.state in (JobState.QUEUED, JobState.RUNNING):  # no process runs it any more
            job.state, job.error = JobState.FAILED, dict(INTERRUPTED)
        return job

    def get(self, principal: Principal, job_id: str) -> Job:
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            job = self._recorded(principal.tenant, job_id)
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


def _stamp(at: datetime | None) -> str | None:
    return None if at is None else at.isoformat()


def _instant(text: object) -> datetime | None:
    return None if text is None else datetime.fromisoformat(str(text))


def _number(value: object) -> int | None:
    return None if value is None else int(str(value))


def _document(value: object) -> Any:
    return None if value is None else json.loads(str(value))
