"""Request bodies whose numbers are read exactly as written.

FastAPI reads a JSON body with ``json.loads``, which turns ``1e-400`` into ``0.0`` and ``1e400``
into infinity before any model sees it: the memory would hold a number nobody sent. Every route
reads its body through ``StrictRequest`` instead (``vintage.graph.core.literals``): such a
literal is a 400 problem naming the bound, as the command line's ``--typed`` refuses it.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import HTTPException, Request, Response
from fastapi.routing import APIRoute

from vintage.graph.core import literals


class StrictRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            try:
                self._json = literals.loads(await self.body())
            except literals.Refused as exc:
                # FastAPI passes an HTTPException through its body parsing unchanged.
                raise HTTPException(400, str(exc)) from None
        return self._json


class StrictRoute(APIRoute):
    """An ``APIRoute`` whose handler is given a ``StrictRequest``."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handler(StrictRequest(request.scope, request.receive))

        return strict
