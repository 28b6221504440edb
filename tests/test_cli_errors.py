"""How ``vintage`` ends: a refused request is the user's error (one line, exit 2), anything else
is an internal error (one line, exit 70, no traceback unless ``VINTAGE_DEBUG=1``); and a command
on the embedded store never loads the Neo4j driver."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

import pytest

from tests.factories import run
from vintage.graph.store.backends import open_store

ROOT = Path(__file__).resolve().parents[1]
INTERNAL = "internal error: KeyError: 'boom' (set VINTAGE_DEBUG=1 for the traceback)\n"


def store_of(tmp_path: Path) -> list[str]:
    """An existing embedded store: a command that writes nothing new refuses a missing one."""
    path = tmp_path / "store"
    if not path.exists():
        open_store(str(path)).close()
    return ["--store", str(path), "--tenant", "acme"]


def boom(*_: object, **__: object) -> NoReturn:
    raise KeyError("boom")


@pytest.mark.parametrize(("args", "message"), [
    (["demote", "user:1", "k", "--reason", "r", "--weight", "2"],
     "error: a weight lies between 0 and 1, not 2.0"),
    (["impact"], "error: impact needs exactly one of a source id or a fact id"),
    (["asof", "revenue", "--subject", "A", "--subject", "A", "--cutoff", "2019-01-01"],
     "error: a subject is named twice"),
    (["context", "--query", "q", "--budget", "0", "--user", "1", "--for-thread", "t1"],
     "error: a budget is a positive number of tokens, not 0"),
    (["remember", "fact", "user:1", "k", "{", "--typed"],
     "error: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
    (["remember", "fact", "user:1", "k", "[" * 5000 + "]" * 5000, "--typed"],
     "error: JSON nested too deeply to read (arrays or objects inside one another by the "
     "thousand)"),
    (["remember", "fact", "user:1", "k", "7" * 5000, "--typed"],
     "error: integer 7777777777777777777777777777777777777... is outside the 64-bit range (at "
     "most 19 digits)"),
    (["remember", "fact", "user:1", "k", '{"a": 1}', "--typed"],
     "error: --typed reads one JSON value: a number, true, false or a string, not an object"),
    (["facts", "x", "--subject", "S", "--cutoff", "31/12/2018"],
     "error: cutoff: '31/12/2018' is not an ISO 8601 date or datetime (YYYY-MM-DD, or "
     "YYYY-MM-DDTHH:MM:SS with an offset)"),
])
def test_a_refused_request_is_one_line_and_exit_2(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run([*store_of(tmp_path), *args], capsys, monkeypatch)
    assert (code, out, err) == (2, "", message + "\n")


@pytest.mark.parametrize(("target", "args"), [
    ("vintage.cli.lineage.impact", ["impact", "--source", "s1"]),
    ("vintage.cli.memory.recall", ["memories", "user:1"]),
    ("vintage.cli.context.build_pack", ["context", "--query", "q", "--budget", "500", "--user",
                                    "1", "--for-thread", "t1"]),
])
def test_an_internal_error_is_one_line_exit_70_and_no_traceback(
    target: str, args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("VINTAGE_DEBUG", raising=False)
    monkeypatch.setattr(target, boom)
    code, out, err = run([*store_of(tmp_path), *args], capsys, monkeypatch)
    assert (code, out, err) == (70, "", INTERNAL)
    assert "Traceback" not in err


def test_a_bare_value_error_is_internal_not_the_users(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    def faulty(*_: object, **__: object) -> NoReturn:
        raise ValueError("an as-of read must admit\nat least one status")

    monkeypatch.delenv("VINTAGE_DEBUG", raising=False)
    monkeypatch.setattr("vintage.cli.lineage.impact", faulty)
    code, _, err = run([*store_of(tmp_path), "impact", "--source", "s1"], capsys, monkeypatch)
    assert code == 70
    assert err == ("internal error: ValueError: an as-of read must admit at least one status "
                   "(set VINTAGE_DEBUG=1 for the traceback)\n")


def test_vintage_debug_lets_the_traceback_through(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("VINTAGE_DEBUG", "1")
    monkeypatch.setattr("vintage.cli.lineage.impact", boom)
    with pytest.raises(KeyError, match="boom"):
        run([*store_of(tmp_path), "impact", "--source", "s1"], capsys, monkeypatch)


def python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter (nothing imported yet), from the repository root."""
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)


