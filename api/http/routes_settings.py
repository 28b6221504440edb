"""The embedder of the key's tenant (``vintage.graph.retrieval.choice``): any key reads the
choice that holds; an admin key chooses its own tenant's or withdraws it (the store's then
holds again), an audited ``embedder`` event naming the key's principal, the same decision as
``vintage config embedder NAME --tenant T``. The store-wide choice is not the API's: it is
made on the store itself (``vintage config embedder NAME``)."""

from __future__ import annotations

from fastapi import APIRouter

from vintage.graph.access import Forbidden
from vintage.graph.retrieval.choice import recorded, set_embedder
from vintage.http.auth import Authenticated, Caller
from vintage.http.models import Reason
from vintage.http.models_settings import EmbedderChoice, EmbedderOut
from vintage.http.problems import documented
from vintage.http.strict import StrictRoute

router = APIRouter(prefix="/v1", tags=["settings"], route_class=StrictRoute)
ADMIN_ONLY = "choosing the embedder needs an admin key"


def _admin(caller: Caller) -> None:
    if not caller.principal.can_manage_keys:
        raise Forbidden(ADMIN_ONLY)


@router.get("/embedder", response_model=EmbedderOut, responses=documented())
def showing(caller: Authenticated) -> EmbedderOut:
    """The embedder that holds for the key's tenant (any key)."""
    return EmbedderOut.of(recorded(caller.store, caller.tenant))


@router.post("/embedder", response_model=EmbedderOut, responses=documented(400, 403))
def choosing(caller: Authenticated, body: EmbedderChoice) -> EmbedderOut:
    """Choose the tenant's own embedder (an admin key): entries by another model are
    re-embedded by the next search."""
    _admin(caller)
    return EmbedderOut.of(set_embedder(caller.store, body.embedder, tenant=caller.tenant,
                                       actor=caller.actor, reason=body.reason), changed=True)


@router.post("/embedder/withdrawal", response_model=EmbedderOut,
             responses=documented(400, 403))
def withdrawal(caller: Authenticated, body: Reason) -> EmbedderOut:
    """End the tenant's own choice (an admin key): the store's holds for it again."""
    _admin(caller)
    return EmbedderOut.of(set_embedder(caller.store, None, tenant=caller.tenant,
                                       actor=caller.actor, reason=body.reason), changed=True)
