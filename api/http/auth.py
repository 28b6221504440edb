"""Who calls: ``Authorization: Bearer <key>``, verified against the app's store
(``vintage.graph.access.verify``: scrypt once per key, then its cache). The tenant, the binding and
the actor of every request come from the key's principal, never from the body or a header the
caller sets.

Handlers take a ``Caller`` (the store and the principal). Every failure to present a valid key
answers 401: "missing API key" when the request has no ``Authorization`` header, one other
message whatever else is wrong (another scheme, malformed, unknown, revoked).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from vintage.graph.access import Principal, verify
from vintage.graph.store.protocol import Store
from vintage.http.service import Service

bearer = HTTPBearer(auto_error=False, scheme_name="apiKey", bearerFormat="vk_…",
                    description="An API key of the tenant (`vintage keys create`).")


@dataclass(frozen=True)
class Caller:
    store: Store
    principal: Principal

    @property
    def tenant(self) -> str:
        return self.principal.tenant

    @property
    def actor(self) -> str:
        return self.principal.actor


def service(request: Request) -> Service:
    found: Service = request.app.state.service
    return found


def caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Caller:
    store = service(request).store()
    # No header at all is a missing key; a header of another scheme (Basic) presented
    # something, and reaches verify as an empty key: the same 401 as a wrong one.
    if credentials is not None:
        key: str | None = credentials.credentials
    else:
        key = "" if "authorization" in request.headers else None
    return Caller(store, verify(store, key))


Authenticated = Annotated[Caller, Depends(caller)]
