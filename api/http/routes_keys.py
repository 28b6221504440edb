"""The tenant's API keys, managed by its admin keys: create (the key is in the answer, once),
list (never a key or its verifier) and revoke (refused at once by this process; by other
processes of the service within their cache's TTL, ``vintage.graph.access.cache``)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Path
from pydantic import BaseModel, ConfigDict, Field

from vintage.graph.access import Forbidden, KeyInfo, Role, create_key, list_keys, revoke
from vintage.graph.store.protocol import UnknownReference
from vintage.http.auth import Authenticated, Caller
from vintage.http.models import Out, Reason
from vintage.http.problems import documented
from vintage.http.strict import StrictRoute

router = APIRouter(prefix="/v1", tags=["keys"], route_class=StrictRoute)
KEY_EXAMPLE: dict[str, Any] = {
    "key_id": "k3f9a0c1d2e4b5a6", "role": "agent", "user": "42", "project": None,
    "name": "support-bot", "created_at": "2026-06-01T12:00:00Z",
    "created_by": "key:k0a1b2c3d4e5f6a7(ops)", "revoked_at": None, "revoked_by": None,
    "active": True}
ONCE = "This key is shown only once: store it now; it cannot be shown again."


class KeyCreate(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"role": "agent", "user": "42", "name": "support-bot"}]})

    role: Role
    user: str | None = Field(None, max_length=128)
    project: str | None = Field(None, max_length=128)
    name: str | None = Field(None, max_length=64)


class KeyOut(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [KEY_EXAMPLE]})

    key_id: str
    role: Role
    user: str | None
    project: str | None
    name: str | None
    created_at: datetime
    created_by: str
    revoked_at: datetime | None
    revoked_by: str | None
    active: bool

    @classmethod
    def of(cls, k: KeyInfo) -> KeyOut:
        return cls(key_id=k.key_id, role=k.role, user=k.user, project=k.project, name=k.name,
                   created_at=k.created_at, created_by=k.created_by, revoked_at=k.revoked_at,
                   revoked_by=k.revoked_by, active=k.active)


class KeyCreated(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "key": "vk_mfrggzdfmy_k3f9a0c1d2e4b5a6_" + "0" * 64, "key_id": "k3f9a0c1d2e4b5a6",
        "actor": "key:k3f9a0c1d2e4b5a6(support-bot)", "note": ONCE}]})

    key: str
    key_id: str
    actor: str
    note: str = ONCE


class Keys(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [{"items": [KEY_EXAMPLE]}]})

    items: list[KeyOut]


class Revoked(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [{"event": "e-1a2b"}]})

    event: str


def _admin(caller: Caller) -> None:
    if not caller.principal.can_manage_keys:
        raise Forbidden("managing keys needs an admin key")


@router.post("/keys", response_model=KeyCreated, status_code=201, responses=documented(400, 403))
def create(caller: Authenticated, body: KeyCreate) -> KeyCreated:
    """Create a key of the tenant; the answer holds it, the only time it exists."""
    _admin(caller)
    principal, key = create_key(caller.store, caller.tenant, body.role, user=body.user,
                                project=body.project, name=body.name, actor=caller.actor)
    return KeyCreated(key=key, key_id=principal.key_id, actor=principal.actor)


@router.get("/keys", response_model=Keys, responses=documented(403))
def listing(caller: Authenticated) -> Keys:
    """Every key of the tenant, revoked ones included."""
    _admin(caller)
    return Keys(items=[KeyOut.of(k) for k in list_keys(caller.store, caller.tenant)])


@router.post("/keys/{key_id}/revocation", response_model=Revoked,
             responses=documented(400, 403, 404))
def revocation(caller: Authenticated,
               key_id: Annotated[str, Path(min_length=1, max_length=64)],
               body: Reason) -> Revoked:
    """Revoke a key from now on."""
    _admin(caller)
    if key_id not in {k.key_id for k in list_keys(caller.store, caller.tenant)}:
        raise UnknownReference(f"no key {key_id}")
    return Revoked(event=revoke(caller.store, caller.tenant, key_id, caller.actor,
                                reason=body.reason))
