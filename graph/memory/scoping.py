"""Memory scope: every memory read, context and write names its scope (a user, a project or a
thread); a tenant-wide read is an explicit choice that the audit records.

The as-of predicate reads a scope as "the fact carries every key the read names"
(docs/contract.md, "The as-of predicate"), so a read naming no key would see every user's
memories in the tenant. Memory therefore fails closed: a read or context without a scope key
raises ``ScopeRequired`` unless the caller passes ``all_scopes`` (``--all-scopes``), and then an
``Event`` (``action = "read"``) names the actor and what was read (subject and key, never a
value).

A memory about ``user:N`` lies in user N's scope: a write whose subject is ``user:N`` without
``user=N`` (none, or another user) is refused by the gate, so that forgetting user N
(``forget --user N --everything``) reaches every memory about them. The subject is data; the
scope is an access decision, and the engine does not take one from the other silently.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager

from vintage.graph.core.errors import InvalidArgument, UserError
from vintage.graph.core.model import SCOPE_PART, Event, Fact, Scope, new_event_id
from vintage.graph.memory.fold import plain
from vintage.graph.store.protocol import Store, UnknownReference

USER_SUBJECT = "user:"
READ = "read"
ALL_SCOPES = "all_scopes"


class ScopeRequired(UserError, ValueError):
    """A memory read, context or write that names no user, project or thread."""


def require_scope(scope: Scope, what: str) -> None:
    """Refuse ``what`` (a memory write or exit) unless it names a scope key."""
    if not scope.keys:
        raise ScopeRequired(f"{what} names its scope: give --user, --project or --thread")


def require_read_scope(scope: Scope, what: str, *, all_scopes: bool = False) -> None:
    """Refuse the read ``what`` unless it names a scope key or says ``all_scopes``, never
    both: a tenant-wide read is one choice, not a widening of a scoped one."""
    if all_scopes:
        if scope.keys:
            raise InvalidArgument("--all-scopes reads the whole tenant: give it without "
                                  "--user, --project or --thread")
        return
    if not scope.keys:
        raise ScopeRequired(f"{what} names its scope: give --user, --project or --thread "
                            "(a tenant-wide read is an explicit --all-scopes, and is audited)")


def subject_refusal(subject: str, user: str | None, project: str | None,
                    thread: str | None) -> str | None:
    """Why a memory write's scope does not fit it (None: it does). A subject that reads as
    ``user:`` however it is cased, spaced (inside too, or with invisible characters) or written
    in full-width or look-alike letters names a user, and is written ``user:ID`` with the id as
    a scope names it, or refused: ``USER:8`` beside ``user:8`` in another scope was out of reach
    of ``forget --user 8``. A malformed id is not repeated (it may be anything: a password
    was)."""
    # As the gates read text (``fold.plain``: NFKC, no invisible characters, look-alike
    # letters folded, lower case), without any space.
    if "".join(plain(subject).split()).startswith(USER_SUBJECT):
        owner = subject[len(USER_SUBJECT):] if subject.startswith(USER_SUBJECT) else ""
        if not SCOPE_PART.match(owner):
            return ("a subject that names a user is written user:ID, the user's id as --user "
                    "takes it (letters, digits and _ . : @ / - only)")
        if user != owner:
            where = f", not user {user}'s" if user else f": give user {owner} (--user {owner})"
            return f"a memory about {subject} lies in user {owner}'s scope{where}"
    if not (user or project or thread):
        return "a memory names its scope: give a user, project or thread"
    return None


def require_fact_scope(store: Store, scope: Scope, fact_id: str, read: str, *,
                       all_scopes: bool = False, actor: str | None = None) -> None:
    """A read of one fact by id (``explain``, ``impact --fact`` on the command line): a memory
    (a fact of a user, project or thread scope) is read only by a read naming a scope it lies
    in, or with ``all_scopes``, which is audited; otherwise it reads as an unknown fact, as
    another user's does over HTTP. A tenant-wide fact (a filing's, a table's) is read as
    before. Memory ids are content hashes: a scope-free read of one leaked its value."""
    fact = store.reading(scope.tenant, lambda tx: tx.get_facts([fact_id])).get(fact_id)
    _in_scope(store, scope, [fact] if fact is not None else [], read, all_scopes, actor,
              f"unknown fact: {fact_id}")


def require_source_scope(store: Store, scope: Scope, source_id: str, read: str, *,
                         all_scopes: bool = False, actor: str | None = None) -> None:
    """``require_fact_scope`` for every fact a source ever supported (``impact --source``):
    what it said may lie in several scopes, and the read shows each one's value."""
    said = store.reading(scope.tenant, lambda tx: list(
        tx.get_facts(tx.ever_supported_by(source_id)).values()))
    _in_scope(store, scope, said, read, all_scopes, actor, f"unknown source: {source_id}")


def _in_scope(store: Store, scope: Scope, facts: list[Fact], read: str, all_scopes: bool,
              actor: str | None, unknown: str) -> None:
    if all_scopes:
        require_read_scope(scope, read, all_scopes=True)
    memories = [f for f in facts if f.scope]
    if not memories:
        return
    if all_scopes:
        record_wide_read(store, scope.tenant, actor=actor, read=read,
                         subject=",".join(sorted({f.subject for f in memories})))
        return
    named = set(scope.terms())  # the as-of predicate's rule: the fact carries every key named
    for f in memories:
        if not named or not named <= set(f.scope):
            raise UnknownReference(f"{unknown} (a memory is read in its scope: give --user, "
                                   "--project or --thread, or --all-scopes)")


def record_wide_read(store: Store, tenant: str, *, actor: str | None, read: str,
                     subject: str, key: str | None = None) -> str:
    """Audit a tenant-wide read: who read what (the subject and key, never a value)."""
    event = _wide_read(store, tenant, actor=actor, read=read, subject=subject, key=key)
    _append(store, event)
    return event.id


# Audit writes that run beside the read they record (``audited_while``); a few, so that
# concurrent searches of a server do not queue behind one another's commits.
_AUDITS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="vintage-audit")


@contextmanager
def audited_while(store: Store, tenant: str, *, actor: str | None, read: str,
                  subject: str) -> Iterator[None]:
    """``record_wide_read`` committed while the block reads: the read's answer is not given
    until its audit is written, and a failed audit fails the read (its error raised when the
    block ends), but the commit's wait no longer adds to the read's (a search of filings on
    Neo4j spent a tenth of its time on it). The event is checked and stamped first, before
    anything is read."""
    event = _wide_read(store, tenant, actor=actor, read=read, subject=subject, key=None)
    written = _AUDITS.submit(_append, store, event)
    try:
        yield
    except BaseException as failed:
        wait([written])  # the read's own error is the one to raise; the audit's is noted
        if (audit_error := written.exception()) is not None:
            failed.add_note(f"its audit failed too: {type(audit_error).__name__}: "
                            f"{str(audit_error)[:200]}")
        raise
    written.result()


def _append(store: Store, event: Event) -> None:
    store.write(event.tenant, lambda tx: tx.append_events(event))


def _wide_read(store: Store, tenant: str, *, actor: str | None, read: str, subject: str,
               key: str | None) -> Event:
    if not actor or not actor.strip():
        raise InvalidArgument("a tenant-wide read (all scopes) names its actor")
    return Event(id=new_event_id(), tenant=tenant, at=store.now(), actor=actor, action=READ,
                 reason=f"{read} across all scopes of the tenant",
                 details={"decision": ALL_SCOPES, "read": read, "subject": subject,
                          "key": key or "-", "scope": "-"})
