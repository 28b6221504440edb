"""The ``vintage`` group names every command and imports a command's module only when it runs
(vintage.cli.commands): a process pays for the command it runs, not for all of them."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import typer.main

from vintage.cli.commands import COMMANDS, GROUPS
from vintage.graph.store.backends import open_store


def test_the_command_table_names_exactly_what_each_module_registers() -> None:
    for module in sorted(set(COMMANDS.values())):
        holder = typer.Typer()
        importlib.import_module(module).register(holder)
        registered = set(typer.main.get_group(holder).list_commands(None))  # type: ignore[arg-type]
        assert registered == {name for name, m in COMMANDS.items() if m == module}, module
    for name, (module, attribute) in GROUPS.items():
        assert isinstance(getattr(importlib.import_module(module), attribute), typer.Typer), name


def test_every_command_is_listed_once_by_help() -> None:
    done = subprocess.run([sys.executable, "-c", "from vintage.cli.main import main; main()",
                           "--help"], capture_output=True, text=True, check=False,
                          env={"COLUMNS": "120", "PATH": ""})
    assert done.returncode == 0, done.stderr
    listed = [line.split()[1] for line in done.stdout.splitlines()
              if line.startswith("│ ") and len(line.split()) > 2 and line.split()[1] in
              {*COMMANDS, *GROUPS}]
    assert sorted(listed) == sorted({*COMMANDS, *GROUPS})


UNWANTED = ("vintage.queries.eval", "mcp", "networkx", "fastapi", "uvicorn", "matplotlib",
            "vintage.client", "vintage.http",
            # Only a search or an index moves vectors: each command is a process of its own,
            # and numpy alone is a tenth of a second of it (bench.embedded_cli, issue 39).
            "numpy")


def _loaded(tmp_path: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """Run ``vintage --store S --tenant acme ARGV`` in a new interpreter; its stderr ends with
    the unwanted modules it had loaded. The store exists: a read refuses a missing one before
    loading anything a read needs."""
    if not (tmp_path / "store").exists():
        open_store(str(tmp_path / "store")).close()
    script = f"""
import sys
from vintage.cli.main import main
sys.argv = ["vintage", "--store", {str(tmp_path / 'store')!r}, "--tenant", "acme", *{argv!r}]
try:
    main()
finally:
    loaded = sorted({{m.split(".")[0] if not m.startswith("vintage.") else m
                     for m in sys.modules}})
    print([m for m in loaded if m.startswith({UNWANTED!r})], file=sys.stderr)
"""
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=False)


def test_a_fact_read_imports_neither_the_other_commands_nor_their_libraries(
        tmp_path: Path) -> None:
    done = _loaded(tmp_path, ["facts", "us-gaap:Revenues", "--subject", "nobody"])
    assert done.stderr.strip().splitlines()[-1] == "[]", done.stderr


MEMORY_COMMANDS = {
    "remember": ["remember", "preference", "user:42", "seat", "aisle", "--user", "42",
                 "--source-kind", "user_message", "--source-id", "m1", "--observed-at",
                 "2026-01-05", "--owner", "user:42", "--reason", "asked"],
    "memories": ["memories", "user:42", "--user", "42"],
}


@pytest.mark.parametrize("command", sorted(MEMORY_COMMANDS))
def test_a_memory_write_or_read_that_succeeds_loads_no_numpy_nor_other_commands(
        tmp_path: Path, command: str) -> None:
    done = _loaded(tmp_path, MEMORY_COMMANDS[command])
    assert done.returncode == 0, done.stderr  # it ran through, not only its parsing
    assert done.stderr.strip().splitlines()[-1] == "[]", done.stderr


def test_the_mcp_server_on_an_embedded_store_loads_neither_the_neo4j_driver_nor_fastapi(
        tmp_path: Path) -> None:
    """``vintage mcp``'s time to its first answer is mostly imports (issue 39): on an embedded
    store it needs the MCP SDK, not the driver of another backend nor the HTTP service."""
    script = f"""
import sys
from vintage.graph.access import create_key
from vintage.graph.store.backends import open_store
from vintage.mcp.server import build_server
store = open_store({str(tmp_path / 'store')!r})
key = create_key(store, "acme", "agent", actor="test", user="42")[1]
build_server(store, key)
print(sorted({{m.split(".")[0] for m in sys.modules}} & {{"neo4j", "fastapi"}}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout
