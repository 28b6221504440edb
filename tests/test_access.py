"""Principals and API keys (issue 14), on both backends: a key verifies as the principal it was
made for and as nothing else; every bad key is refused with one message; the store keeps a
verifier, never the key; a revoke outlives no cache of this process; and authority is the
key's, whatever source kind the caller claims."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator

import pytest

from tests.test_erasure_on_disk import found_in_files, occurrences_in_clear
from vintage.graph.access import (
    Forbidden,
    KeyCache,
    OutOfReach,
    Principal,
    Role,
    Unauthorized,
    check_read,
    check_write,
    create_key,
    list_keys,
    revoke,
    verify,
)
from vintage.graph.access.keys import CREATE, REFUSED
from vintage.graph.access.keystring import encode_tenant
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.model import Scope
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.sqlite.store import SqliteStore
from vintage.graph.store.protocol import Store

OWNER = "user:owner"


@pytest.fixture
def other_tenant(store: Store, tenant: str) -> Iterator[str]:
    other = tenant + "-other"
    yield other
    if isinstance(store, Neo4jStore):
        store.purge_tenant(other)


def secret_of(key: str) -> str:
    return key.rsplit("_", 1)[1]


def refused(store: Store, key: str | None, cache: KeyCache | None = None) -> str:
    with pytest.raises(Unauthorized) as caught:
        verify(store, key, cache=cache or KeyCache())
    return str(caught.value)


def test_a_created_key_verifies_as_the_principal_it_was_made_for(store: Store,
                                                                tenant: str) -> None:
    made, key = create_key(store, tenant, Role.WRITER, user="42", name="support-bot",
                           actor=OWNER)
    found = verify(store, key, cache=KeyCache())
    assert found == made == Principal(tenant, Role.WRITER, made.key_id, name="support-bot",
                                      user="42")
    assert found.actor == f"key:{made.key_id}(support-bot)"
    assert found.scope() == Scope(tenant=tenant, keys={"user": "42"})
    assert (found.can_write, found.can_read_tenant_wide, found.can_manage_keys) == (
        True, False, False)
    (event,) = store.events(tenant, actions=[CREATE])
    assert event.actor == OWNER


def test_every_bad_key_is_refused_with_one_message_that_does_not_say_which(
    store: Store, tenant: str, other_tenant: str,
) -> None:
    _, key = create_key(store, tenant, Role.READER, actor=OWNER)
    _, theirs = create_key(store, other_tenant, Role.ADMIN, actor=OWNER)
    doomed, revoked_key = create_key(store, tenant, Role.AGENT, actor=OWNER)
    revoke(store, tenant, doomed.key_id, OWNER)
    secret = secret_of(key)
    wrong_secret = key[:-1] + ("0" if key[-1] != "0" else "1")
    unknown_id = key.replace(key.split("_")[2], "k" + "0" * 16)
    # Their admin key with our tenant written in: it names an id our tenant does not have.
    theirs_as_ours = theirs.replace(encode_tenant(other_tenant), encode_tenant(tenant), 1)
    # Our key's id with their secret: the verifier covers the whole key.
    our_id_their_secret = key.replace(secret, secret_of(theirs))
    bad = {
        "missing": None, "empty": "", "wrong secret": wrong_secret, "unknown id": unknown_id,
        "tampered tenant": theirs_as_ours, "another key's secret": our_id_their_secret,
        "revoked": revoked_key, "malformed": "vk_nope", "upper case": key.upper(),
        "a bare secret": secret, "trailing blank": key + " ", "too long": key + "0" * 400,
    }
    messages = {what: refused(store, k) for what, k in bad.items()}
    # No key at all is told so (nothing about any key is revealed by saying it); every key
    # that was sent hears the same refusal, whatever is wrong with it.
    assert messages.pop("missing").startswith("missing API key")
    assert set(messages.values()) == {REFUSED}, messages
    assert verify(store, key, cache=KeyCache()).role is Role.READER  # the control
    assert verify(store, theirs, cache=KeyCache()).tenant == other_tenant


def test_a_listing_never_shows_a_key_or_its_verifier(store: Store, tenant: str) -> None:
    made, key = create_key(store, tenant, Role.AGENT, project="alpha", name="ops",
                           actor=OWNER)
    (event,) = store.events(tenant, actions=[CREATE])
    verifier = {str(event.details["hash"]), str(event.details["salt"])}
    (info,) = list_keys(store, tenant)
    assert (info.key_id, info.role, info.project, info.name, info.active) == (
        made.key_id, Role.AGENT, "alpha", "ops", True)
    shown = json.dumps(dataclasses.asdict(info), default=str) + repr(info)
    assert all(text not in shown for text in (key, secret_of(key), *verifier))
    assert {f.name for f in dataclasses.fields(info)}.isdisjoint({"hash", "salt", "secret"})


def test_the_store_keeps_a_verifier_never_the_key(
    store: Store, tenant: str, request: pytest.FixtureRequest,
) -> None:
    made, key = create_key(store, tenant, Role.WRITER, user="42", actor=OWNER)
    (event,) = store.events(tenant)
    assert event.details["kdf"] == "scrypt" and (
        event.details["n"], event.details["r"], event.details["p"]) == (2**14, 8, 1)
    assert len(bytes.fromhex(str(event.details["salt"]))) == 16
    events = json.dumps([e.model_dump(mode="json") for e in store.events(tenant)])
    assert made.key_id in events and key not in events and secret_of(key) not in events
    texts = [key, secret_of(key), made.key_id]  # the key id: the control that the search sees
    if isinstance(store, SqliteStore):
        assert store.path is not None
        found = set(found_in_files(store.path, texts))
    else:
        assert isinstance(store, Neo4jStore)
        found = {t for t in texts if occurrences_in_clear(store, Scope(tenant=tenant), t)}
    assert found == {made.key_id}


def test_a_revoke_in_this_process_outlives_no_cached_verification(store: Store,
                                                                 tenant: str) -> None:
    cache = KeyCache(ttl=3600)
    made, key = create_key(store, tenant, Role.WRITER, actor=OWNER)
    assert verify(store, key, cache=cache) == made
    assert cache.get(store, key) == made  # held: the next verification runs no scrypt
    revoke(store, tenant, made.key_id, OWNER, cache=cache)
    assert refused(store, key, cache) == REFUSED
    (info,) = list_keys(store, tenant)
    assert not info.active and info.revoked_by == OWNER


def test_a_revoke_in_another_process_holds_once_this_ones_cache_entry_expires(
    store: Store, tenant: str,
) -> None:
    now = [0.0]
    here = KeyCache(ttl=30, clock=lambda: now[0])
    made, key = create_key(store, tenant, Role.WRITER, actor=OWNER)
    verify(store, key, cache=here)
    revoke(store, tenant, made.key_id, OWNER, cache=KeyCache())  # the other process's cache
    now[0] = 29.0
    assert verify(store, key, cache=here) == made  # the documented delay, at most the TTL
    now[0] = 30.0
    assert refused(store, key, here) == REFUSED


def test_a_cached_key_verifies_against_its_own_store_only(
    store: Store, tenant: str, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    cache = KeyCache(ttl=3600)
    _, key = create_key(store, tenant, Role.READER, actor=OWNER)
    verify(store, key, cache=cache)
    elsewhere = SqliteStore.open(tmp_path_factory.mktemp("elsewhere"), store.now)
    try:
        assert refused(elsewhere, key, cache) == REFUSED
    finally:
        elsewhere.close()


@pytest.mark.parametrize(("role", "binding", "why"), [
    ("admin", {"user": "42"}, "admin key reaches the whole tenant"),
    ("owner", {}, "role: one of reader, writer, agent, admin"),
    ("reader", {"user": "a b"}, "user: letters"),
    ("writer", {"name": "has (parens)"}, "name: letters"),
])
def test_a_key_that_could_not_be_named_or_bound_is_refused_and_nothing_is_written(
    store: Store, tenant: str, role: str, binding: dict[str, str], why: str,
) -> None:
    with pytest.raises(InvalidArgument, match=why.replace("(", r"\(")):
        create_key(store, tenant, role, actor=OWNER, **binding)
    assert store.events(tenant) == []


def test_revoking_an_unknown_or_revoked_key_is_refused_and_writes_nothing(
    store: Store, tenant: str,
) -> None:
    made, _ = create_key(store, tenant, Role.READER, actor=OWNER)
    with pytest.raises(InvalidArgument, match="no key"):
        revoke(store, tenant, "k" + "0" * 16, OWNER)
    revoke(store, tenant, made.key_id, OWNER)
    with pytest.raises(InvalidArgument, match="already revoked"):
        revoke(store, tenant, made.key_id, OWNER)
    assert sorted(e.action for e in store.events(tenant)) == ["key.create", "key.revoke"]


# -- authority: the key decides, whatever the caller claims --------------------------------------

def key(role: str, user: str | None = None, project: str | None = None) -> Principal:
    return Principal("acme", Role(role), "k" + "1" * 16, user=user, project=project)


ALLOWED, REFUSED_WRITE = True, False
WRITES = [  # (who, source kind, tool, for the user, project, allowed)
    (key("agent"), "agent_output", None, None, None, ALLOWED),
    (key("agent"), "model_inference", None, None, None, ALLOWED),
    (key("agent"), "tool_result", "weather", None, None, ALLOWED),
    (key("agent"), "tool_result", None, None, None, REFUSED_WRITE),
    (key("agent"), "tool_result", "  ", None, None, REFUSED_WRITE),
    (key("agent"), "user_message", None, "42", None, REFUSED_WRITE),
    (key("agent", user="42"), "user_message", None, "42", None, REFUSED_WRITE),
    (key("agent"), "document", None, None, None, REFUSED_WRITE),
    (key("agent"), "filing", None, None, None, REFUSED_WRITE),
    (key("reader"), "agent_output", None, None, None, REFUSED_WRITE),
    (key("reader", user="42"), "user_message", None, "42", None, REFUSED_WRITE),
    (key("writer", user="42"), "user_message", None, None, None, ALLOWED),
    (key("writer", user="42"), "user_message", None, "42", None, ALLOWED),
    (key("writer", user="42"), "user_message", None, "43", None, REFUSED_WRITE),
    (key("writer", user="42"), "document", None, "43", None, REFUSED_WRITE),
    (key("writer"), "user_message", None, None, None, REFUSED_WRITE),
    (key("writer"), "user_message", None, "43", None, ALLOWED),
    (key("writer", project="alpha"), "document", None, None, "beta", REFUSED_WRITE),
    (key("writer", project="alpha"), "document", None, None, "alpha", ALLOWED),
    (key("admin"), "user_message", None, "7", None, ALLOWED),
    (key("admin"), "user_message", None, None, None, REFUSED_WRITE),
    (key("admin"), "filing", None, None, None, ALLOWED),
]


@pytest.mark.parametrize(("who", "kind", "tool", "for_user", "project", "allowed"), WRITES)
def test_a_key_writes_only_the_source_kinds_and_users_its_role_and_binding_allow(
    who: Principal, kind: str, tool: str | None, for_user: str | None, project: str | None,
    allowed: bool,
) -> None:
    if allowed:
        check_write(who, kind, tool=tool, for_user=for_user, project=project)
    else:
        with pytest.raises(Forbidden):
            check_write(who, kind, tool=tool, for_user=for_user, project=project)


def scope(**keys: str) -> Scope:
    return Scope(tenant="acme", keys=keys)


READS = [  # (who, the scope asked, all scopes, the scope read; None: forbidden)
    (key("reader", user="42"), scope(user="42"), False, scope(user="42")),
    (key("reader", user="42"), scope(project="alpha"), False,
     scope(user="42", project="alpha")),
    (key("reader", user="42"), scope(user="43"), False, None),
    (key("reader", user="42"), scope(), True, None),
    (key("writer", project="alpha"), scope(project="beta"), False, None),
    (key("writer", project="alpha"), scope(user="9"), False, scope(user="9", project="alpha")),
    (key("reader"), scope(user="43"), False, scope(user="43")),
    (key("reader"), scope(), True, None),
    (key("agent"), scope(), True, None),
    (key("writer"), scope(), True, None),
    (key("admin"), scope(), True, scope()),
    (key("admin"), scope(user="43"), False, scope(user="43")),
]


@pytest.mark.parametrize(("who", "asked", "all_scopes", "read"), READS)
def test_a_key_reads_within_its_binding_and_only_an_admin_reads_tenant_wide(
    who: Principal, asked: Scope, all_scopes: bool, read: Scope | None,
) -> None:
    if read is not None:
        assert check_read(who, asked, all_scopes) == read
    else:
        with pytest.raises(Forbidden):
            check_read(who, asked, all_scopes)


@pytest.mark.parametrize("role", list(Role))
def test_no_key_reaches_another_tenant_which_answers_as_not_found(role: Role) -> None:
    who = Principal("acme", role, "k" + "2" * 16)
    for all_scopes in (False, True):
        with pytest.raises(OutOfReach):
            check_read(who, Scope(tenant="globex", keys={"user": "42"} if not all_scopes
                                  else {}), all_scopes)
    assert not who.reaches(Scope(tenant="globex"))
    assert who.reaches(Scope(tenant="acme", keys={"user": "1"}))
