"""A restarted local server comes back on the port saved ``bolt://`` URIs name, when it is free;
when it is not, ``start`` says so. Ports only: no server is started here."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from vintage.graph.neo4j import launcher, process

pytestmark = pytest.mark.launcher


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(launcher.HOME_ENV, str(tmp_path))
    return tmp_path


def test_a_restart_reuses_the_previous_port_when_it_is_free(state: Path) -> None:
    previous = process.free_port()
    (state / "port").write_text(str(previous))
    assert launcher.choose_port() == (previous, None)


def test_a_restart_whose_port_is_taken_moves_and_says_so(state: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        (state / "port").write_text(str(busy))
        chosen, note = launcher.choose_port()
    assert chosen != busy
    assert note is not None and f"port {busy}" in note and f"port {chosen} now" in note


def test_a_first_start_takes_any_free_port(state: Path) -> None:
    chosen, note = launcher.choose_port()
    assert chosen > 0 and note is None


def test_a_stock_server_gets_an_empty_lay_plugins_directory_laid_anew(
        state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """VINTAGE_NEO4J_PLUGINS=none: the directory Neo4j loads plugins from holds nothing, not
    even a jar an earlier start left there."""
    (state / "plugins").mkdir()
    (state / "plugins" / "vintage-neo4j-plugin-0.0.1.jar").write_bytes(b"old")
    monkeypatch.setenv(launcher.PLUGINS_ENV, "none")
    plugins = launcher.lay_plugins_dir()
    assert plugins == state / "plugins"
    assert list(plugins.iterdir()) == []


def test_a_plugins_setting_it_does_not_know_is_refused_in_one_line(
        state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(launcher.PLUGINS_ENV, "apoc")
    with pytest.raises(launcher.LauncherError, match=r"'vintage' .* or 'none'$") as refused:
        launcher.lay_plugins_dir()
    assert "apoc" not in str(refused.value)  # a refused value is not echoed
