"""Erasure reaches the disk (issue 12, point 5), on both backends: memory is sealed at rest
under keys kept outside the store, and ``forget`` destroys them.

The files are read as bytes, every one of them: the embedded store's directory, and the Neo4j
server's data directory (store files and transaction logs) when the server under test is the
launcher's, as in CI (a server whose files are elsewhere, in Docker or behind ``NEO4J_URI``, is
checked through its properties instead). Each test first finds the text through the store's
own reads, then finds it in no file, before and after the erasure: sealed, it never reached
them in clear; erased, its ciphertext no longer opens, because its key is gone."""

from __future__ import annotations

import base64
import random
import shutil
import string
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from tests.factories import ACTOR, PinnedClock, batch, fact, memory, mine, run, source, values
from tests.on_disk import fact_rows
from tests.test_memory_erase import summaries
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.model import Scope, digest
from vintage.graph.memory.forget import forget
from vintage.graph.memory.remember import remember
from vintage.graph.neo4j import launcher
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.sealing.keyfile import FileKeyStore
from vintage.graph.sealing.sealed import CIPHERTEXT, KeyUnknown, key_id
from vintage.graph.sqlite.store import SqliteStore
from vintage.graph.store.backends import KEYS_ENV, key_path, open_store
from vintage.graph.store.capabilities import CountsHeld
from vintage.graph.store.protocol import Store
from vintage.graph.writes.semantics import record
from vintage.queries.memory.recall import recall
from vintage.queries.memory.summaries import summarise

FORGET_BY = ["memory", "source", "user"]


def words(n: int = 8) -> str:
    """Text no other test writes: random words (a hex run would read as a secret). Eight
    words, 79 characters: longer than any of Neo4j's short-string encodings (which pack a
    short text into a few bits a character, out of a byte grep's sight) and shorter than one
    block of its string store (120 bytes), so a text stored in clear is one run of bytes."""
    return " ".join("".join(random.choices(string.ascii_lowercase, k=9)) for _ in range(n))


def files_of(store: Store, request: pytest.FixtureRequest) -> Path | None:
    """The directory holding every byte the store wrote; None for a Neo4j server whose files
    are not on this machine (a Docker container, a remote ``NEO4J_URI``)."""
    if isinstance(store, SqliteStore):
        assert store.path is not None
        return store.path
    server = launcher.status()
    target = request.getfixturevalue("neo4j_target")
    return server.home if server is not None and server.uri == target.uri else None


def in_clear(store: Store, request: pytest.FixtureRequest, scope: Scope,
             texts: Iterable[str]) -> dict[str, list[str]]:
    """Each text and the files that hold it in clear (read as bytes). Where the server's files
    are out of reach, what this can still check: its properties, through Cypher."""
    directory = files_of(store, request)
    if directory is None:
        assert isinstance(store, Neo4jStore)
        return {t: ["a property"] for t in texts if occurrences_in_clear(store, scope, t)}
    return found_in_files(directory, texts)


def occurrences_in_clear(store: Neo4jStore, scope: Scope, text: str) -> int:
    """How many properties of the tenant's nodes and relationships hold ``text`` in clear."""
    contains = ("any(e IN CASE WHEN valueType(v) STARTS WITH 'LIST' THEN v ELSE [v] END "
                "WHERE toString(e) CONTAINS $x)")
    found = 0
    with store.driver.session() as session:
        for items in ("(n)", "(n)-[i]->()"):
            alias = "n" if items == "(n)" else "i"
            row = session.run(
                f"MATCH {items} WHERE n.tenant = $t UNWIND keys({alias}) AS k "
                f"WITH {alias}[k] AS v WHERE {contains} RETURN count(*) AS c",
                t=scope.tenant, x=text).single()
            found += 0 if row is None else int(row["c"])
    return found


