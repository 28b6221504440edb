"""The HTTP API under test: the real app (``vintage.http.create_app``) over a real store, driven by
FastAPI's test client, with real API keys (``vintage.graph.access``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient

from tests.factories import PinnedClock
from vintage.graph.access import Principal, create_key
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.sealing.keyfile import FileKeyStore
from vintage.graph.sqlite.store import SqliteStore
from vintage.graph.store.protocol import Store
from vintage.http.app import create_app

PROBLEM_JSON = "application/problem+json"
PROBLEMS = "https://vintage.dev/problems/"
SETUP = "test:setup"


@dataclass(frozen=True)
class Key:
    principal: Principal
    secret: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.secret}"}


@dataclass
class Api:
    client: TestClient
    store: Store
    clock: PinnedClock
    tenant: str
    tenants: set[str] = field(default_factory=set)

    def key(self, role: str, *, tenant: str | None = None, **binding: str) -> Key:
        """A new key of the test's tenant (or ``tenant``), made the way ``vintage keys``
        makes one."""
        owner = tenant or self.tenant
        self.tenants.add(owner)
        principal, secret = create_key(self.store, owner, role, actor=SETUP, **binding)
        return Key(principal, secret)

    def memory(self, **fields: Any) -> dict[str, Any]:
        """A remember request's body: user 42's shipping preference, stated by them now."""
        body: dict[str, Any] = {
            "kind": "preference", "subject": "user:42", "key": "shipping.preference",
            "value": "ship to the office", "source_kind": "user_message", "source_id": "msg-1",
            "observed_at": self.clock.now.isoformat(), "owner": "user:42",
            "retention_reason": "user asked us to remember"}
        return body | fields


def problem_of(response: httpx2.Response, status: int, kind: str) -> dict[str, Any]:
    """The response's problem body, after checking it is one, of ``status`` and ``kind``."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM_JSON
    body: dict[str, Any] = response.json()
    assert body["type"] == PROBLEMS + kind
    assert body["status"] == status
    assert "Traceback" not in response.text
    return body


def opener(backend: str, clock: PinnedClock, tmp_path: Path,
           request: pytest.FixtureRequest) -> Any:
    keys = FileKeyStore(tmp_path / "keys")
    if backend == "embedded":
        return lambda: SqliteStore.open(tmp_path / "store", clock, keys)
    target = request.getfixturevalue("neo4j_target")
    return lambda: Neo4jStore.connect(target.uri, clock, auth=target.auth, keys=keys)


@contextmanager
def serving(backend: str, clock: PinnedClock, tmp_path: Path, tenant: str,
            request: pytest.FixtureRequest) -> Iterator[Api]:
    """The app over a fresh store of ``backend``, started (its lifespan ran) and stopped."""
    app = create_app(opener(backend, clock, tmp_path, request), clock=clock)
    with TestClient(app) as client:
        api = Api(client, app.state.service.store(), clock, tenant, {tenant})
        try:
            yield api
        finally:
            if isinstance(api.store, Neo4jStore):
                for name in api.tenants:
                    api.store.purge_tenant(name)


def finished(api: Api, location: str, key: Key, seconds: float = 60) -> dict[str, Any]:
    """Poll a job until it ends; its last state."""
    deadline = time.monotonic() + seconds
    while True:
        job: dict[str, Any] = api.client.get(location, headers=key.headers).json()
        if job["state"] in ("succeeded", "failed") or time.monotonic() > deadline:
            return job
        time.sleep(0.05)
