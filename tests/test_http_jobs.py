"""Ingest jobs outlive the server that accepted them: a restarted server answers how each ended,
and one that was queued or running when the server stopped is reported as interrupted."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.factories import PinnedClock
from tests.http_api import Api, finished, opener
from tests.test_http_api import KPIS
from vintage.http.app import create_app
from vintage.http.jobs import Job, Jobs, JobState


def restarted(api: Api, backend: str, clock: PinnedClock, tmp_path: Path,
              request: pytest.FixtureRequest) -> TestClient:
    """A second app over the same store: what a server restart brings up."""
    return TestClient(create_app(opener(backend, clock, tmp_path, request), clock=clock))


@pytest.mark.parametrize("backend", ["embedded", pytest.param("neo4j",
                                                              marks=pytest.mark.neo4j)])
def test_a_restarted_server_tells_how_an_accepted_job_ended(
        backend: str, clock: PinnedClock, tmp_path: Path, tenant: str,
        request: pytest.FixtureRequest) -> None:
    from tests.http_api import serving

    with serving(backend, clock, tmp_path, tenant, request) as api:
        admin = api.key("admin")
        sent = api.client.post("/v1/ingest/facts", content=KPIS.encode(), headers=admin.headers)
        done = finished(api, sent.headers["location"], admin)
        assert done["state"] == "succeeded"
        # A job the first server had running when it stopped (recorded as the server does).
        Jobs(clock, lambda: api.store)._record(Job(
            id="jcut", tenant=tenant, key_id=admin.principal.key_id, kind="facts", file="kpis.csv",
            created_at=clock.now, state=JobState.RUNNING, done=2, total=6))
        stranger = api.key("admin", tenant=f"{tenant}-other")
        with restarted(api, backend, clock, tmp_path, request) as again:
            told = again.get(sent.headers["location"], headers=admin.headers).json()
            assert {k: told[k] for k in ("state", "done", "total", "result")} == \
                {k: done[k] for k in ("state", "done", "total", "result")}
            cut = again.get("/v1/jobs/jcut", headers=admin.headers)
            assert cut.status_code == 200
            assert cut.json()["state"] == "failed"
            assert "upload it again" in cut.json()["error"]["detail"]
            # Another tenant's key learns nothing of it.
            assert again.get("/v1/jobs/jcut", headers=stranger.headers).status_code == 404