def found_in_files(directory: Path, texts: Iterable[str]) -> dict[str, list[str]]:
    """Each text (UTF-8 bytes) and the files under ``directory`` that hold it."""
    needles = {t: t.encode("utf-8") for t in texts}
    found: dict[str, list[str]] = {t: [] for t in needles}
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        try:
            data = path.read_bytes()
        except FileNotFoundError:  # a server's temporary file, gone since the listing
            continue
        for text, needle in needles.items():
            if needle in data:
                found[text].append(str(path.relative_to(directory)))
    return {t: where for t, where in found.items() if where}


def stored_rows(store: Store, tenant: str) -> dict[str, dict[str, Any]]:
    """Each fact as the disk holds it (sealed or not), by id."""
    if isinstance(store, Neo4jStore):
        with store.driver.session() as session:
            return {r["f"]["id"]: dict(r["f"]) for r in session.run(
                "MATCH (f:Fact {tenant: $t}) RETURN f", t=tenant)}
    assert isinstance(store, SqliteStore) and store.path is not None
    return {p["id"]: p for p in fact_rows(store.path, tenant)}


def opens(blob: str, key: bytes, kid: str) -> bool:
    raw = base64.b64decode(blob)
    try:
        AESGCM(key).decrypt(raw[:12], raw[12:], kid.encode())
    except InvalidTag:
        return False
    return True


def erase(store: Store, scope: Scope, by: str) -> None:
    if by == "memory":
        forget(store, mine(scope), subject="user:42", key="shipping.preference", actor=ACTOR,
               reason="asked to forget it")
    elif by == "source":
        forget(store, mine(scope), source_id="msg-1", actor=ACTOR, reason="message withdrawn")
    else:
        forget(store, mine(scope), user="42", actor=ACTOR, reason="account deleted")


@pytest.mark.parametrize("by", FORGET_BY)
def test_memory_is_sealed_at_rest_and_after_forget_its_ciphertext_no_longer_opens(
    store: Store, scope: Scope, by: str, request: pytest.FixtureRequest,
) -> None:
    said, why, other = words(), f"kept because {words(6)}", words()
    remember(store, memory(scope, value=said, retention_reason=why, consent=True), actor=ACTOR)
    remember(store, memory(scope, subject="user:43", user="43", owner="user:43", key="gift.wrap",
                           value=other, source_id="msg-9", consent=True), actor=ACTOR)
    summary = summarise(store, mine(scope), "user:42", actor=ACTOR).fact
    # Retrievable through the store, and in no file in clear: sealed at rest.
    assert values(recall(store, mine(scope), "user:42")) == [said]
    assert [m.retention_reason for m in recall(store, mine(scope), "user:42")] == [why]
    assert summaries(store, mine(scope)) == [f"shipping.preference: {said}"]
    assert in_clear(store, request, scope, [said, why, other]) == {}
    rows = stored_rows(store, scope.tenant)
    erased_ids = {summary.id, *(i for i, r in rows.items() if r.get("predicate") ==
                                "shipping.preference")}
    sealed = {i: rows[i][CIPHERTEXT] for i in erased_ids}
    assert isinstance(store, SqliteStore | Neo4jStore) and store.sealer is not None
    keys = {i: store.sealer.keys.get(key_id(scope.tenant, i)) for i in erased_ids}
    assert all(k is not None and opens(sealed[i], k, key_id(scope.tenant, i))
               for i, k in keys.items())

    erase(store, scope, by)

    assert recall(store, mine(scope), "user:42") == []
    assert summaries(store, mine(scope)) == []
    assert in_clear(store, request, scope, [said, why, other]) == {}
    assert all(store.sealer.keys.get(key_id(scope.tenant, i)) is None for i in erased_ids)
    key_file = Path(store.sealer.keys.where.removeprefix("the key file "))
    assert not any(base64.b64encode(k).decode() in key_file.read_text()
                   for k in keys.values() if k is not None)
    assert all(CIPHERTEXT not in stored_rows(store, scope.tenant)[i] for i in erased_ids)
    # Nothing else became unreadable: the other user's memory opens as before.
    assert values(recall(store, mine(scope, "43"), "user:43")) == [other]


