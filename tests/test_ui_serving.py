"""`vintage serve` serves the explorer's built pages at /ui (docs/explorer.md): files only, no key
asked for them, a Content-Security-Policy of this origin alone on every /ui response, and a
page that says to run `make ui` (in English and Chinese) where the assets were never built.

The pages here are a placeholder written by the test, never the product's: the product's are
built by `make ui` (tests/browser drives them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.factories import PinnedClock
from tests.http_api import opener
from vintage.http.app import create_app
from vintage.ui import CSP, NOT_BUILT, NOT_BUILT_ZH

PLACEHOLDER = "<!doctype html><title>placeholder</title><script src=/ui/assets/app.js></script>"


def client(tmp_path: Path, request: pytest.FixtureRequest, assets: Path) -> TestClient:
    return TestClient(create_app(opener("embedded", PinnedClock(), tmp_path, request),
                                 ui=assets), follow_redirects=False)


@pytest.fixture
def built(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[TestClient]:
    assets = tmp_path / "static"
    (assets / "assets").mkdir(parents=True)
    (assets / "index.html").write_text(PLACEHOLDER, encoding="utf-8")
    (assets / "assets" / "app.js").write_text("document.title = 'ok';", encoding="utf-8")
    with client(tmp_path, request, assets) as served:
        yield served


def test_the_pages_are_served_without_a_key_under_a_self_only_policy(
        built: TestClient) -> None:
    page = built.get("/ui/")
    assert page.status_code == 200 and page.text == PLACEHOLDER
    script = built.get("/ui/assets/app.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    for response in (page, script):
        assert response.headers["content-security-policy"] == CSP
        assert response.headers["x-content-type-options"] == "nosniff"
    policy = dict(part.strip().split(" ", 1) for part in CSP.split(";"))
    assert policy["default-src"] == policy["script-src"] == policy["connect-src"] == "'self'"
    assert "http" not in CSP and "unsafe" not in CSP  # no other origin, no inline script


def test_ui_without_its_slash_leads_to_the_page_and_a_missing_file_is_404(
        built: TestClient) -> None:
    bare = built.get("/ui")
    assert bare.status_code in (307, 308) and bare.headers["location"].endswith("/ui/")
    assert built.get("/ui/assets/nothing.js").status_code == 404


def test_the_api_and_its_docs_keep_their_own_headers(built: TestClient) -> None:
    assert "content-security-policy" not in built.get("/healthz").headers
    docs = built.get("/docs")
    assert docs.status_code == 200 and "content-security-policy" not in docs.headers
    assert built.get("/v1/facts/x/versions").status_code == 401  # the API still asks a key


def test_without_built_assets_every_ui_page_says_to_run_make_ui(
        tmp_path: Path, request: pytest.FixtureRequest) -> None:
    with client(tmp_path, request, tmp_path / "never-built") as served:
        for path in ("/ui", "/ui/", "/ui/assets/index.js"):
            page = served.get(path)
            assert page.status_code == 503, path
            assert NOT_BUILT in page.text and NOT_BUILT_ZH in page.text
            assert page.headers["content-security-policy"] == CSP
        assert served.get("/healthz").status_code == 200
