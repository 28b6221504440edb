"""A TTL is bounded (issue 12, point 6): 1 second to 100 years. Beyond that, ``--ttl`` is a
one-line error (exit 2) that writes nothing, never an overflow's traceback; both backends."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from tests.factories import run
from vintage.graph.core.temporal import parse_instant
from vintage.graph.memory.gate import MAX_TTL_SECONDS

TASK = ["remember", "task_state", "user:42", "goal", "ship the order", "--source-kind",
        "user_message", "--source-id", "msg-1", "--observed-at", "2026-05-01T00:00:00Z",
        "--owner", "user:42", "--reason", "the task", "--user", "42", "--thread", "th1"]


@pytest.mark.parametrize("ttl", ["1000000000000000", str(MAX_TTL_SECONDS + 1), "0", "-5"])
def test_a_ttl_outside_one_second_to_100_years_is_a_one_line_error_and_writes_nothing(
    store_args: list[str], ttl: str,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run([*store_args, *TASK, "--ttl", ttl], capsys, monkeypatch)
    assert code == 2, err
    assert err.startswith("error: ttl_seconds: a TTL is 1 to 3155760000 seconds (100 years)")
    assert len(err.strip().splitlines()) == 1 and "internal error" not in err
    code, out, _ = run([*store_args, "audit", "--json"], capsys, monkeypatch)
    assert code == 0 and json.loads(out) == []


def test_a_ttl_of_exactly_100_years_is_kept_and_expires_then(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, _, err = run([*store_args, *TASK, "--ttl", str(MAX_TTL_SECONDS)], capsys, monkeypatch)
    assert code == 0, err
    code, out, _ = run([*store_args, "memories", "user:42", "--thread", "th1", "--user", "42",
                        "--at", "2026-05-02T00:00:00Z", "--json"], capsys, monkeypatch)
    (kept,) = json.loads(out)
    expected = parse_instant("2026-05-01") + timedelta(seconds=MAX_TTL_SECONDS)
    assert parse_instant(kept["expires_at"]) == expected  # 2126-05-02: 365.25-day years
