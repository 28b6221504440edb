"""Who a request comes from: a principal, named by the API key it presented.

A principal belongs to one tenant and has one role. A key may be bound to a user and/or a
project: its scope is then that, and no request made with it reaches past it. The role says
what it may do inside its scope (``vintage.graph.access.authority`` holds the rules):

======  ==========================  =====================================================
role    reads                       writes
======  ==========================  =====================================================
reader  its scope                   nothing
writer  its scope                   in its scope; ``user_message`` for its own user or a
                                    user it acts for
agent   its scope                   ``agent_output``, ``model_inference``, ``tool_result``
                                    (naming the tool); never ``user_message``
admin   the tenant, tenant-wide     everything in the tenant; manages keys
        reads included
======  ==========================  =====================================================

Exits (forget, rollback, invalidate, retract and its undoing) and demotion end, undo or lower
what a scope holds: only a writer key (within its binding) or an admin key makes them
(``Principal.can_exit``, ``vintage.graph.access.authority.check_exit``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from vintage.graph.core.errors import InvalidArgument, UserError
from vintage.graph.core.model import Scope

# The characters of a scope value (``vintage.graph.core.model.Scope``): a binding is a scope key.
SCOPE_VALUE = re.compile(r"^[A-Za-z0-9_.:@/-]{1,128}\Z")
# No parentheses and no blanks: the name sits inside ``actor``'s parentheses, unambiguous.
KEY_NAME = re.compile(r"^[A-Za-z0-9_.:@/-]{1,64}\Z")
ACTOR_PREFIX = "key:"


class Unauthorized(UserError):
    """No valid key: missing, malformed, unknown, revoked or wrong. One message for all, so that
    a caller learns nothing about which keys exist."""


class Forbidden(UserError):
    """A valid key asked for what its role or its scope does not allow."""


class OutOfReach(Forbidden):
    """What lies in another tenant: a caller answers exactly as for what does not exist (404),
    so that one tenant cannot learn what another holds."""


class Role(StrEnum):
    READER = "reader"
    WRITER = "writer"
    AGENT = "agent"
    ADMIN = "admin"


@dataclass(frozen=True, slots=True)
class Principal:
    tenant: str
    role: Role
    key_id: str
    name: str | None = None
    user: str | None = None  # the user the key is bound to (None: not bound to one)
    project: str | None = None  # the project the key is bound to

    def __post_init__(self) -> None:
        check_binding(self.role, self.user, self.project, self.name)

    @property
    def actor(self) -> str:
        """How events name this principal: ``key:<key_id>``, then ``(<name>)`` when the key
        has a name (``key:k3f9a0c1d2e4b5a6(support-bot)``)."""
        named = f"({self.name})" if self.name else ""
        return f"{ACTOR_PREFIX}{self.key_id}{named}"

    def binding(self) -> dict[str, str]:
        """The scope keys the key is bound to (empty: none)."""
        return {k: v for k, v in (("user", self.user), ("project", self.project)) if v}

    def scope(self) -> Scope:
        return Scope(tenant=self.tenant, keys=self.binding())

    def reaches(self, scope: Scope) -> bool:
        """Whether a record in ``scope`` lies within this key's reach: its tenant, and every
        key the key is bound to (an admin key reaches the whole tenant)."""
        if scope.tenant != self.tenant:
            return False
        return all(scope.keys.get(k) == v for k, v in self.binding().items())

    @property
    def can_read_tenant_wide(self) -> bool:
        return self.role is Role.ADMIN

    @property
    def can_write(self) -> bool:
        return self.role is not Role.READER

    @property
    def can_exit(self) -> bool:
        """Whether the key may end, undo or lower what its scope holds (forget, rollback,
        invalidate, retract, demote): a writer within its binding, or an admin. An agent
        writes in its scope but never erases or rolls back what a user told it."""
        return self.role in (Role.WRITER, Role.ADMIN)

    @property
    def can_manage_keys(self) -> bool:
        return self.role is Role.ADMIN


def check_binding(role: Role, user: str | None, project: str | None, name: str | None) -> None:
    """Refuse a key that could not be stored or named (``InvalidArgument``)."""
    if not isinstance(role, Role):
        raise InvalidArgument(f"role: one of {', '.join(r.value for r in Role)}")
    for field, value in (("user", user), ("project", project)):
        if value is not None and not SCOPE_VALUE.match(value):
            raise InvalidArgument(f"{field}: letters, digits and _.:@/- only (1 to 128)")
    if name is not None and not KEY_NAME.match(name):
        raise InvalidArgument("name: letters, digits and _.:@/- only (1 to 64)")
    if role is Role.ADMIN and (user or project):
        raise InvalidArgument("an admin key reaches the whole tenant: bind it to no user or "
                              "project")
