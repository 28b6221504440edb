"""Errors as RFC 9457 problem details (``application/problem+json``), one stable ``type`` URI
per kind of error, so that a client branches on ``type`` and never parses ``detail``.

The engine's refusals (``vintage.graph.core.errors.UserError`` and its kinds) map by class, most
specific first (``PROBLEMS``); a store that does not answer is 503 with ``Retry-After``; anything
else is an engine fault: 500 with a problem body naming no exception, no message and no traceback
(the traceback goes to the server's log, with the ``instance`` id the client saw).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vintage.graph.core.errors import UserError
from vintage.http.kinds import (
    BASE,
    CONFLICT,
    INTERNAL,
    INVALID,
    NOT_FOUND,
    PRECONDITION,
    PROBLEMS,
    TOO_LARGE,
    UNAUTHORIZED,
    UNAVAILABLE,
    VALIDATION,
    Kind,
    detail_of,
    kind_of,
)

PROBLEM_JSON = "application/problem+json"
RETRY_AFTER_SECONDS = 5  # a store that does not answer: long enough for a restart to begin
_log = logging.getLogger("vintage.http")


class Problem(BaseModel):
    """RFC 9457 problem details; extension members (``errors``, ``decision``, ...) may follow."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [{
        "type": BASE + "not-found", "title": "No such resource", "status": 404,
        "detail": "unknown fact: f-3b1c", "instance": "urn:uuid:1b4e28ba-2fa1-11d2-883f"}]})

    type: str = Field(description="A stable URI naming the kind of error.")
    title: str
    status: int
    detail: str | None = None
    instance: str | None = Field(None, description="This occurrence (quoted in the log).")


def problem(kind: Kind, detail: str | None = None, *, headers: Mapping[str, str] | None = None,
            instance: str | None = None, **extra: Any) -> JSONResponse:
    body = {"type": kind.type, "title": kind.title, "status": kind.status,
            "instance": instance or f"urn:uuid:{uuid.uuid4()}",
            **({"detail": detail} if detail else {}), **extra}
    out = dict(headers or {})
    if kind is UNAVAILABLE:
        out["Retry-After"] = str(RETRY_AFTER_SECONDS)
    if kind is UNAUTHORIZED:
        out["WWW-Authenticate"] = 'Bearer realm="vintage"'
    return JSONResponse(body, status_code=kind.status, headers=out, media_type=PROBLEM_JSON)


def field_errors(errors: Sequence[Any]) -> list[dict[str, str]]:
    """Where each field is wrong and why, never the input value (it may be content)."""
    return [{"loc": ".".join(str(p) for p in e.get("loc", ())),
             "msg": str(e.get("msg", "")).removeprefix("Value error, ")} for e in errors]


def _engine_error(request: Request, exc: Exception) -> JSONResponse:
    kind = kind_of(exc)
    if kind is CONFLICT and ("if-match" in request.headers
                             or "if-none-match" in request.headers):
        kind = PRECONDITION
    if kind is INTERNAL:
        return _fault(exc)
    return problem(kind, detail_of(exc))


def _invalid_request(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError | ValidationError)
    errors = field_errors(exc.errors())
    detail = "; ".join(f"{e['loc'] or 'body'}: {e['msg']}" for e in errors)
    return problem(VALIDATION, detail, errors=errors)


def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    # 400 is the framework's "There was an error parsing the body" (a body that is not UTF-8
    # JSON): the caller's input, so the same stable type as any refused argument.
    known = {400: INVALID, 404: NOT_FOUND, 413: TOO_LARGE}.get(exc.status_code)
    if known is not None:
        return problem(known, str(exc.detail), headers=exc.headers)
    # No semantics of our own (405, ...): RFC 9457's "about:blank", titled by the status.
    return problem(Kind(exc.status_code, "", str(exc.detail)), None, headers=exc.headers,
                   type="about:blank")


def _fault(exc: BaseException) -> JSONResponse:
    instance = f"urn:uuid:{uuid.uuid4()}"
    _log.error("internal error (instance %s)", instance, exc_info=exc)
    return problem(INTERNAL, "an internal error; the server's log has the details",
                   instance=instance)


class InternalErrors:
    """The outermost net: an exception no handler took answers 500 as a problem (if nothing
    was sent yet) instead of Starlette's plain-text page, and is logged, not re-raised."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as exc:
            if started:
                raise
            await _fault(exc)(scope, receive, send)


def install(app: FastAPI) -> None:
    """Answer every error of ``app`` as a problem."""
    app.add_exception_handler(UserError, _engine_error)
    app.add_exception_handler(RequestValidationError, _invalid_request)
    app.add_exception_handler(ValidationError, _invalid_request)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_middleware(InternalErrors)


# Documented on every operation (FastAPI ``responses=``): what a client may get besides 2xx.
def documented(*statuses: int) -> dict[int | str, dict[str, Any]]:
    kinds = {k.status: k for _, k in PROBLEMS} | {422: VALIDATION, 412: PRECONDITION}
    said: dict[int | str, dict[str, Any]] = {
        s: {"model": Problem, "content": {PROBLEM_JSON: {}},
            "description": kinds[s].title if s in kinds else "A problem"}
        for s in (*statuses, 401, 422, 500, 503, 507)}
    # An oversized request head is refused before routing, in one line of text (limits.py).
    for status, title in ((414, "The path and query string are too long"),
                          (431, "The request's headers are too large")):
        said[status] = {"description": title,
                        "content": {"text/plain": {"schema": {"type": "string"}}}}
    return said
