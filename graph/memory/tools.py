"""Registered tools, per tenant: which tool results carry a tool's authority.

A ``tool_result`` has the authority of an authoritative source (``vintage.graph.core.kinds``)
only when the tenant registered its tool (``register_tool``; ``vintage tools register NAME``):
the name, optionally the versions, and optionally the principals that may report for it. A
result from a tool nobody registered, from a version not registered, or reported by a principal
the registration does not name, is held as a candidate (never active) with that reason in the
decision and in review, so that an agent key cannot make a business fact active by naming a
tool it made up. The tool is the write's ``tool`` (its ``source_id`` where it names none), the
version its ``tool_version`` (its ``source_version`` where it gives none).

Registration and its withdrawal (``unregister_tool``) are ``Event``s of the same action as
document trust (``trust``), so ``vintage audit`` shows both; a registration holds while its
latest event says so, read at the time of the write. A registration without a version admits
every version; one naming reporters admits only those principals, each named as events name
it (``key:<id>``, ``user:<name>``) or by the key's name.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime

from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.kinds import SourceKind
from vintage.graph.core.limits import required
from vintage.graph.core.model import Event, new_event_id
from vintage.graph.memory.trust import TRUST, decision_instant
from vintage.graph.store.protocol import Store

ANY_VERSION = "*"
_KEY_ACTOR = re.compile(r"^key:([^()]+)(?:\((.*)\))?\Z")
_NAME = re.compile(r"^[^\s\x00-\x1f]{1,128}\Z")


@dataclass(frozen=True)
class Tool:
    name: str
    version: str  # ANY_VERSION: every version
    reporters: tuple[str, ...]  # empty: any principal that may write a tool_result
    event: str  # the registration's event


def _checked(name: str, what: str) -> str:
    name = name.strip()
    if not _NAME.match(name):
        raise InvalidArgument(f"a {what} is 1 to 128 characters without blanks or control "
                              "characters")
    return name


def _event(store: Store, tenant: str, name: str, version: str | None, *, registered: bool,
           reporters: tuple[str, ...], actor: str, reason: str) -> str:
    name = _checked(name, "tool name")
    version = ANY_VERSION if version is None else _checked(version, "tool version")
    reporters = tuple(sorted({_checked(r, "reporter") for r in reporters}))
    required(reason, "a tool registration's reason (it is logged)")
    event = Event(id=new_event_id(), tenant=tenant, at=decision_instant(store, tenant),
                  actor=actor, action=TRUST,
                  reason=reason,
                  details={"decision": "trusted" if registered else "distrusted",
                           "source": name, "source_kind": SourceKind.TOOL_RESULT.value,
                           "version": version, "reporters": json.dumps(list(reporters))})
    store.write(tenant, lambda tx: tx.append_events(event))
    return event.id


def register_tool(store: Store, tenant: str, name: str, *, version: str | None = None,
                  reporters: tuple[str, ...] = (), actor: str, reason: str) -> str:
    """Register ``name`` (at ``version``, or every version) as a tool whose results carry
    authority in ``tenant``, reported by ``reporters`` (or anyone who may); the event's id.
    Registering the same name and version again replaces its reporters."""
    return _event(store, tenant, name, version, registered=True, reporters=reporters,
                  actor=actor, reason=reason)


def unregister_tool(store: Store, tenant: str, name: str, *, version: str | None = None,
                    actor: str, reason: str) -> str:
    """Withdraw a registration (that version's, or the every-version one): later results are
    held as candidates again; what it already made active stays until corrected or retracted.
    A registration that does not hold is refused, and nothing is recorded."""
    held = {(t.name, t.version) for t in registered_tools(store, tenant)}
    key = (name.strip(), ANY_VERSION if version is None else version.strip())
    if key not in held:
        raise InvalidArgument(f"tool {name[:40]} is not registered"
                              + ("" if version is None else f" at version {version[:40]}"))
    return _event(store, tenant, name, version, registered=False, reporters=(), actor=actor,
                  reason=reason)


def registered_tools(store: Store, tenant: str, at: datetime | None = None) -> list[Tool]:
    """The tools registered in ``tenant`` at ``at`` (default: now, the latest decision
    included, even one placed a microsecond ahead of the clock), by name and version."""
    state: dict[tuple[str, str], Tool | None] = {}
    for e in store.events(tenant, actions=[TRUST]):
        if at is not None and e.at > at:
            break  # events come in (at, id) order
        if e.details.get("source_kind") != SourceKind.TOOL_RESULT.value:
            continue
        key = (str(e.details.get("source")), str(e.details.get("version", ANY_VERSION)))
        if e.details.get("decision") == "trusted":
            reporters = tuple(json.loads(str(e.details.get("reporters") or "[]")))
            state[key] = Tool(key[0], key[1], reporters, e.id)
        else:
            state[key] = None
    return sorted((t for t in state.values() if t is not None),
                  key=lambda t: (t.name, t.version))


def tool_version_of(kind: SourceKind | None, tool: str | None, tool_version: str | None,
                    source_version: str | None) -> str | None:
    """A write's source version once its tool version is folded in: a tool result has one
    version, its tool's (``ValueError`` when the two differ, or a tool on another kind)."""
    if (tool is not None or tool_version is not None) and kind is not SourceKind.TOOL_RESULT:
        raise ValueError("a tool and its version are named by a tool_result only")
    if tool_version is None:
        return source_version
    if source_version not in (None, tool_version):
        raise ValueError("a tool result has one version: give the tool version or the "
                         "source version, or the same in both")
    return tool_version


def names_of(actor: str) -> set[str]:
    """The names a registration may give a principal: its actor, and a key's id and name."""
    names = {actor}
    found = _KEY_ACTOR.match(actor)
    if found is not None:
        names.add(f"key:{found.group(1)}")
        if found.group(2):
            names.add(found.group(2))
    return names


def unregistered_tool(store: Store, tenant: str, kind: SourceKind | None, tool: str | None,
                      version: str | None, actor: str) -> str | None:
    """Why a tool result is held as a candidate (None: its tool is registered for it)."""
    if kind is not SourceKind.TOOL_RESULT:
        return None
    if tool is None or not tool.strip():
        return "a tool result names its tool (--tool), and none was named"
    tools = [t for t in registered_tools(store, tenant) if t.name == tool]
    if not tools:
        return (f"tool {tool[:60]} is not registered in this tenant "
                f"(vintage tools register {tool[:60]})")
    fitting = [t for t in tools if t.version in (ANY_VERSION, version)]
    if not fitting:
        return (f"version {(version or 'none')[:40]} of tool {tool[:60]} is not registered "
                "in this tenant")
    if not any(not t.reporters or names_of(actor) & set(t.reporters) for t in fitting):
        return f"{actor[:80]} is not registered to report for tool {tool[:60]}"
    return None