def test_a_short_value_leaves_no_dictionary_hash_and_a_summary_id_hashes_no_value(
    store: Store, scope: Scope,
) -> None:
    remember(store, memory(scope, key="gift.wrap", value="yes"), actor=ACTOR)
    summary = summarise(store, mine(scope), "user:42", actor=ACTOR).fact
    plain = digest("str", "yes", None)
    (stored,) = [r for r in stored_rows(store, scope.tenant).values()
                 if r["predicate"] == "gift.wrap"]
    assert stored["content_hash"] != plain and stored["value"] == ""
    rendered = digest("str", "gift.wrap: yes", None)
    assert digest(rendered, summary.available_at.isoformat())[:12] not in summary.id
    # The plain hash is what duplicate detection compares, restored from the ciphertext.
    again = remember(store, memory(scope, key="gift.wrap", value="yes"), actor=ACTOR)
    assert again.decision.value == "duplicate"


def test_filed_facts_stay_plain_beside_sealed_memory(store: Store, scope: Scope) -> None:
    filed = 7_001_000_000 + random.randrange(1_000_000)
    record(store, scope, batch(fact(filed, "0001652044-18-000016"),
                               sources=(source("0001652044-18-000016", "2018-04-24"),)),
           actor=ACTOR)
    remember(store, memory(scope, value="ship to the office"), actor=ACTOR)
    rows = stored_rows(store, scope.tenant)
    (sec,) = [r for r in rows.values() if r["predicate"] == "OperatingIncomeLoss"]
    assert sec["value"] == filed and CIPHERTEXT not in sec and not sec.get("sealed")
    (mem,) = [r for r in rows.values() if r["predicate"] == "shipping.preference"]
    assert CIPHERTEXT in mem and mem["sealed"] is True


