"""``vintage keys create | list | revoke`` on both backends: a key is printed once and verifies
against the store the command wrote; a listing shows neither a key nor its verifier; a revoked
key is refused; bad requests end in one line and exit 2, having written nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.factories import run
from vintage.graph.access import KeyCache, Role, Unauthorized, verify
from vintage.graph.store.backends import open_store


def verified_role(store_args: list[str], key: str) -> Role | None:
    store = open_store(store_args[1])
    try:
        return verify(store, key, cache=KeyCache()).role
    except Unauthorized:
        return None
    finally:
        store.close()


def test_a_created_key_is_printed_once_and_verifies_as_its_principal(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run([*store_args, "--actor", "ops:alice", "keys", "create", "--role",
                          "writer", "--user", "42", "--name", "support-bot"],
                         capsys, monkeypatch)
    assert code == 0, err
    (key,) = [line for line in out.splitlines() if line.startswith("vk_")]
    assert out.count(key) == 1 and "shown only once" in out
    assert verified_role(store_args, key) is Role.WRITER
    code, out, _ = run([*store_args, "keys", "list", "--json"], capsys, monkeypatch)
    (listed,) = json.loads(out)
    assert (listed["role"], listed["user"], listed["name"], listed["created_by"],
            listed["active"]) == ("writer", "42", "support-bot", "ops:alice", True)
    assert key.rsplit("_", 1)[1] not in out and "hash" not in out and "salt" not in out


def test_create_as_json_names_the_key_and_its_actor_spelling(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run([*store_args, "keys", "create", "--role", "agent", "--project",
                          "alpha", "--json"], capsys, monkeypatch)
    assert code == 0, err
    made = json.loads(out)
    assert made["actor"] == f"key:{made['key_id']}" and made["project"] == "alpha"
    assert "only once" in made["note"]
    assert verified_role(store_args, made["key"]) is Role.AGENT


def test_a_revoked_key_is_refused_and_a_second_revoke_is_one_line(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, out, _ = run([*store_args, "keys", "create", "--role", "reader", "--json"], capsys,
                    monkeypatch)
    made = json.loads(out)
    code, out, err = run([*store_args, "keys", "revoke", made["key_id"]], capsys, monkeypatch)
    assert code == 0 and f"revoked key {made['key_id']}" in out, err
    assert verified_role(store_args, made["key"]) is None
    code, out, err = run([*store_args, "keys", "revoke", made["key_id"]], capsys, monkeypatch)
    assert code == 2 and "already revoked" in err and len(err.splitlines()) == 1
    code, out, _ = run([*store_args, "keys", "list", "--json"], capsys, monkeypatch)
    (listed,) = json.loads(out)
    assert listed["active"] is False and listed["revoked_at"] is not None


@pytest.mark.parametrize(("args", "why"), [
    (["create", "--role", "admin", "--user", "42"], "admin key reaches the whole tenant"),
    (["create", "--role", "owner"], "owner"),
    (["create", "--role", "reader", "--name", "a name"], "name: letters"),
    (["revoke", "k0000000000000000"], "no key"),
])
def test_a_bad_keys_request_is_one_line_exit_2_and_writes_nothing(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, args: list[str], why: str,
) -> None:
    code, out, err = run([*store_args, "keys", *args], capsys, monkeypatch)
    assert code == 2 and why in err and out == ""
    code, out, _ = run([*store_args, "keys", "list", "--json"], capsys, monkeypatch)
    assert json.loads(out) == []


def test_keys_need_a_tenant(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VINTAGE_TENANT", raising=False)
    code, out, err = run(["--store", f"{tmp_path}/store", "keys", "create", "--role",
                          "reader"], capsys, monkeypatch)
    assert code == 2 and "--tenant" in err and out == ""