DRIVER_LOADED = "sorted(m for m in sys.modules if m == 'neo4j' or m.startswith('neo4j.'))"


def test_importing_the_cli_does_not_load_the_neo4j_driver() -> None:
    done = python(f"import sys\nimport vintage.cli.main\nprint({DRIVER_LOADED})")
    assert (done.returncode, done.stdout, done.stderr) == (0, "[]\n", "")


def test_an_embedded_store_command_does_not_load_the_neo4j_driver(tmp_path: Path) -> None:
    script = f"""
import sys
from vintage.cli.main import main
sys.argv = ["vintage", "--store", sys.argv[1], "--tenant", "acme", *sys.argv[2:]]
try:
    main()
except SystemExit as exc:
    assert not exc.code, exc.code
print({DRIVER_LOADED})
"""
    table = str(ROOT / "ingest" / "data" / "sec_demo.csv")
    done = python(script, str(tmp_path / "store"), "ingest", "facts", table, "--json")
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("[]")


A_READ = ["facts", "Revenue", "--subject", "X"]


def test_an_empty_store_name_is_refused_not_replaced_by_the_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(["--store", "", "--tenant", "t", *A_READ], capsys, monkeypatch)
    assert code == 2 and "the store URI (--store) is empty" in err
    assert not (tmp_path / ".vintage").exists()


@pytest.mark.parametrize(("uri", "said"), [
    ("bolt://neo4j:s3cret@127.0.0.1:7687", "carries a user name or password"),
    ("neo4j://neo4j:s3cret@db.example", "carries a user name or password"),
    ("bolt://neo4j:s3cret@[::1", "is not a valid bolt:// or neo4j:// URI"),
    ("bolt://s3cret.example:99999", "is not a valid bolt:// or neo4j:// URI"),
    ("bolt://", "names no host"),
])
def test_a_store_uri_the_driver_cannot_take_is_one_line_and_never_repeats_a_password(
    uri: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["--store", uri, "--tenant", "t", *A_READ], capsys, monkeypatch)
    assert (code, out) == (2, "") and said in err and err.count("\n") == 1
    assert "s3cret" not in err
    assert not (tmp_path / ".vintage").exists()  # no key file made for it either


