"""Principals and API keys: who a request comes from, and what that allows it.

``principal`` (roles, the principal a key names, its errors), ``keystring`` (the key's format
and its stored verifier), ``keys`` (create, verify, revoke, list: stored as the tenant's
events), ``cache`` (keys verified a moment ago), ``authority`` (what a principal may write and
read). The command line on a local store is the owner and uses no key; a service verifies one
per request and acts as its principal.
"""

from vintage.graph.access.authority import check_exit, check_read, check_write, within
from vintage.graph.access.cache import VERIFIED, KeyCache
from vintage.graph.access.keys import KeyInfo, create_key, list_keys, revoke, verify
from vintage.graph.access.principal import Forbidden, OutOfReach, Principal, Role, Unauthorized

__all__ = [
    "VERIFIED", "Forbidden", "KeyCache", "KeyInfo", "OutOfReach", "Principal", "Role",
    "Unauthorized", "check_exit", "check_read", "check_write", "create_key", "list_keys",
    "revoke", "verify", "within",
]
