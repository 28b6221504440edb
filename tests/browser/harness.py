"""The browser harness: a real `vintage serve` over a fresh embedded store holding the demo's data
(what `make demo` loads) and a second tenant's, keys of both, and Debian's Chromium driven by
Playwright, watched for console errors and failed requests.

Playwright never downloads a browser: it launches ``/usr/bin/chromium`` (`apt-get install
chromium`; `.ci/run` installs it when missing) with a fresh profile, and without Chromium's
background networking (update checks, sync, QUIC probes), which this sandbox refuses.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import ConsoleMessage, Page, Request, Response, ViewportSize

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "build" / "test-artifacts"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")
VIEWPORT: ViewportSize = {"width": 1280, "height": 800}  # the "readable at 1280x800"
OTHER_TENANT = "other"
# The other tenant's figures: a company and values the demo's tenant never holds, so that a
# page or an API response of the demo's tenant showing one is a leak, found by plain search.
OTHER_SUBJECT = "ZZLEAKCO"
OTHER_ROWS = f"""\
subject,predicate,value,unit,period_start,period_end,source_id,available_at,form,source_kind
{OTHER_SUBJECT},us-gaap:Revenues,987654321,USD,2018-01-01,2018-03-31,zz-q1,2018-04-20,8-K,earnings_release
{OTHER_SUBJECT},us-gaap:OperatingIncomeLoss,123456789,USD,2018-01-01,2018-03-31,zz-q1,2018-04-20,8-K,earnings_release
"""
OTHER_VALUES = ("987654321", "123456789", OTHER_SUBJECT)
# User analyst's memories in the demo's tenant: a hotel (a three-day TTL), and a refund
# preference in Chinese (refunds to the original card, never as points).
HOTEL = "the Harbour Inn in Galway"
REFUND = "退款请退回原信用卡，不要换成积分"


@dataclass(frozen=True)
class Explorer:
    """A running `vintage serve` on the demo's data."""

    url: str
    reader: str  # a reader key of the demo's tenant
    analyst: str  # a reader key of the demo's tenant bound to user analyst (the trace's)
    other: str  # a reader key of another tenant, which holds figures of its own
    margin: str  # the GOOGL operating margin of Q1 2018 as known in 2019 (recomputed)
    recast: str  # the 2019 10-Q that recast Q1 2018
    injection: str  # a context built for user analyst: its trace
    hotel: str  # user analyst's hotel, held three days a week ago: expired
    summary: str  # a summary resting on the hotel: marked stale by every read since
    refund: str  # user analyst's refund preference, in Chinese


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def call(url: str, key: str, body: dict[str, Any] | None = None) -> Any:
    """One API call (JSON in, JSON out) with ``key``."""
    data = None if body is None else json.dumps(body).encode()
    sent = urllib.request.Request(url, data=data, headers={
        "Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(sent, timeout=120) as answer:
            return json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        raise AssertionError(f"{url}: {exc.code} {exc.read().decode()[:500]}") from None


def started(store: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    """`vintage serve` on ``store``, listening on ``port``, once it answers."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("VINTAGE_")}
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-c", "from vintage.cli.main import main; main()", "--store",
             str(store), "serve", "--port", str(port), "--log-level", "warning"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"vintage serve exited: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2):
                return server
        except (urllib.error.URLError, OSError):
            time.sleep(0.2)
    stop(server)
    raise AssertionError("vintage serve did not answer within 120 s")


def stop(server: subprocess.Popen[bytes]) -> None:
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def artifact(name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / (re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:120] + ".png")


@dataclass
class Watched:
    """A page and what went wrong on it: console errors, uncaught exceptions, failed requests
    and answers of 400 or more (except the statuses a test says it expects), and every API
    response the page received, kept to be searched for another tenant's values."""

    page: Page
    problems: list[str] = field(default_factory=list)
    responses: list[Response] = field(default_factory=list)  # not read yet
    bodies: list[str] = field(default_factory=list)  # read
    expected: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        self.page.on("requestfailed", self._failed)
        self.page.on("response", self._response)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type != "error":
            return
        # Chromium reports a 4xx it was told to expect as a console error too.
        if any(f"status of {s} " in message.text for s in self.expected):
            return
        self.problems.append(f"console error: {message.text}")

    def _failed(self, request: Request) -> None:
        self.problems.append(f"request failed: {request.method} {request.url} "
                             f"({request.failure})")

    def _response(self, response: Response) -> None:
        if "/v1/" in response.url:
            self.responses.append(response)
        if response.status >= 400 and response.status not in self.expected:
            self.problems.append(f"answer {response.status}: {response.request.method} "
                                 f"{response.url}")

    def api_bodies(self) -> list[str]:
        """The text of every API response the page received so far. The browser drops a
        document's bodies when it navigates to another: ``goto`` reads them first."""
        pending, self.responses = self.responses, []
        for response in pending:
            try:
                self.bodies.append(response.text())
            except Exception as exc:  # a body the browser dropped is a problem too
                self.problems.append(f"unreadable response {response.url}: {exc}")
        return list(self.bodies)

    def goto(self, url: str) -> Response | None:
        """``page.goto``, once the current document's API answers are read."""
        self.api_bodies()
        return self.page.goto(url)
