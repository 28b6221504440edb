"""The lineage explorer's pages at ``/ui`` (docs/explorer.md): static files the package ships,
built from ``api/ui/web`` by ``make ui`` into ``api/ui/static/`` (git-ignored build output; the
wheel carries it as package data).

The pages call the API with the key the user enters and hold no server logic of their own, so
serving them is only files: no key is asked for a file (they hold no data), nothing is loaded
from another origin, and every response under ``/ui`` carries a Content-Security-Policy that
allows this origin alone (no inline script, no CDN, no frame). A checkout where the assets were
never built answers every ``/ui`` page with a one-line page (English and Chinese) that says to
run ``make ui``, never a bare 404.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

PREFIX = "/ui"
ASSETS = Path(__file__).parent / "static"
NOT_BUILT = "the explorer's assets are not built: run make ui"
NOT_BUILT_ZH = "浏览器端的资源尚未构建：请运行 make ui"
# Self only: scripts, styles, images, fonts and API calls from this origin; data: images for
# the graph library's canvas exports; no plugin, no framing, no form posted elsewhere.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
       "frame-ancestors 'none'; form-action 'none'")
HEADERS = ((b"content-security-policy", CSP.encode()),
           (b"x-content-type-options", b"nosniff"),
           (b"referrer-policy", b"no-referrer"))


class Guarded:
    """ASGI middleware: the explorer's security headers on every response under ``/ui``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path != PREFIX and not path.startswith(PREFIX + "/"):
            await self.app(scope, receive, send)
            return

        async def send_guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                named = {name for name, _ in HEADERS}
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in named]
                message = {**message, "headers": [*kept, *HEADERS]}
            await send(message)

        await self.app(scope, receive, send_guarded)


def not_built_page() -> HTMLResponse:
    body = ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>Vintage explorer: not built</title></head><body>"
            f"<p id=\"not-built\">{NOT_BUILT}</p><p lang=\"zh\">{NOT_BUILT_ZH}</p>"
            "</body></html>")
    return HTMLResponse(body, status_code=503)


def mount(app: FastAPI, assets: Path | None = None) -> None:
    """Serve the explorer from ``assets`` (default: the package's built ones) at ``/ui``."""
    folder = assets or ASSETS
    app.add_middleware(Guarded)
    if (folder / "index.html").is_file():
        # html=True: /ui/ answers index.html; the app routes by the URL's #fragment, so no
        # other path needs a fallback.
        app.mount(PREFIX, StaticFiles(directory=folder, html=True), name="ui")
        return

    async def not_built(path: str = "") -> HTMLResponse:
        return not_built_page()

    for route in (PREFIX, PREFIX + "/", PREFIX + "/{path:path}"):
        app.add_api_route(route, not_built, methods=["GET"], include_in_schema=False)
