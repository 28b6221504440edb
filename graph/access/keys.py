"""API keys, stored as the tenant's events: ``key.create`` (the key's id, role, binding, name
and verifier, never the secret) and ``key.revoke`` (its id). A key holds from its creation until
its revocation; the audit of keys is the audit of events.

``verify`` parses the key (``vintage.graph.access.keystring``), reads the key events of the tenant
it names, and compares the verifier in constant time. Every way a key fails gives one message,
and an unknown id costs one scrypt like a known one, so that neither the answer nor its time
says which keys exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pydantic import ValidationError

from vintage.graph.access import keystring
from vintage.graph.access.cache import VERIFIED, KeyCache
from vintage.graph.access.principal import Principal, Role, Unauthorized, check_binding
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.limits import required
from vintage.graph.core.model import Event, Scope, Value, new_event_id
from vintage.graph.store.protocol import Store

CREATE, REVOKE = "key.create", "key.revoke"
ACTIONS = (CREATE, REVOKE)
REFUSED = "invalid or revoked API key"
# No key at all is told apart from a wrong one (same 401): the caller forgot a header, and
# saying so leaks nothing about any key.
MISSING = "missing API key (send Authorization: Bearer vk_…)"
BINDING = ("user", "project", "name")


@dataclass(frozen=True, slots=True)
class KeyInfo:
    """What a listing shows of a key: never its secret, never its verifier."""

    key_id: str
    role: Role
    user: str | None
    project: str | None
    name: str | None
    created_at: datetime
    created_by: str
    revoked_at: datetime | None = None
    revoked_by: str | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


def create_key(store: Store, tenant: str, role: Role | str, *, user: str | None = None,
               project: str | None = None, name: str | None = None,
               actor: str) -> tuple[Principal, str]:
    """A new key of ``tenant``: its principal, and the key string, which exists only here (show
    it once: the store keeps a verifier it cannot be read back from)."""
    _tenant_checked(tenant)
    try:
        role = Role(role)
    except ValueError:
        raise InvalidArgument(f"role: one of {', '.join(r.value for r in Role)}") from None
    check_binding(role, user, project, name)
    if not actor or not actor.strip():
        raise InvalidArgument("creating a key names its actor (it is logged)")
    taken = {str(e.details.get("key_id")) for e in store.events(tenant, actions=[CREATE])}
    key_id = keystring.new_key_id()
    while key_id in taken:
        key_id = keystring.new_key_id()
    key = keystring.key_string(tenant, key_id)
    details: dict[str, Value] = {"key_id": key_id, "role": role.value}
    details |= {k: v for k, v in zip(BINDING, (user, project, name), strict=True) if v}
    details |= keystring.verifier(key)
    event = Event(id=new_event_id(), tenant=tenant, at=store.now(), actor=actor, action=CREATE,
                  reason=f"API key created ({role.value})", details=details)
    store.write(tenant, lambda tx: tx.append_events(event))
    return Principal(tenant, role, key_id, name=name, user=user, project=project), key


def verify(store: Store, key: str | None, *, cache: KeyCache = VERIFIED) -> Principal:
    """The principal ``key`` names; ``Unauthorized``: ``MISSING`` when no key was presented
    (``None``), ``REFUSED`` (one message) for an empty, malformed, unknown, revoked or wrong
    one."""
    if key is None:
        raise Unauthorized(MISSING)
    if not key:
        raise Unauthorized(REFUSED)
    cached = cache.get(store, key)
    if cached is not None:
        return cached
    parsed = keystring.parse(key)
    if parsed is None:
        keystring.burn(key)
        raise Unauthorized(REFUSED)
    created, revoked = _events_of(store, parsed.tenant, parsed.key_id)
    if created is None:
        keystring.burn(key)
        raise Unauthorized(REFUSED)
    if not keystring.matches(key, created.details) or revoked is not None:
        raise Unauthorized(REFUSED)
    principal = _principal(created)
    cache.put(store, key, principal)
    return principal


def revoke(store: Store, tenant: str, key_id: str, actor: str, *, reason: str = "revoked",
           cache: KeyCache = VERIFIED) -> str:
    """Revoke a key of ``tenant`` from now on; the event's id. This process's cache forgets it
    at once (other processes within their cache's TTL)."""
    _tenant_checked(tenant)
    if not actor or not actor.strip():
        raise InvalidArgument("revoking a key names its actor (it is logged)")
    required(reason, "the reason")
    created, revoked = _events_of(store, tenant, key_id)
    if created is None:
        raise InvalidArgument(f"no key {key_id[:40]!r} in tenant {tenant!r}")
    if revoked is not None:
        raise InvalidArgument(f"key {key_id} is already revoked "
                              f"(at {revoked.at.isoformat()})")
    event = Event(id=new_event_id(), tenant=tenant, at=store.now(), actor=actor, action=REVOKE,
                  reason=reason, details={"key_id": key_id})
    store.write(tenant, lambda tx: tx.append_events(event))
    cache.forget(tenant, key_id)
    return event.id


def list_keys(store: Store, tenant: str) -> list[KeyInfo]:
    """Every key of ``tenant``, revoked ones included, oldest first."""
    _tenant_checked(tenant)
    revocations = {str(e.details.get("key_id")): e
                   for e in store.events(tenant, actions=[REVOKE])}
    found = []
    for e in store.events(tenant, actions=[CREATE]):
        p = _principal(e)
        gone = revocations.get(p.key_id)
        found.append(KeyInfo(p.key_id, p.role, p.user, p.project, p.name, e.at, e.actor,
                             gone.at if gone else None, gone.actor if gone else None))
    return found


def _events_of(store: Store, tenant: str, key_id: str) -> tuple[Event | None, Event | None]:
    """The key's creation and first revocation (None: none)."""
    created = revoked = None
    for e in store.events(tenant, actions=list(ACTIONS)):
        if e.details.get("key_id") != key_id:
            continue
        if e.action == CREATE and created is None:
            created = e
        elif e.action == REVOKE and revoked is None:
            revoked = e
    return created, revoked


def _principal(created: Event) -> Principal:
    d = created.details
    optional = {k: str(d[k]) for k in BINDING if k in d}
    return Principal(created.tenant, Role(str(d["role"])), str(d["key_id"]), **optional)


def _tenant_checked(tenant: str) -> None:
    try:
        Scope(tenant=tenant)
    except ValidationError:
        raise InvalidArgument("tenant: letters, digits and _.:@/- only (1 to 128)") from None
