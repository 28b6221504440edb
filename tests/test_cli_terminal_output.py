"""Terminal output is data, not markup (issue 12, point 8), on both backends, at 80 columns.

A value that looks like rich markup (``[/]``, ``[red]ribbon[/red]``, ``[link=...]``) prints as
written and never crashes a command; an escape sequence or any other control character in a
value or an id is shown (``\\x1b``), never sent to the terminal; a table folds an id that does
not fit instead of cutting it with an ellipsis."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from tests.factories import run
from vintage.graph.core.kinds import FactKind, SourceKind
from vintage.graph.core.model import FactIn, Scope, SourceIn, Subject
from vintage.graph.core.temporal import parse_instant
from vintage.graph.store.backends import open_store
from vintage.graph.writes.semantics import Batch, record
from vintage.render.terminal import table

COLUMNS = 80
SAID = ["--source-kind", "user_message", "--observed-at", "2026-05-01T10:00:00Z",
        "--owner", "user:42", "--reason", "asked us to remember", "--user", "42"]
MARKUP = ["[/]", "[/b]", "[red]ribbon[/red]", "[link=https://evil.example]click[/link]",
          ":warning: [bold]"]
# ESC (a colour and a clear-screen sequence), an OSC 8 hyperlink, C1 CSI, DEL, CR, a bidi override.
ESC, OSC_LINK, CSI, DEL, CR, RLO = "\x1b", "\x1b]8;;https://evil.example\x07", "\x9b", "\x7f", \
    "\r", "\u202e"


def vintage(store_args: list[str], capsys: pytest.CaptureFixture[str],
            monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    code, out, err = run([*store_args, *args], capsys, monkeypatch, columns=COLUMNS)
    assert_no_raw_controls(out + err)
    return code, out, err


def assert_no_raw_controls(text: str) -> None:
    raw = sorted({f"U+{ord(c):04X}" for c in text
                  if (ord(c) < 0x20 and c not in "\n") or 0x7F <= ord(c) < 0xA0
                  or c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"})
    assert not raw, f"control characters reached the terminal: {raw}"


def column(table: str, index: int) -> str:
    """The text of one column of a rich table, its folded pieces joined, row after row."""
    body = table.split("┡", 1)[1].splitlines()[1:]
    return "".join(line.split("│")[index].strip() for line in body if line.startswith("│"))


def field(out: str, header: str) -> str:
    """The values of ``header`` in a table printed row by row as labelled lines (a screen too
    narrow for it: ``vintage.render.terminal.Fitted``), their wrapped pieces joined, block
    after block."""
    found, width = [], None
    for line in out.splitlines():
        if line.startswith(header + "  "):
            width = len(line) - len(line[len(header):].lstrip(" "))
            found.append(line[width:].rstrip())
        elif width is not None and line[:width].strip() == "" and line.strip():
            found.append(line[width:].rstrip())
        else:
            width = None
    return "".join(found)


def remember(store_args: list[str], capsys: pytest.CaptureFixture[str],
             monkeypatch: pytest.MonkeyPatch, key: str, value: str, source: str,
             subject: str = "user:42") -> None:
    code, _, err = vintage(store_args, capsys, monkeypatch, "remember", "preference", subject,
                           key, value, "--source-id", source, *SAID)
    assert code == 0, err


def test_values_that_look_like_markup_print_as_written_in_memories_summarise_and_context(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for i, value in enumerate(MARKUP):
        remember(store_args, capsys, monkeypatch, f"k{i}", value, f"m{i}")
    code, out, _ = vintage(store_args, capsys, monkeypatch, "memories", "user:42", "--user",
                           "42", "--json")
    listed = json.loads(out)
    assert sorted(m["value"] for m in listed) == sorted(MARKUP)
    code, out, err = vintage(store_args, capsys, monkeypatch, "memories", "user:42", "--user",
                             "42")
    assert code == 0, err
    assert "┡" not in out  # too narrow for the table: a block per memory
    assert field(out, "id") == "".join(m["id"] for m in listed) and "…" not in out
    assert field(out, "value").replace(" ", "") == "".join(m["value"].replace(" ", "")
                                                           for m in listed)
    code, out, err = vintage(store_args, capsys, monkeypatch, "summarise", "user:42", "--user",
                             "42")
    assert code == 0, err
    assert all(f"k{i}: {value}" in out.splitlines() for i, value in enumerate(MARKUP))
    code, out, err = vintage(store_args, capsys, monkeypatch, "context", "--query", "markup",
                             "--budget", "4000", "--user", "42", "--for-thread", "th1")
    assert code == 0, err
    for m in listed:
        assert (f"user:42 {m['key']} = {json.dumps(m['value'])} | active | observed "
                f"2026-05-01T10:00:00Z | source m") in out
        assert f"| explain {m['id']}" in out
    code, out, _ = vintage(store_args, capsys, monkeypatch, "audit", "--json")
    assert [e["action"] for e in json.loads(out)].count("derive") == 1  # written once


def test_a_conflicted_flag_is_shown_in_the_context(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tool = ["--source-kind", "tool_result", "--source-version", "v3", "--observed-at",
            "2026-05-01T10:00:00Z", "--owner", "ops", "--reason", "plan", "--project", "alpha"]
    for value, source in (("enterprise", "crm-1"), ("[team]", "billing-1")):
        vintage(store_args, capsys, monkeypatch, "tools", "register", source)
        vintage(store_args, capsys, monkeypatch, "remember", "fact", "account:7", "plan",
                value, "--source-id", source, *tool)
    code, out, err = vintage(store_args, capsys, monkeypatch, "context", "--query", "plan",
                             "--budget", "2000", "--project", "alpha", "--for-thread", "th1")
    assert code == 0, err
    lines = [line.split("] ", 1)[1] for line in out.splitlines() if " account:7 plan = " in line]
    assert sorted(line.split(" | ")[0] + " | " + line.split(" | ")[1][:len("conflicted with [")]
                  for line in lines) == ['account:7 plan = "[team]" | conflicted with [',
                                         'account:7 plan = "enterprise" | conflicted with [']
    code, out, err = vintage(store_args, capsys, monkeypatch, "review", "--project", "alpha")
    assert code == 0 and "[team] (" in out, err


def test_a_subject_that_looks_like_a_link_is_printed_as_text(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    subject = "acct:[link=https://evil.example]7[/link]"
    remember(store_args, capsys, monkeypatch, "k", "v", "m1", subject=subject)
    code, out, err = vintage(store_args, capsys, monkeypatch, "memories", subject, "--user",
                             "42")
    assert code == 0, err
    assert f"memories of {subject}" in out


def test_control_characters_are_refused_in_one_line_and_bidi_controls_shown_escaped(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A memory's text holds no control character (refused before any gate, in one line that
    sends none to the terminal); a bidi override, which text may hold, is shown, not obeyed,
    in a table, in a context pack and kept exact in --json."""
    code, out, err = vintage(store_args, capsys, monkeypatch, "remember", "preference",
                             "user:42", f"k{ESC}[2J", f"red{ESC}[31m {OSC_LINK}x {CSI}31m{DEL}",
                             "--source-id", f"m{ESC}[1m", *SAID)
    assert (code, out) == (2, "") and err.count("\n") == 1 and "control character" in err
    assert ESC not in err and "\\x1b" not in err  # the refused text is not repeated
    value = f"red over write {RLO}txt"
    remember(store_args, capsys, monkeypatch, "k", value, "m1")
    code, out, err = vintage(store_args, capsys, monkeypatch, "memories", "user:42", "--user",
                             "42")
    assert code == 0, err
    assert "\\u202etxt" in out  # shown (vintage() checks that no raw control reached it)
    code, out, err = vintage(store_args, capsys, monkeypatch, "context", "--query", "red",
                             "--budget", "2000", "--user", "42", "--for-thread", "th1")
    assert code == 0 and 'user:42 k = "red over write \\u202etxt" | active' in out, err
    code, out, err = vintage(store_args, capsys, monkeypatch, "memories", "user:42", "--user",
                             "42", "--json")
    (listed,) = json.loads(out)
    assert listed["value"] == value  # --json keeps the exact text
    for args in (["forget", "--subject", "user:42", "--key", "k", "--user", "42", "--reason",
                  f"asked {ESC}[2J"], ["audit", "--since", f"{ESC}[2J[/]"]):
        code, out, err = vintage(store_args, capsys, monkeypatch, *args)
        assert code == 2 and ESC not in err, err


