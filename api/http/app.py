"""The HTTP API: ``create_app(open_store)`` builds the FastAPI app; ``vintage serve`` runs it
under uvicorn (``vintage.cli.serve``).

Nothing is opened at import or when the app is built: the store comes from the ``open_store``
given, called once at startup (lifespan), and is closed at shutdown after the running ingest
jobs end. ``/docs`` (Swagger UI) and ``/redoc`` load only files the service serves itself, as
does the explorer at ``/ui`` (``vintage.ui``).
One store per app; every request authenticates with an API key
(``vintage.http.auth``) and runs as its principal. Errors are RFC 9457 problems
(``vintage.http.problems``); the OpenAPI 3.1 document is ``/openapi.json``.

Routers by area: ``routes_facts`` (facts, lineage, metric questions), ``routes_memory`` and
``routes_memory_control`` (the memory verbs), ``routes_ingest`` (uploads and jobs),
``routes_keys`` (an admin's keys), ``routes_retrieval`` (search, context packs, their trace),
``routes_tools`` (registered tools), ``routes_settings`` (the tenant's embedder),
``routes_explore`` (what the browser explorer reads: versions, as-of, cutoffs, eval, health).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi_offline import FastAPIOffline
from starlette.concurrency import run_in_threadpool

from vintage.graph.retrieval.embedder import Embedder
from vintage.graph.store.protocol import Clock, Store
from vintage.http import (
    problems,
    routes_explore,
    routes_facts,
    routes_ingest,
    routes_keys,
    routes_memory,
    routes_memory_control,
    routes_retrieval,
    routes_settings,
    routes_tools,
)
from vintage.http.auth import service
from vintage.http.limits import HeadLimits
from vintage.http.models import Health, Ready
from vintage.http.service import Service
from vintage.ui import mount as mount_ui

# Each area's router.
ROUTERS: tuple[APIRouter, ...] = (
    routes_facts.router, routes_memory.router, routes_memory_control.router,
    routes_ingest.router, routes_keys.router, routes_retrieval.router,
    routes_tools.router, routes_settings.router, routes_explore.router,
)
TAGS = [
    {"name": "health", "description": "Liveness and readiness (no key needed)."},
    {"name": "facts", "description": "As-of reads, history, lineage, impact, retraction, "
                                     "metric questions."},
    {"name": "memory", "description": "Agent memory: every verb, through the gates."},
    {"name": "ingest", "description": "Uploads loaded by background jobs."},
    {"name": "keys", "description": "The tenant's API keys (admin keys only)."},
    {"name": "tools", "description": "The tools whose results carry authority (admin keys "
                                     "only)."},
    {"name": "settings", "description": "The tenant's embedder: any key reads it, an admin "
                                        "key chooses it."},
    {"name": "retrieval", "description": "Search inside the legal set, context packs and "
                                         "their traces."},
    {"name": "eval", "description": "The recorded evaluation report and a scope's memory "
                                    "health."},
]


def _version() -> str:
    try:
        return version("vintage")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "0"


def create_app(open_store: Callable[[], Store], *, clock: Clock | None = None,
               embedder: Embedder | None = None, ui: Path | None = None) -> FastAPI:
    """The app over the store ``open_store`` opens (at startup, not now); ``clock`` stamps its
    jobs (default: the system's); ``embedder`` ranks its searches (default: the one the store
    records for the request's tenant, ``vintage config embedder``); ``ui`` is the folder of
    the explorer's built pages served at ``/ui`` (default: the package's, ``vintage.ui``)."""
    held = Service(open_store, clock, embedder)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await run_in_threadpool(held.start)
        try:
            yield
        finally:
            await run_in_threadpool(held.stop)

    # FastAPIOffline: /docs and /redoc load Swagger UI and ReDoc from files the package ships
    # (served under /static-offline-docs), not from a CDN: they work offline and on a
    # network that blocks third-party scripts.
    app = FastAPIOffline(
        title="Vintage", version=_version(), lifespan=lifespan, openapi_tags=TAGS,
        summary="Bitemporal facts and agent memory: what was known, when, and why.",
        description="Every request but the health checks presents an API key "
                    "(`Authorization: Bearer vk_…`); its tenant, scope and authority are the "
                    "key's. Errors are RFC 9457 problems, `type` naming each kind.",
    )
    app.state.service = held
    app.add_middleware(HeadLimits)  # 414 / 431 for an oversized request head
    problems.install(app)
    app.add_api_route("/healthz", healthz, methods=["GET"], response_model=Health,
                      tags=["health"])
    app.add_api_route("/readyz", readyz, methods=["GET"], response_model=Ready, tags=["health"],
                      responses=problems.documented())
    for router in ROUTERS:
        app.include_router(router)
    mount_ui(app, ui)
    return app


def healthz() -> Health:
    """The process answers (it says nothing of the store)."""
    return Health()


def readyz(request: Request) -> Ready:
    """The store answers and its schema is applied: 503 with ``Retry-After`` otherwise."""
    service(request).probe()
    return Ready()
