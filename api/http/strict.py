"""Request bodies whose numbers are read exactly as written.

FastAPI reads a JSON body with ``json.loads``, which turns ``1e-400`` into ``0.0`` and ``1e400``
into infinity before any model sees it: the memory would hold a number nobody sent. Every route
reads its body through ``StrictRequest`` instead (``vintage.graph.core.literals``): such a
literal is a 400 problem naming the bound, as the command line's ``--typed`` refuses it.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from types import UnionType
from typing import Any, Union, get_args, get_origin

from fastapi import HTTPException, Request, Response
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from pydantic import BaseModel

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
    """An ``APIRoute`` whose handler is given a ``StrictRequest``, and which refuses a query
    parameter given twice unless it takes a list (Starlette keeps the last of
    ``?user=1&user=2`` for a single value: a silent choice between two scopes)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        lists = _list_parameters(self.dependant)

        async def strict(request: Request) -> Response:
            seen: set[str] = set()
            for name, _ in request.query_params.multi_items():
                if name in seen and name not in lists:
                    raise HTTPException(400, f"query parameter {name[:40]!r} is given twice: "
                                             "it takes one value")
                seen.add(name)
            return await handler(StrictRequest(request.scope, request.receive))

        return strict


def _list_parameters(dependant: Dependant) -> frozenset[str]:
    """The query parameters (by alias) of a route and its dependencies that take a list."""
    found: set[str] = set()
    todo = [dependant]
    while todo:
        current = todo.pop()
        todo.extend(current.dependencies)
        for param in current.query_params:
            annotation = param.field_info.annotation
            model = _model(annotation)
            fields = model.model_fields.items() if model else [(param.alias, param.field_info)]
            found.update(info.alias or name for name, info in fields
                         if _takes_a_list(info.annotation))
    return frozenset(found)


def _model(annotation: Any) -> type[BaseModel] | None:
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) \
        else None


def _takes_a_list(annotation: Any) -> bool:
    if get_origin(annotation) in (list, tuple, set, frozenset):
        return True
    return get_origin(annotation) in (Union, UnionType) and any(
        _takes_a_list(a) for a in get_args(annotation))