@pytest.mark.parametrize(("server", "said"), [
    ("http://admin:s3cret@127.0.0.1:8000", "--server carries a user name or password"),
    ("http://admin:s3cret@[::1", "--server carries a user name or password"),
    ("http:/admin:s3cret@127.0.0.1:8000", "--server carries a user name or password"),
    ("http:admin:s3cret@127.0.0.1", "--server carries a user name or password"),
    ("https://127.0.0.1:99999", "an http:// or https:// URL"),
    ("http://:8000", "an http:// or https:// URL"),
])
def test_a_server_url_that_cannot_be_asked_is_one_line_and_never_repeats_a_password(
    server: str, said: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run(["--server", server, "--key", "k", "--tenant", "t", "search", "q",
                          "--user", "1"], capsys, monkeypatch)
    assert (code, out) == (2, "") and said in err and err.count("\n") == 1
    assert "s3cret" not in err


@pytest.mark.parametrize(("args", "line"), [
    (["nosuch"], "error: No such command 'nosuch'. (see vintage --help)"),
    (["retract", "--reason", "r"], "error: Missing option '--source'. (see vintage retract "
                                    "--help)"),
    (["audit", "--user", "1"], "error: No such option: --user (Possible options: --since) (see "
                                "vintage audit --help)"),
    (["--actor", " ", "stats"], "error: Invalid value for --actor: name who runs the command "
                                 "(see vintage --help)"),
])
def test_a_malformed_command_line_is_one_line_naming_the_help(
    args: list[str], line: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # typer's own form: a usage line, a hint and the message in a box, five lines or more.
    code, out, err = run(["--store", str(tmp_path / "s"), "--tenant", "t", *args], capsys,
                         monkeypatch)
    assert (code, out, err) == (2, "", line + "\n")


def test_vintage_alone_prints_its_help_and_exits_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run([], capsys, monkeypatch)
    assert (code, err) == (2, "") and "Usage: vintage [OPTIONS] COMMAND" in out


@pytest.mark.parametrize("read", [
    ["memories", "user:1", "--user", "1"], ["stats"], ["audit"], A_READ,
    ["search", "x", "--user", "1"], ["config", "embedder", "--tenant", "t", "--withdraw"],
    ["health", "--user", "u", "--no-drill"], ["mcp", "--key", "vk_abc"],
])
def test_a_command_that_writes_nothing_new_never_makes_a_store_at_a_mistyped_path(
    read: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # It made an empty store there and answered from it: nothing found, and a stray folder.
    typo = tmp_path / "stroe"
    code, out, err = run(["--store", str(typo), "--tenant", "t", *read], capsys, monkeypatch)
    assert (code, out) == (2, "") and err == (
        f"error: no store at {typo}: nothing is held there (a read never makes one; remember, "
        "ingest or demo does): check --store or VINTAGE_STORE\n")
    assert not typo.exists() and not typo.with_name("stroe.keys").exists()


def test_a_file_named_as_the_store_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    not_a_dir = tmp_path / "passwd"
    not_a_dir.write_text("root:x:0:0\n")
    code, _, err = run(["--store", str(not_a_dir), "--tenant", "t", *A_READ], capsys, monkeypatch)
    assert code == 2 and "is a file, not a store directory" in err
    assert not_a_dir.read_text() == "root:x:0:0\n"


def test_a_neo4j_store_that_does_not_answer_is_its_own_exit_code(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code, out, err = run(["--store", f"bolt://127.0.0.1:{port}", "--tenant", "t", *A_READ],
                         capsys, monkeypatch)
    assert code == 69
    assert f"the Neo4j store at bolt://127.0.0.1:{port} does not answer" in err
    assert "Traceback" not in out + err and len(err.strip().splitlines()) <= 2


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="/dev/full is Linux's")
def test_a_result_standard_output_cannot_take_is_exit_74_saying_the_write_stands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `remember > /dev/full` stored the memory and then said "internal error" (exit 70).
    said = ["--source-kind", "user_message", "--source-id", "m1", "--observed-at",
            "2026-05-01T10:00:00Z", "--owner", "user:1", "--reason", "asked", "--user", "1"]
    script = ("import sys\nfrom vintage.cli.main import main\n"
              "sys.argv = ['vintage', *sys.argv[1:]]\nmain()\n")
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-c", script, *store_of(tmp_path), "remember", "preference",
             "user:1", "seat", "aisle", *said], cwd=ROOT, stdout=full, stderr=subprocess.PIPE,
            text=True, timeout=120, check=False)
    assert done.returncode == 74
    assert done.stderr == ("error: the result could not be written to standard output (No "
                           "space left on device); whatever the command wrote to the store "
                           "stands (vintage audit shows it)\n")  # one line: no "Exception
    # ignored" at exit either. A closed standard output (`>&-`) is no failure: nothing to show.
    closed = subprocess.run(
        [sys.executable, "-c", script, *store_of(tmp_path), "remember", "preference", "user:1",
         "drink", "tea", *said], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, timeout=120, check=False,
        preexec_fn=lambda: os.close(1))  # the child's fd 1 only
    assert (closed.returncode, closed.stderr) == (0, "")
    code, out, _ = run([*store_of(tmp_path), "memories", "user:1", "--user", "1", "--json"],
                       capsys, monkeypatch)
    assert code == 0 and sorted(m["value"] for m in json.loads(out)) == ["aisle", "tea"]
