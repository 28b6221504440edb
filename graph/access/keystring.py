"""The API key as a string, and its verifier as stored.

A key reads ``vk_<tenant>_<key_id>_<secret>``: the tenant as lower-case base32 without
padding (a tenant may hold ``_``, base32 cannot, so the three ``_`` separate unambiguously), the
key id ``k`` and 16 hex digits, the secret 64 hex digits (256 random bits). The tenant and id in
the key let a lookup read that tenant's keys only, with no global table. Only a verifier is
stored: scrypt of the whole key string (so that a tenant or id edited in a copied key matches
nothing) under a random 16-byte salt, with its parameters beside it, so that later keys can be
made with higher ones while earlier ones still verify.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass

from vintage.graph.core.model import Value

PREFIX = "vk"
KEY = re.compile(r"^vk_([a-z2-7]{1,208})_(k[0-9a-f]{16})_([0-9a-f]{64})\Z")
TENANT_CHARS = re.compile(r"^[A-Za-z0-9_.:@/-]{1,128}\Z")
MAX_KEY_CHARS = 300
KDF = "scrypt"
# Memory-hard (16 MiB a hash, tens of milliseconds): OWASP's minimum for scrypt. A key is
# random, 256 bits, so the cost protects against nothing a guess could reach; it is kept so that
# a stolen store yields no cheap oracle, and the verified-key cache keeps it off the hot path.
N, R, P, DKLEN, SALT_BYTES = 2**14, 8, 1, 32, 16


@dataclass(frozen=True, slots=True)
class Parsed:
    tenant: str
    key_id: str


def new_key_id() -> str:
    return "k" + secrets.token_hex(8)


def encode_tenant(tenant: str) -> str:
    return base64.b32encode(tenant.encode()).decode().rstrip("=").lower()


def key_string(tenant: str, key_id: str) -> str:
    """A fresh key for ``key_id`` of ``tenant``: the one time its secret exists."""
    return f"{PREFIX}_{encode_tenant(tenant)}_{key_id}_{secrets.token_hex(32)}"


def parse(key: str) -> Parsed | None:
    """The tenant and key id a key names (None: not a key). Only the canonical encoding of a
    tenant parses, so one key has one spelling."""
    if len(key) > MAX_KEY_CHARS:
        return None
    found = KEY.match(key)
    if found is None:
        return None
    encoded, key_id, _ = found.groups()
    try:
        tenant = base64.b32decode(encoded.upper() + "=" * (-len(encoded) % 8)).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None
    if not TENANT_CHARS.match(tenant) or encode_tenant(tenant) != encoded:
        return None
    return Parsed(tenant, key_id)


def verifier(key: str) -> dict[str, Value]:
    """What the store keeps of a new key: the scrypt hash, its salt and its parameters."""
    salt = secrets.token_bytes(SALT_BYTES)
    params: dict[str, Value] = {"kdf": KDF, "n": N, "r": R, "p": P, "dklen": DKLEN,
                                "salt": salt.hex()}
    params["hash"] = _scrypt(key, params).hex()
    return params


def matches(key: str, stored: Mapping[str, Value]) -> bool:
    """Whether ``key`` is the one ``stored`` verifies, compared in constant time."""
    if stored.get("kdf") != KDF:
        return False
    try:
        expected = bytes.fromhex(str(stored["hash"]))
        return hmac.compare_digest(_scrypt(key, stored), expected)
    except (KeyError, ValueError):
        return False


@functools.cache
def _dummy() -> dict[str, Value]:
    return verifier(key_string("-", "k" + "0" * 16))


def burn(key: str) -> None:
    """Spend the time of one verification on a key with no verifier, so that a caller cannot
    time which key ids exist."""
    matches(key, _dummy())


def _scrypt(key: str, params: Mapping[str, Value]) -> bytes:
    n, r, p, dklen = (int(params[k]) for k in ("n", "r", "p", "dklen"))
    return hashlib.scrypt(key.encode(), salt=bytes.fromhex(str(params["salt"])), n=n, r=r,
                          p=p, dklen=dklen, maxmem=2 * 128 * n * r * p + 2**20)
