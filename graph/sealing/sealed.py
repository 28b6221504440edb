"""Sealed content: agent memory reaches the disk only as ciphertext, under a key of its own per
fact version, kept outside the database; destroying the key erases every copy at once.

Which facts are sealed: those written in a scope narrower than the tenant (a user, project or
thread: every agent memory, since the memory gate refuses a write without one) and every fact
derived from a sealed one (summaries). Tenant-wide business facts (SEC filings, tables) stay
plain: they are public or the tenant's shared books, nobody erases them one person at a time,
and reading them costs no decryption. ``Fact.sealed`` says which; it is stored in clear.

What is sealed on a fact: its value, retention reason, owner and content hash (the plain hash
of a short value, "yes" or a PIN, is reversed by a dictionary). A store seals at its seam, in
what it writes (the embedded log's codec, Neo4j's parameters); in memory a fact is plain, so
every read path gets plaintext without knowing. On disk a sealed fact holds ``value ''``, no
retention reason nor owner, a content hash keyed by its own data key (useless once the key is
gone), and ``ciphertext``: base64 of a 12-byte nonce and AES-256-GCM of the four fields (JSON,
padded to a multiple of 64 bytes), bound to the tenant and fact id as associated data (a
ciphertext moved to another fact fails). Duplicate detection compares the plain hash, restored
from the ciphertext on every read. Content derived from a sealed fact and kept beside it (its
search entry: terms and vector) is sealed under the same key (``seal_extra``), bound to the
fact and a purpose, so that destroying the key erases it with the fact. That is the embedded
store; Neo4j must search its entries in the server, so it keeps the terms blinded under the
tenant's index key (``blind``) and the vector in clear, removed with the text on erasure
(docs/retrieval.md, "Neo4j: full-text and cosine inside the legal set").

Why a key per fact version: ``forget`` erases by memory, by source or by user, and each erases
a set of versions (by source, some versions of a memory and not others). A key per version is
the finest unit any of them erases, so each destroys exactly the keys of what it erased and
nothing else becomes unreadable; forgetting a user destroys all their keys in one rewrite of the
key file. A key per subject could not serve erasure by memory or by source.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
from collections.abc import Collection, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from vintage.graph.core.model import Fact, Scope
from vintage.graph.store.protocol import StoreError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

CIPHERTEXT = "ciphertext"  # the stored field that holds a sealed fact's content
ERASED = "erased"  # the content hash of an erased fact
KEY_BYTES = 32
_NONCE_BYTES = 12
_PAD = 64


def sealed_in(scope: Scope) -> bool:
    """Whether facts written in ``scope`` are sealed: those of a user, project or thread."""
    return bool(scope.keys)


def key_id(tenant: str, fact_id: str) -> str:
    """The key store's name for a fact's data key (a space is in neither a tenant nor an id)."""
    return f"{tenant} {fact_id}"


def gone_among(sealer: Sealer | None, tenant: str, sealed: Sequence[str]) -> list[str]:
    """The facts of ``sealed`` (ids of facts marked sealed) whose key is destroyed
    (``Sealer.gone``); none without a key store (an in-memory store keeps them plain)."""
    return sealer.gone(tenant, sealed) if sealer is not None else []


def index_key_id(tenant: str) -> str:
    """The key store's name for a tenant's search index key (no fact id is ``index``)."""
    return f"{tenant} index"


def blinded(key: bytes, term: str) -> str:
    """A search term keyed by ``key``: ``b.`` and 128 bits of HMAC-SHA256, hex."""
    return "b." + hmac.new(key, term.encode("utf-8"), hashlib.sha256).hexdigest()[:32]


def split_key_id(kid: str) -> tuple[str, str]:
    tenant, _, fact_id = kid.partition(" ")
    return tenant, fact_id


class KeyStore(Protocol):
    """Where data keys live: outside the database and its log, so that destroying one leaves
    no copy in their files. The default is a key file per deployment
    (``vintage.graph.sealing.keyfile``); a KMS
    can take its place."""

    where: str  # what to name in errors: a path, a KMS key ring

    def create(self, key_ids: Sequence[str]) -> None:
        """Give each id without a key a fresh one (an id that has one keeps it: two writers
        racing on one id share the first key), durable before this returns."""
        ...

    def get(self, key_id: str) -> bytes | None:
        """The key, or None when there is none (destroyed, or never held)."""
        ...

    def destroyed(self, key_id: str) -> datetime | None:
        """When the key was destroyed; None if it never was."""
        ...

    def mark(self, key_ids: Collection[str]) -> None:
        """Record, durably, that these keys are about to be destroyed (a crash between the
        erasure's commit and the destruction leaves the mark for the next open to finish)."""
        ...

    def marked(self) -> set[str]:
        """Ids marked and not yet destroyed."""
        ...

    def destroy(self, key_ids: Collection[str], at: datetime) -> None:
        """Forget these keys for good (ids without a key are ignored), durable on return."""
        ...


class KeyUnknown(StoreError):
    """A sealed fact whose key the key store never held: the store was opened with another
    key file than the one it was written with."""


class Sealer:
    """Seals and unseals the stored fields of facts with the keys of one key store."""

    def __init__(self, keys: KeyStore) -> None:
        self.keys = keys

    def prepare(self, tenant: str, facts: Iterable[Fact]) -> None:
        """Create the keys of the sealed facts among ``facts``, in one durable step, before
        anything sealed under them reaches the disk."""
        ids = [key_id(tenant, f.id) for f in facts if f.sealed]
        if ids:
            self.keys.create(ids)

    def seal(self, tenant: str, row: dict[str, Any]) -> dict[str, Any]:
        """A sealed fact's stored fields (``row``: its plain fields) with the content replaced
        by its ciphertext; a plain fact's fields as they are."""
        if not row.get("sealed"):
            return row
        kid = key_id(tenant, row["id"])
        key = self._key(kid, row["id"])
        blob = _encrypt(key, [row["value"], row.get("retention_reason"), row.get("owner"),
                              row["content_hash"]], kid)
        out = {k: v for k, v in row.items() if k not in ("retention_reason", "owner")}
        out.update(value="", content_hash=_keyed(key, row["content_hash"]),
                   **{CIPHERTEXT: blob})
        return out

    def seal_extra(self, tenant: str, fact_id: str, purpose: str, content: Any) -> str:
        """``content`` (JSON-able) that derives from a sealed fact (its search entry, say),
        sealed under the fact's own key, so that destroying the key erases it too. Bound to
        the fact and ``purpose``: it opens neither as the fact's row nor as another purpose's."""
        kid = key_id(tenant, fact_id)
        return _encrypt(self._key(kid, fact_id), content, f"{kid}\n{purpose}")

    def unseal_extra(self, tenant: str, fact_id: str, purpose: str, blob: str) -> Any | None:
        """What ``seal_extra`` sealed; None once the fact's key is destroyed (the fact reads
        as erased, and this is gone with it)."""
        kid = key_id(tenant, fact_id)
        key = self.keys.get(kid)
        if key is None:
            self._gone(kid, fact_id)
            return None
        return _decrypt(key, blob, f"{kid}\n{purpose}", f"the sealed {purpose} of fact {fact_id}")

    def blind(self, tenant: str, terms: Sequence[str], create: bool = False) -> list[str] | None:
        """Each search term as a full-text index may hold it: an HMAC under the tenant's index
        key (made here when ``create``), so that the text of sealed facts reaches an index's
        files only keyed. Equal terms blind alike within a tenant, so matching still works;
        None when the tenant has no index key yet (nothing was ever indexed under one)."""
        kid = index_key_id(tenant)
        key = self.keys.get(kid)
        if key is None and create:
            self.keys.create([kid])
            key = self.keys.get(kid)
        if key is None:
            return None
        subkey = hmac.new(key, b"vintage search term", hashlib.sha256).digest()
        return [blinded(subkey, t) for t in terms]

    def _key(self, kid: str, fact_id: str) -> bytes:
        key = self.keys.get(kid)
        if key is None:
            raise StoreError(f"no data key for {fact_id} in {self.keys.where}")
        return key

    def _gone(self, kid: str, fact_id: str) -> datetime:
        """When the missing key of ``fact_id`` was destroyed; a key never held is refused."""
        at = self.keys.destroyed(kid)
        if at is None:
            raise KeyUnknown(
                f"fact {fact_id} is sealed under a key that {self.keys.where} never held: "
                "open the store with the key file it was written with (VINTAGE_KEYS)")
        return at

    def unseal(self, tenant: str, row: dict[str, Any]) -> dict[str, Any]:
        """The plain fields of a stored fact. A fact whose key was destroyed (a backup restored
        after its erasure) reads as the erased shell it became, erased when its key was."""
        blob = row.get(CIPHERTEXT)
        out = {k: v for k, v in row.items() if k != CIPHERTEXT}
        if blob is None:
            return out
        kid = key_id(tenant, row["id"])
        key = self.keys.get(kid)
        if key is None:
            at = self._gone(kid, row["id"])
            return {**out, "value": "", "retention_reason": None, "owner": None,
                    "content_hash": ERASED, "erased_at": out.get("erased_at") or at,
                    "invalidated_at": out.get("invalidated_at") or at}
        value, reason, owner, digest = _decrypt(key, blob, kid,
                                                f"the sealed content of fact {row['id']}")
        return {**out, "value": value, "retention_reason": reason, "owner": owner,
                "content_hash": digest}

    def gone(self, tenant: str, fact_ids: Iterable[str]) -> list[str]:
        """The sealed facts among ``fact_ids`` whose key was destroyed: each reads as the
        erased shell it became (``unseal``); told by the key store alone, nothing decrypted.
        A key never held is refused as ``unseal`` refuses it (``KeyUnknown``)."""
        found = []
        for fact_id in fact_ids:
            kid = key_id(tenant, fact_id)
            if self.keys.get(kid) is None:
                self._gone(kid, fact_id)
                found.append(fact_id)
        return found

    def mark(self, tenant: str, fact_ids: Collection[str]) -> None:
        self.keys.mark([key_id(tenant, i) for i in fact_ids])

    def destroy(self, tenant: str, fact_ids: Collection[str], at: datetime) -> None:
        self.keys.destroy([key_id(tenant, i) for i in fact_ids], at)

    def marked(self) -> dict[str, set[str]]:
        """The fact ids marked for destruction, by tenant."""
        found: dict[str, set[str]] = {}
        for kid in self.keys.marked():
            tenant, fact_id = split_key_id(kid)
            found.setdefault(tenant, set()).add(fact_id)
        return found


def _encrypt(key: bytes, content: Any, aad: str) -> str:
    plain = json.dumps(content, separators=(",", ":")).encode("utf-8")
    # Padded to a multiple of 64 bytes: the ciphertext's length tells a short value's
    # length only to within that ("yes" and "no" alike).
    plain = plain.ljust(-(-len(plain) // _PAD) * _PAD)
    nonce = os.urandom(_NONCE_BYTES)
    blob = nonce + _aead(key).encrypt(nonce, plain, aad.encode("utf-8"))
    return base64.b64encode(blob).decode("ascii")


def _decrypt(key: bytes, blob: str, aad: str, what: str) -> Any:
    from cryptography.exceptions import InvalidTag

    raw = base64.b64decode(blob)
    try:
        plain = _aead(key).decrypt(raw[:_NONCE_BYTES], raw[_NONCE_BYTES:], aad.encode("utf-8"))
    except InvalidTag as exc:
        raise StoreError(f"{what} does not authenticate (altered, or moved from another "
                         "fact)") from exc
    return json.loads(plain)


def _aead(key: bytes) -> AESGCM:
    """AES-256-GCM under ``key``; imported on first use, so that a process that seals nothing
    (an SEC ingest) does not pay for loading the library."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    return AESGCM(key)


def _keyed(key: bytes, digest: str) -> str:
    """The content hash as stored: an HMAC under a subkey of the fact's own data key, so it
    neither reverses by dictionary nor outlives the key."""
    subkey = hmac.new(key, b"vintage content hash", hashlib.sha256).digest()
    return hmac.new(subkey, digest.encode("utf-8"), hashlib.sha256).hexdigest()[:32]
