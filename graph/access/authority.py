"""Authority bound to the principal: which source kinds a key may write, and which scopes it
may read (the table in ``vintage.graph.access.principal``).

The caller states a source kind; the key decides whether it may. So an agent cannot write
``user_message`` (the highest authority a memory has) however it labels its write, and a key
bound to user 42 reaches user 42's memories only. A key bound to a user or project has that
binding added to every request's scope, and a request naming another user or project is
refused; a key bound to neither names its scope per request, as the command line does, and only
an admin key reads the whole tenant.
"""

from __future__ import annotations

from vintage.graph.access.principal import Forbidden, OutOfReach, Principal, Role
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.kinds import SourceKind
from vintage.graph.core.model import Scope

AGENT_KINDS = frozenset({SourceKind.AGENT_OUTPUT, SourceKind.MODEL_INFERENCE,
                         SourceKind.TOOL_RESULT})
NAMES_ITS_TOOL = frozenset({SourceKind.TOOL_RESULT})


def within(principal: Principal, user: str | None, project: str | None) -> tuple[
        str | None, str | None]:
    """The user and project a request of ``principal`` runs in: its binding where it has one
    (a request naming another is ``Forbidden``), the request's own otherwise."""
    for field, bound, asked in (("user", principal.user, user),
                                ("project", principal.project, project)):
        if bound is not None and asked is not None and asked != bound:
            raise Forbidden(f"this key is bound to {field} {bound}: it cannot reach "
                            f"{field} {asked[:40]}")
    return principal.user or user, principal.project or project


def check_write(principal: Principal, source_kind: SourceKind | str, *,
                tool: str | None = None, for_user: str | None = None,
                project: str | None = None) -> None:
    """Refuse (``Forbidden``) a write from ``source_kind`` that ``principal`` may not make.
    ``for_user`` is the user the write is for (the memory's user scope), ``project`` its
    project, ``tool`` the tool whose result a ``tool_result`` is."""
    try:
        kind = SourceKind(source_kind)
    except ValueError:
        raise InvalidArgument(f"source kind: one of {', '.join(SourceKind)}") from None
    if not principal.can_write:
        raise Forbidden("a reader key writes nothing")
    user, _ = within(principal, for_user, project)
    if principal.role is Role.AGENT and kind not in AGENT_KINDS:
        raise Forbidden(f"an agent key writes {', '.join(sorted(AGENT_KINDS))}, "
                        f"not {kind.value}")
    if principal.role is Role.AGENT and kind in NAMES_ITS_TOOL and not (tool and tool.strip()):
        raise Forbidden("an agent key's tool_result names its tool")
    if kind is SourceKind.USER_MESSAGE and user is None:
        raise Forbidden("a user_message is written by that user's key, or by a key acting "
                        "for the user (name the user)")


def check_exit(principal: Principal, verb: str) -> None:
    """Refuse (``Forbidden``) an exit ``verb`` (forget, rollback, invalidate, retract, demote)
    to a key that may not make one: only a writer or an admin key ends, undoes or lowers what a
    scope holds. The binding is the caller's to apply (``within``), as for any write."""
    if not principal.can_exit:
        role = principal.role.value
        article = "an" if role[0] in "aeiou" else "a"
        raise Forbidden(f"{verb} needs a writer or admin key, not {article} {role} key")


def check_read(principal: Principal, scope: Scope, all_scopes: bool = False) -> Scope:
    """The scope a read of ``principal`` runs in: ``scope`` with the key's binding added.
    Another tenant is ``OutOfReach`` (answer as not found); a tenant-wide read without an admin
    key, or a scope naming another user or project than the key's, is ``Forbidden``."""
    if scope.tenant != principal.tenant:
        raise OutOfReach("not found")
    if all_scopes:
        if not principal.can_read_tenant_wide:
            raise Forbidden("a tenant-wide read (all scopes) needs an admin key")
        return scope
    user, project = within(principal, scope.keys.get("user"), scope.keys.get("project"))
    keys = dict(scope.keys)
    keys.update({k: v for k, v in (("user", user), ("project", project)) if v})
    return Scope(tenant=scope.tenant, keys=keys)
