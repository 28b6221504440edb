"""The HTTP API against its own OpenAPI document, fuzzed by Schemathesis on a real Neo4j: for
every operation, a fixed number of generated requests (derandomized, so a run is reproducible)
sent in process with a valid admin key, each answered without a server error (no 5xx), with a
status the operation documents, in the media type and headers it documents, and with a body
that conforms to the schema of that status.

The store holds a little of everything first (a memory, a loaded table), so that reads answer
with items to check, not only empty pages.
"""

from __future__ import annotations

import copy
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import Case, GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.python import asgi
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.factories import PinnedClock
from tests.neo4j_server import Neo4jTarget
from vintage.graph.access import create_key
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.sealing.keyfile import FileKeyStore
from vintage.graph.store.protocol import Store
from vintage.http.app import create_app

EXAMPLES = 20  # per operation and generation mode: bounded, the whole run well under 90 s
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_headers_conformance, response_schema_conformance]
BASE = "http://testserver"  # in process: no socket, any host name
KPIS = b"""\
subject,predicate,value,unit,period_start,period_end,source_id,available_at,form,source_kind
PAY,us-gaap:Revenues,100,USD,2024-01-01,2024-03-31,er-q1,2024-04-25,8-K,earnings_release
PAY,us-gaap:Revenues,105,USD,2024-01-01,2024-03-31,er-q1-fix,2024-05-10,8-K,earnings_release
"""


def _unopened() -> Store:
    raise AssertionError("only the document is read here")


# Every operation of the app's own document (building the app opens nothing), with valid
# input, and with invalid input where it takes any (parameters or a body).
CASES = [(method.upper(), path, mode)
         for path, ops in create_app(_unopened).openapi()["paths"].items()
         for method, op in ops.items()
         for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
         if mode is GenerationMode.POSITIVE or op.get("parameters") or op.get("requestBody")]


@dataclass(frozen=True)
class Target:
    schema: schemathesis.BaseSchema
    session: asgi.ASGIClient
    headers: dict[str, str]


def seeded(client: TestClient, store: Store, tenant: str, headers: dict[str, str],
           now: str) -> None:
    """A memory of user 42 (by user 42's own key) and a loaded table (by the admin's), through
    the API itself."""
    _, own = create_key(store, tenant, "writer", user="42", actor="test:setup")
    memory = {"kind": "preference", "subject": "user:42", "key": "shipping.preference",
              "value": "ship to the office", "source_kind": "user_message",
              "source_id": "msg-1", "observed_at": now, "owner": "user:42",
              "retention_reason": "user asked us to remember"}
    made = client.post("/v1/memories", json=memory, headers={"Authorization": f"Bearer {own}"})
    assert made.status_code == 201, made.text
    sent = client.post("/v1/ingest/facts", content=KPIS, headers=headers)
    assert sent.status_code == 202, sent.text
    deadline = time.monotonic() + 60
    while (state := client.get(sent.headers["location"], headers=headers).json()["state"]) not in (
            "succeeded", "failed") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert state == "succeeded", state


@pytest.fixture(scope="module")
def target(neo4j_target: Neo4jTarget, neo4j_driver_store: Neo4jStore,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    clock = PinnedClock()
    keys = FileKeyStore(Path(tmp_path_factory.mktemp("schemathesis")) / "keys")
    app = create_app(lambda: Neo4jStore.connect(neo4j_target.uri, clock,
                                                auth=neo4j_target.auth, keys=keys),
                     clock=clock)
    tenant = "t-" + uuid.uuid4().hex[:12]
    # The test client runs the app's lifespan once for the module; Schemathesis reaches the same
    # app in process through a session that leaves the lifespan alone (its pytest plugin ends
    # the lifespans it starts after each test, and a stopped service stays stopped).
    try:
        with TestClient(app) as client:
            store = app.state.service.store()
            _, secret = create_key(store, tenant, "admin", actor="test:setup")
            headers = {"Authorization": f"Bearer {secret}"}
            seeded(client, store, tenant, headers, clock.now.isoformat())
            schema = schemathesis.openapi.from_dict(client.get("/openapi.json").json())
            # The ASGI app as Schemathesis types one (FastAPI's scope is a MutableMapping).
            yield Target(schema, asgi.ASGIClient(cast(asgi.ASGIApp, app)), headers)
    finally:  # after the lifespan: its running jobs have ended
        neo4j_driver_store.purge_tenant(tenant)


@pytest.mark.parametrize(("method", "path", "mode"), CASES,
                         ids=[f"{m} {p} {mode.value}" for m, p, mode in CASES])
def test_every_operation_answers_as_its_schema_says(
        target: Target, method: str, path: str, mode: GenerationMode) -> None:
    statuses = fuzzed(target, target.schema, method, path, mode)
    # The key was honoured: valid requests went past authentication, not only to its 401 (the
    # invalid ones include requests whose Authorization header Schemathesis broke or left out).
    assert statuses, "no request was sent"
    if mode is GenerationMode.POSITIVE:
        assert 401 not in statuses, statuses
    else:
        assert set(statuses) - {401}, statuses


def test_an_answer_the_document_does_not_promise_is_caught(target: Target) -> None:
    """The control: the same run on a document that no longer lists 400 (the refusal of a bad
    argument) for ``GET /v1/facts`` fails."""
    document = copy.deepcopy(target.schema.raw_schema)
    del document["paths"]["/v1/facts"]["get"]["responses"]["400"]
    broken = schemathesis.openapi.from_dict(document)
    with pytest.raises(FailureGroup, match="Undocumented status code"):
        fuzzed(target, broken, "GET", "/v1/facts", GenerationMode.POSITIVE)


def fuzzed(target: Target, schema: schemathesis.BaseSchema, method: str, path: str,
           mode: GenerationMode) -> list[int]:
    """The statuses of ``EXAMPLES`` generated requests to one operation, each validated."""
    operation = schema[path][method]
    strategy: st.SearchStrategy[Case[Any]] = operation.as_strategy(generation_mode=mode)

    @settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def answers(case: Case[Any]) -> None:
        response = case.call_and_validate(base_url=BASE, session=target.session,
                                          headers=target.headers, checks=CHECKS)
        statuses.append(response.status_code)

    statuses: list[int] = []
    answers()
    return statuses