def test_an_erasure_killed_before_its_keys_are_destroyed_destroys_them_on_the_next_open(
    store: Store, scope: Scope, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    said = words()
    remember(store, memory(scope, value=said, consent=True), actor=ACTOR)
    assert isinstance(store, SqliteStore | Neo4jStore) and store.sealer is not None
    (fact_id,) = [i for i, r in stored_rows(store, scope.tenant).items() if CIPHERTEXT in r]
    kid = key_id(scope.tenant, fact_id)

    def killed(*args: object) -> None:
        raise SystemExit("killed after the commit, before the keys went")

    monkeypatch.setattr("vintage.graph.sealing.sealed.Sealer.destroy", killed)
    with pytest.raises(SystemExit):
        erase(store, scope, "memory")
    monkeypatch.undo()
    assert store.sealer.keys.marked() == {kid} and store.sealer.keys.get(kid) is not None
    reopened = _reopen(store, request, tmp_path)
    assert reopened.sealer is not None and reopened.sealer.keys.get(kid) is None
    assert reopened.sealer.keys.marked() == set()


def _reopen(store: Store, request: pytest.FixtureRequest, tmp_path: Path,
            key_file: Path | None = None) -> Any:
    """The same store opened anew, with the test's key file or ``key_file``."""
    keys = FileKeyStore(key_file or tmp_path / "keys")
    if isinstance(store, SqliteStore):
        assert store.path is not None
        return SqliteStore.open(store.path, store.now, keys)
    shared = request.getfixturevalue("neo4j_driver_store")
    reopened = Neo4jStore(shared.driver, store.now, shared.database, keys=keys)
    reopened.ensure_schema()
    return reopened


def test_a_backup_taken_before_an_erasure_opens_without_what_was_erased(
    tmp_path: Path, clock: PinnedClock,
) -> None:
    keys = FileKeyStore(tmp_path / "keys")
    store = SqliteStore.open(tmp_path / "store", clock, keys)
    scope = Scope(tenant="backed-up")
    said, kept = words(), words()
    remember(store, memory(scope, value=said, consent=True), actor=ACTOR)
    remember(store, memory(scope, key="gift.wrap", value=kept, source_id="msg-2", consent=True),
             actor=ACTOR)
    shutil.copytree(tmp_path / "store", tmp_path / "backup")
    clock.advance(minutes=1)
    erase(store, scope, "memory")
    restored = SqliteStore.open(tmp_path / "backup", clock, FileKeyStore(tmp_path / "keys"))
    # The backup's database still holds the ciphertext; its key is gone, so it reads as erased.
    assert any(CIPHERTEXT in r for r in stored_rows(restored, scope.tenant).values())
    assert values(recall(restored, mine(scope), "user:42")) == [kept]
    (gone,) = restored.history(scope.tenant, memory(scope).assertion_key())
    assert (gone.value, gone.erased_at) == ("", clock.now)
    # ``vintage stats`` counts the one kept, told by the key store (nothing decrypted).
    assert (restored.held(scope.tenant).facts, restored.held(scope.tenant).sources) == (1, 1)


def test_a_store_opened_with_another_key_file_refuses_naming_it(
    store: Store, scope: Scope, request: pytest.FixtureRequest, tmp_path: Path,
) -> None:
    remember(store, memory(scope), actor=ACTOR)
    reopened = _reopen(store, request, tmp_path, tmp_path / "other.keys")
    with pytest.raises(KeyUnknown, match=r"other\.keys never held.*VINTAGE_KEYS"):
        # Both refuse on the read of a sealed fact ...
        recall(reopened, mine(scope), "user:42")
    assert isinstance(reopened, CountsHeld)
    with pytest.raises(KeyUnknown, match=r"other\.keys never held"):
        reopened.held(scope.tenant)  # ... and on counting it, which decrypts nothing


def test_a_key_file_inside_the_store_directory_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(KEYS_ENV, str(tmp_path / "store" / "keys"))
    with pytest.raises(InvalidArgument, match="inside the store"):
        open_store(str(tmp_path / "store"))
    monkeypatch.delenv(KEYS_ENV)
    assert key_path(str(tmp_path / "store")) == tmp_path / "store.keys"
    assert key_path("bolt://127.0.0.1:7687") == Path(".vintage/keys/neo4j-127.0.0.1-7687.keys")


def test_the_command_line_seals_with_the_default_key_file_and_forget_destroys_the_keys(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    said = words()
    code, _, err = run([*store_args, "remember", "preference", "user:42", "shipping.preference",
                        said, "--source-id", "msg-1", "--source-kind", "user_message",
                        "--observed-at", "2026-05-01T10:00:00Z", "--owner", "user:42",
                        "--reason", "asked us to remember", "--user", "42", "--consent"],
                       capsys, monkeypatch)
    assert code == 0, err
    keys = key_path(store_args[1])  # VINTAGE_KEYS for Neo4j, the store's sibling embedded
    assert keys.read_text().count('"key"') == 1
    code, out, _ = run([*store_args, "memories", "user:42", "--user", "42", "--json"], capsys,
                       monkeypatch)
    assert said in out
    code, _, _ = run([*store_args, "forget", "--user", "42", "--everything", "--reason", "gone"],
                     capsys, monkeypatch)
    assert code == 0 and '"key"' not in keys.read_text()


def test_an_erasure_nested_in_a_larger_write_reaches_the_files_once_it_commits(
    tmp_path: Path, clock: PinnedClock,
) -> None:
    keys = FileKeyStore(tmp_path / "keys")
    store = SqliteStore.open(tmp_path / "store", clock, keys)
    scope = Scope(tenant="nested")
    said = words()
    remember(store, memory(scope, value=said, consent=True), actor=ACTOR)
    clock.advance(minutes=1)
    store.whole(scope.tenant, lambda: erase(store, scope, "memory"))  # a write inside a write
    sealed = [i for i, r in stored_rows(store, scope.tenant).items() if r.get("sealed")]
    assert sealed and all(keys.get(key_id(scope.tenant, i)) is None for i in sealed)
    assert keys.marked() == set()
    assert recall(store, mine(scope), "user:42") == []
