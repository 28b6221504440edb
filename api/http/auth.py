"""Who calls: ``Authorization: Bearer <key>``, verified against the app's store
(``vintage.graph.access.verify``: scrypt once per key, then its cache). The tenant, the binding and
the actor of every request come from the key's principal, never from the body or a header the
caller sets.

Handlers take a ``Caller`` (the store and the principal). Every failure to present a valid key
answers 401 with one message, whatever the reason (missing, malformed, unknown, revoked).
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
    # An absent or non-Bearer header reaches verify as no key: the same 401 as a wrong one.
    return Caller(store, verify(store, credentials.credentials if credentials else None))


Authenticated = Annotated[Caller, Depends(caller)]
