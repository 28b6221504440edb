"""Where ``vintage serve`` and ``vintage mcp --transport http`` listen: checked before the
server starts, so that an address the machine does not have or a port another process holds is
one line (exit 2), not uvicorn's startup log followed by its error and exit 1 or 3."""

from __future__ import annotations

import socket
from enum import StrEnum

from vintage.graph.core.errors import InvalidArgument


class LogLevel(StrEnum):
    """What ``vintage mcp`` logs on stderr (the MCP SDK's levels, and uvicorn's over HTTP)."""

    DEBUG = "debug"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    CRITICAL = "critical"


class ServeLogLevel(StrEnum):
    """What ``vintage serve`` logs on stderr: uvicorn's levels, ``trace`` included."""

    TRACE = "trace"
    DEBUG = "debug"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    CRITICAL = "critical"


def check_listen(host: str, port: int) -> None:
    """Refuse in one line an address this process could not listen on. The probe socket is
    closed again at once; the server binds its own (a port taken in between is still its
    error)."""
    shown = f"{host[:80]}:{port}"
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        why = exc.strerror if isinstance(exc, socket.gaierror) else "not a host name"
        raise InvalidArgument(f"cannot listen on {shown}: {why}") from None
    family, kind, proto, _, address = found[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        try:
            probe.bind(address)
        except OSError as exc:
            raise InvalidArgument(f"cannot listen on {shown}: {exc.strerror or exc}") from None
