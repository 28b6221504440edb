"""``vintage context | used | trace`` on both backends: the pack printed exactly as counted, the
items an agent used, and the trace's verdicts; refusals are one line and exit 2."""

from __future__ import annotations

import json
import re

import pytest

from tests.factories import run
from vintage.graph.retrieval.counting import token_counter

SAID = ["--source-kind", "user_message", "--observed-at", "2026-05-01T10:00:00Z",
        "--owner", "user:42", "--reason", "asked us to remember", "--user", "42"]


def remember(store_args: list[str], capsys: pytest.CaptureFixture[str],
             monkeypatch: pytest.MonkeyPatch, key: str, value: str, source: str) -> str:
    code, out, err = run([*store_args, "remember", "preference", "user:42", key, value,
                          "--source-id", source, *SAID, "--json"], capsys, monkeypatch)
    assert code == 0, err
    return str(json.loads(out)["memory"])


def test_a_context_prints_its_pack_then_used_and_trace_tell_what_became_of_each_item(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    office = remember(store_args, capsys, monkeypatch, "shipping.preference",
                      "ship to the office", "msg-1")
    euros = remember(store_args, capsys, monkeypatch, "constraint.currency", "euros only",
                     "msg-2")
    code, out, err = run([*store_args, "context", "--query", "where to ship", "--budget", "400",
                          "--user", "42", "--for-thread", "th1"], capsys, monkeypatch)
    assert code == 0, err
    text = out.removesuffix("\n")
    assert token_counter().count(text) <= 400
    # stdout is the pack alone; what it cost is on stderr: the total, the header, each item
    spent = re.fullmatch(r"tokens: (\d+) of 400: header (\d+), items (.+)\n", err)
    assert spent is not None, err
    items = dict(part.rsplit(" ", 1) for part in spent.group(3).split(", "))
    assert int(spent.group(1)) == token_counter().count(text) == \
        int(spent.group(2)) + sum(int(n) for n in items.values())
    assert set(items) == {office, euros}
    lines = text.splitlines()
    assert lines[0] == "# Context for thread th1" and lines[3].endswith(f"explain {euros}")
    assert 'user:42 shipping.preference = "ship to the office" | active' in text
    found = re.search(r"^injection (e[0-9a-f]+);", lines[1], re.MULTILINE)
    assert found is not None
    injection = found.group(1)
    code, out, err = run([*store_args, "used", injection, office, "--json"], capsys,
                         monkeypatch)
    assert code == 0, err
    assert json.loads(out)["items"] == [office]
    code, out, err = run([*store_args, "trace", injection, "--item", office, "--item", euros,
                          "--item", "k-none.r1", "--json"], capsys, monkeypatch)
    assert code == 0, err
    shown = json.loads(out)
    assert [(i["id"], i["verdict"]) for i in shown["items"]] == [
        (office, "used"), (euros, "seen but unused"), ("k-none.r1", "not saved")]
    assert shown["trace"]["final"] == [euros, office] and shown["used"] == [office]
    code, out, err = run([*store_args, "trace", injection, "--item", office], capsys,
                         monkeypatch)
    assert code == 0 and f"{office}: used" in out and "ship to the office" not in out, err


@pytest.mark.parametrize(("args", "message"), [
    (["context", "--query", "ship", "--budget", "30", "--user", "42", "--for-thread", "t"],
     "error: a budget of 30 tokens cannot hold even the context's header"),
    (["context", "--query", "ship", "--budget", "300", "--user", "42"],
     "error: a context is built for a thread: give --for-thread"),
    (["context", "--query", "ship", "--budget", "300", "--for-thread", "t", "--user", "4 2"],
     "error: "),
    (["trace", "e-none"], "error: no injection 'e-none' in this tenant"),
    (["used", "e-none", "k1.r1"], "error: no injection 'e-none' in this tenant"),
])
def test_a_refused_context_trace_or_use_is_one_line_and_exit_2(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, args: list[str], message: str,
) -> None:
    remember(store_args, capsys, monkeypatch, "shipping.preference", "ship to the office",
             "msg-1")
    code, out, err = run([*store_args, *args], capsys, monkeypatch)
    assert (code, out) == (2, "") and err.startswith(message) and len(err.splitlines()) == 1
