"""The kinds of refusal, and which exception is which: shared by the HTTP service
(``vintage.http.problems``, RFC 9457 problem details) and the MCP server (a tool error's one
line), so both interfaces say the same. Imports neither FastAPI nor a database driver:
``vintage mcp`` on an embedded store loads neither (issue 39: the time to its first answer)."""

from __future__ import annotations

from dataclasses import dataclass

from vintage.graph.access import Forbidden, OutOfReach, Unauthorized
from vintage.graph.core.errors import UserError
from vintage.graph.embedded.log import LogCorrupt, StoreLocked
from vintage.graph.neo4j.memory import TransactionTooLarge
from vintage.graph.sealing.keyfile import KeyFileCorrupt
from vintage.graph.store.protocol import (
    ConflictError,
    CrossTenant,
    Refused,
    StoreUnreachable,
    UnknownReference,
)

BASE = "https://vintage.dev/problems/"


@dataclass(frozen=True)
class Kind:
    status: int
    slug: str
    title: str

    @property
    def type(self) -> str:
        return BASE + self.slug


INVALID = Kind(400, "invalid-argument", "The request was refused")
UNAUTHORIZED = Kind(401, "unauthorized", "No valid API key")
FORBIDDEN = Kind(403, "forbidden", "The key may not do this")
NOT_FOUND = Kind(404, "not-found", "No such resource")
CONFLICT = Kind(409, "conflict", "Another revision than expected")
PRECONDITION = Kind(412, "precondition-failed", "If-Match names a stale revision")
TOO_LARGE = Kind(413, "payload-too-large", "The upload is larger than the server accepts")
VALIDATION = Kind(422, "validation-error", "The request does not match its schema")
REFUSED = Kind(422, "refused", "The store refused the write")
MEMORY_REFUSED = Kind(422, "memory-refused", "The memory gate refused the write")
MEMORY_CONFLICT = Kind(409, "memory-conflict", "Equal authority disagrees: held for review")
UNAVAILABLE = Kind(503, "store-unavailable", "The store does not answer; try again later")
# The server's configuration, not the request, is at fault: the detail names what to raise.
STORE_MEMORY = Kind(507, "store-memory", "The store's memory is too small for this request")
INTERNAL = Kind(500, "internal", "Internal error")

# Most specific first: the first class an exception is an instance of decides.
PROBLEMS: tuple[tuple[type[BaseException], Kind], ...] = (
    (StoreUnreachable, UNAVAILABLE),
    (StoreLocked, UNAVAILABLE),  # another process holds the embedded store
    (LogCorrupt, INTERNAL),  # the server's own files: nothing the caller can fix
    (KeyFileCorrupt, INTERNAL),
    (Unauthorized, UNAUTHORIZED),
    (OutOfReach, NOT_FOUND),  # another tenant's: as if it did not exist
    (Forbidden, FORBIDDEN),
    (CrossTenant, NOT_FOUND),  # never says that the id exists in another tenant
    (UnknownReference, NOT_FOUND),
    (ConflictError, CONFLICT),
    (Refused, REFUSED),
    (TransactionTooLarge, STORE_MEMORY),
    (UserError, INVALID),
)
# Their message could name a server address (with its credentials), a path or another tenant:
# the title says enough.
_UNSAID = (StoreUnreachable, StoreLocked, CrossTenant, OutOfReach, LogCorrupt, KeyFileCorrupt)


def kind_of(exc: BaseException) -> Kind:
    return next((kind for cls, kind in PROBLEMS if isinstance(exc, cls)), INTERNAL)


def detail_of(exc: BaseException) -> str | None:
    """What a client is told of a refusal: its message, unless it may name what it must not."""
    return None if isinstance(exc, _UNSAID) else str(exc)
