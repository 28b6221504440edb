"""The HTTP side of ``vintage --server`` (``vintage.client.commands``): one server, one key, one
request at a time, with the standard library only. A problem+json answer becomes the exception the
command line maps to its exit code: ``ServerRefused`` (a ``UserError``: exit 2) for 4xx,
``StoreUnreachable`` (exit 69) for 503 or no answer, ``RuntimeError`` (exit 70) otherwise.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from vintage.graph.core.errors import InvalidArgument, UserError
from vintage.graph.core.temporal import parse_instant
from vintage.graph.store.protocol import StoreUnreachable

TIMEOUT_SECONDS = 60.0
PAGE = 1000  # the API's largest page: the local commands print every item, so fetch them all


class ServerRefused(UserError):
    """The server answered with a problem: said in one line, its title then its detail."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class Remote:
    """One server and one key."""

    def __init__(self, server: str, key: str | None) -> None:
        try:
            parsed = urllib.parse.urlsplit(server)
            parsed.port  # noqa: B018 (reading it is the check: a port outside 0-65535 raises)
        except ValueError:
            parsed = None
        if "@" in server:  # a base URL has no use for one: only user:password@ puts it there
            # Never repeated: the URL is named by every error about the server.
            raise InvalidArgument("--server carries a user name or password: the API key "
                                  "(--key or VINTAGE_KEY) is the only credential")
        if parsed is None or parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise InvalidArgument(f"--server {server[:80]!r}: an http:// or https:// URL")
        if not key:
            raise InvalidArgument("--server needs an API key: --key or VINTAGE_KEY")
        self.base = server.rstrip("/")
        self.key = key

    def call(self, method: str, path: str, *, body: dict[str, Any] | None = None,
             query: dict[str, Any] | None = None) -> Any:
        """The decoded JSON answer of a 2xx; a problem raises (module docstring)."""
        return json.loads(self.send(method, path, body=body, query=query) or b"null")

    def text(self, path: str, query: dict[str, Any] | None = None) -> str:
        """A GET whose answer is not JSON (GraphML), as text."""
        return self.send("GET", path, query=query, accept="*/*").decode()

    def pages(self, path: str, query: dict[str, Any]) -> Iterator[Any]:
        """Every item of a paginated list, page after page (one snapshot: the cursor pins it)."""
        query = dict(query) | {"limit": PAGE}
        while True:
            page = self.call("GET", path, query=query)
            yield from page["items"]
            if not page.get("next_cursor"):
                return
            query["cursor"] = page["next_cursor"]

    def upload(self, path: str, file: Path, query: dict[str, Any]) -> Any:
        """POST the file itself as the body, streamed from disk (never read whole)."""
        with file.open("rb") as body:
            return json.loads(self.send("POST", path, query=query, raw=body,
                                        length=file.stat().st_size) or b"null")

    def send(self, method: str, path: str, *, body: dict[str, Any] | None = None,
             query: dict[str, Any] | None = None, accept: str = "application/json",
             raw: BinaryIO | None = None, length: int = 0) -> bytes:
        url = self.base + path
        if query:
            url += "?" + urllib.parse.urlencode(dropped_none(query), doseq=True)
        data = None if body is None else json.dumps(dropped_none(body)).encode()
        # A known length: http.client sends a file in blocks under it, not chunked.
        kind = ({"Content-Type": "application/json"} if data is not None else
                {"Content-Type": "application/octet-stream", "Content-Length": str(length)}
                if raw is not None else {})
        request = urllib.request.Request(url, data=raw if raw is not None else data,
                                         method=method, headers={
            "Authorization": f"Bearer {self.key}", "Accept": accept, **kind})
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:
                read: bytes = answer.read()
                return read
        except urllib.error.HTTPError as exc:
            raise problem_error(exc.code, exc.read()) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            raise StoreUnreachable(f"the server {self.base} did not answer: "
                                   f"{getattr(exc, 'reason', exc)}") from None


def problem_error(status: int, raw: bytes) -> Exception:
    try:
        problem = json.loads(raw)
    except ValueError:
        problem = {}
    if not isinstance(problem, dict):
        problem = {}
    title = str(problem.get("title") or f"HTTP {status}")
    detail = problem.get("detail")
    said = f"{title}: {detail}" if detail else title
    if status == 503:
        return StoreUnreachable(f"the server's store does not answer: {said}")
    if status >= 500:
        return RuntimeError(f"the server failed ({status}): {said}")
    error = ServerRefused(f"{said} (HTTP {status})", status)
    error.problem = problem  # type: ignore[attr-defined]
    return error


def segment(text: str) -> str:
    """An id as one path segment: a '/' or '?' in it is data, not structure."""
    return urllib.parse.quote(text, safe="")


def dropped_none(fields: dict[str, Any]) -> dict[str, Any]:
    """What the request says: an option not given (None, an empty repeatable) is left out."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in fields.items()
            if v is not None and not (isinstance(v, list | tuple) and not v)}


def instant(text: str | None, name: str) -> str | None:
    return parse_instant(text, name).isoformat() if text else None


def scoped(p: dict[str, Any]) -> dict[str, Any]:
    return {"user": p.get("user"), "project": p.get("project"), "thread": p.get("thread")}
