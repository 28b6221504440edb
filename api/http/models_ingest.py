"""Request and response models of uploads and their background jobs."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from vintage.http.jobs import Job, JobState
from vintage.http.models import Out
from vintage.http.problems import Problem

FileName = Annotated[str | None, Field(
    None, pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$",
    description="The file's name (a companyfacts `CIK##########_TICKER.json` names its "
                "ticker; `.gz`: gzip).")]


class Loading(BaseModel):
    model_config = ConfigDict(extra="forbid")

    recompute: bool = Field(False, description="Recompute derived facts corrections reach.")
    dry_run: bool = Field(False, description="Report what the file would change; write "
                                             "nothing.")


class CompanyfactsQuery(Loading):
    """SEC EDGAR XBRL companyfacts, the request body being the file (.json or .json.gz)."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "filename": "CIK0001652044_GOOGL.json.gz"}]})

    ticker: str | None = Field(None, max_length=16, examples=["GOOGL"])
    filename: FileName = None


class TableQuery(Loading):
    """Observations from a CSV or JSON-lines table, the request body being the file."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"format": "csv"}]})

    format: Literal["csv", "jsonl"] = "csv"


class JobOut(Out):
    """A background job: its state, its progress (facts written of facts in the file) and,
    once it ends, its summary or its problem."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "id": "j5d2c0b8e", "kind": "companyfacts", "file": "CIK0001652044_GOOGL.json.gz",
        "state": "running", "done": 5000, "total": 20311,
        "created_at": "2026-06-01T12:00:00Z", "started_at": "2026-06-01T12:00:01Z",
        "finished_at": None, "result": None, "error": None}]})

    id: str
    kind: str
    file: str
    state: JobState
    done: int
    total: int | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    result: dict[str, Any] | None = Field(None, description="The ingest's summary.")
    error: Problem | None = None

    @classmethod
    def of(cls, job: Job) -> JobOut:
        return cls(id=job.id, kind=job.kind, file=job.file, state=job.state, done=job.done,
                   total=job.total, created_at=job.created_at, started_at=job.started_at,
                   finished_at=job.finished_at, result=job.result,
                   error=Problem(**job.error) if job.error else None)
