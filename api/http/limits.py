"""How large a request's head may be, and the answer to one that is larger: 414 for a request
line (a path and query string) over ``MAX_TARGET`` bytes, 431 for a head (request line and
headers) over ``MAX_HEAD`` bytes, each a one-line plain-text body, never a reset connection.

Two places see an oversized head, and both answer the same:

* ``HeadLimits``, an ASGI middleware, for a head that reached the app whole (it arrived in one
  piece: h11 parses a complete head of any size);
* ``BoundedH11``, uvicorn's h11 protocol, for one that h11 refused while still incomplete (its
  buffer holds at most ``MAX_HEAD`` bytes): uvicorn would answer 400 and close at once, and a
  client still sending its 200 KB query string would read the close as a TCP reset (the kernel
  resets a socket closed with unread data). This one answers 414 or 431, shuts its sending side
  and reads and drops what the client still sends for ``LINGER_SECONDS`` before closing, so the
  answer is read (a lingering close, as nginx and Apache do).
"""

from __future__ import annotations

import asyncio
from http import HTTPStatus
from typing import Any

import h11
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

MAX_TARGET = 8 * 1024  # nginx's default large_client_header_buffers line size
MAX_HEAD = 16 * 1024  # h11's own buffer bound (its DEFAULT_MAX_INCOMPLETE_EVENT_SIZE)
LINGER_SECONDS = 2.0
URI_TOO_LONG = (414, f"request line too long: at most {MAX_TARGET} bytes of path and query "
                     "string; send large inputs in a POST body")
HEAD_TOO_LARGE = (431, f"request headers too large: at most {MAX_HEAD} bytes in all")


class HeadLimits:
    """ASGI middleware: refuse an HTTP request whose target or head is over the limits."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = oversized(scope) if scope["type"] == "http" else None
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, message = refusal
        body = message.encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


def oversized(scope: Scope) -> tuple[int, str] | None:
    """The refusal an HTTP scope's head earns, if any."""
    target = len(scope.get("raw_path") or scope["path"].encode()) + len(scope["query_string"])
    if target > MAX_TARGET:
        return URI_TOO_LONG
    head = target + sum(len(k) + len(v) + 4 for k, v in scope["headers"])
    return HEAD_TOO_LARGE if head > MAX_HEAD else None


class BoundedH11(H11Protocol):
    """uvicorn's h11 protocol, answering 414 or 431 (not 400 and a reset) to a head h11 found
    too large before it was complete."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.refused = False

    def send_400_response(self, msg: str) -> None:
        # h11 refuses an incomplete head over its bound; then its buffer holds that head (read
        # through h11's private attribute: h11 keeps its error's 431 hint from uvicorn). A
        # buffer with no line end yet is a request line too long, else headers too large.
        buffered = bytes(getattr(self.conn, "_receive_buffer", b""))
        if len(buffered) <= MAX_HEAD:
            super().send_400_response(msg)
            return
        status, message = URI_TOO_LONG if b"\n" not in buffered else HEAD_TOO_LARGE
        self.logger.warning(message)
        headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close")]
        for event in (h11.Response(status_code=status, headers=headers,
                                   reason=HTTPStatus(status).phrase),
                      h11.Data(data=message.encode()), h11.EndOfMessage()):
            self.transport.write(self.conn.send(event) or b"")
        self.refused = True
        if self.transport.can_write_eof():
            self.transport.write_eof()
        asyncio.get_running_loop().call_later(LINGER_SECONDS, self.transport.close)

    def data_received(self, data: bytes) -> None:
        if self.refused:
            return  # lingering: what the client still sends is read and dropped
        super().data_received(data)

    def eof_received(self) -> None:
        if self.refused:
            self.transport.close()
            return
        super().eof_received()