def test_control_characters_a_store_already_holds_are_shown_never_sent_to_the_terminal(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A store written before control characters were refused holds what it holds, and a read
    never re-checks it: written here below the write gate, each is shown as an escape, in a
    table and in a context pack, and kept exact in --json."""
    value = f"red{ESC}[31m {OSC_LINK}x {CSI}31m{DEL} over{CR}write {RLO}txt"
    store = open_store(store_args[1])
    try:
        record(store, Scope(tenant=store_args[3], keys={"user": "42"}), Batch(
            subjects=[Subject(id="user:42", kind="user")],
            sources=[SourceIn(id="m-old", kind=SourceKind.USER_MESSAGE,
                              available_at=parse_instant("2026-05-01T10:00:00Z"))],
            facts=[FactIn(subject="user:42", predicate="note", value=value,
                          valid_from=parse_instant("2026-05-01T10:00:00Z"),
                          kind=FactKind.PREFERENCE, source="m-old", owner="user:42",
                          retention_reason="asked")]), actor="test")
    finally:
        store.close()
    code, out, err = vintage(store_args, capsys, monkeypatch, "memories", "user:42", "--user",
                             "42")
    assert code == 0, err
    shown = ("red\\x1b[31m \\x1b]8;;https://evil.example\\x07x \\x9b31m\\x7f "
             "over\\x0dwrite \\u202etxt")
    assert field(out, "value").replace(" ", "") == shown.replace(" ", "")
    code, out, err = vintage(store_args, capsys, monkeypatch, "context", "--query", "red",
                             "--budget", "2000", "--user", "42", "--for-thread", "th1")
    packed = (r'note = "red\u001b[31m \u001b]8;;https://evil.example\u0007x '
              r'\u009b31m\u007f over\rwrite \u202etxt" | active')
    assert code == 0 and f"user:42 {packed}" in out, err
    code, out, err = vintage(store_args, capsys, monkeypatch, "memories", "user:42", "--user",
                             "42", "--json")
    (listed,) = json.loads(out)
    assert listed["value"] == value


def test_the_error_handler_prints_a_refused_value_escaped_on_one_line(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for hostile in ("[/]", f"[red]x{ESC}[2J"):
        code, _, err = vintage(store_args, capsys, monkeypatch, "audit", "--since", hostile)
        assert code == 2 and "internal error" not in err
        assert len(err.strip().splitlines()) == 1
        assert (hostile.replace(ESC, "\\x1b") in err), err


def test_a_refused_csv_value_that_looks_like_markup_is_quoted_in_the_error(
    store_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = tmp_path / "kpis.csv"
    table.write_text("subject,predicate,value,unit,period_start,period_end,source_id,"
                     f"available_at\nACME,kpi:x,[/]{ESC}[2J,USD,2024-01-01,2024-03-31,s1,"
                     "2024-04-30\n", encoding="utf-8")
    code, _, err = vintage(store_args, capsys, monkeypatch, "ingest", "facts", str(table))
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "[/]\\x1b[2J" in err and "internal error" not in err


def test_a_table_too_wide_for_80_columns_cuts_nothing_and_breaks_no_header_or_date(
    store_args: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = "us-gaap:CostOfGoodsAndServicesSoldDepreciationAndAmortization"
    remember(store_args, capsys, monkeypatch, key, "v", "m1")
    remember(store_args, capsys, monkeypatch, "seat", "aisle", "m2")
    code, out, err = vintage(store_args, capsys, monkeypatch, "memories", "user:42", "--user",
                             "42")
    assert code == 0, err
    lines = out.splitlines()
    assert max(map(len, lines)) <= COLUMNS
    # Every header whole at the start of a line, once per memory; each instant on one line.
    for header in ("id", "key", "value", "kind", "status", "known from", "why kept"):
        assert sum(line.startswith(header + "  ") for line in lines) == 2, header
    assert field(out, "known from") == "2026-05-01T10:00:00+00:00" * 2
    assert key in field(out, "key") and "…" not in out  # the long key folded, not cut
    assert field(out, "value") in ("vaisle", "aislev")  # one block each


@pytest.mark.parametrize("width", [64, 65])
def test_a_table_is_a_table_where_its_longest_words_fit_and_labelled_lines_where_not(
    width: int,
) -> None:
    grid = table("t", "id", "valid")
    grid.add_row("k" * 36, "2013-01-01..2014-01-01")
    screen = Console(width=width, record=True, file=io.StringIO())
    screen.print(grid)
    shown = screen.export_text()
    # 36 + 22 characters, a space each side of each and three rules: 65 columns.
    if width >= 65:
        assert "┡" in shown and column(shown, 2) == "2013-01-01..2014-01-01"
    else:
        assert "┡" not in shown
        assert [line.rstrip() for line in shown.splitlines()[2:4]] == [
            "id     " + "k" * 36, "valid  2013-01-01..2014-01-01"]
