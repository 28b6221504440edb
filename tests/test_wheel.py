"""What a user installs is the wheel: one package, ``vintage``, with every module of the tree and
the data it reads, and nothing else in site-packages (no ``graph``, ``api``, ``queries`` or
``ingest`` of its own to collide with a user's). ``make wheel-check`` installs this wheel in a
fresh venv and runs the demo from an empty folder; this test reads the wheel itself."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"api": "vintage", "graph": "vintage/graph", "queries": "vintage/queries",
           "ingest": "vintage/ingest"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--wheel-dir", str(out), str(ROOT)], check=True, capture_output=True)
    (built,) = out.glob("vintage-*.whl")
    return zipfile.ZipFile(built)


def _tracked(folder: str, suffix: str) -> set[str]:
    listed = subprocess.run(["git", "ls-files", folder], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.split()
    return {name for name in listed if name.endswith(suffix)}


def test_the_wheel_installs_only_the_vintage_package(wheel: zipfile.ZipFile) -> None:
    tops = {name.split("/")[0] for name in wheel.namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"vintage"}


def test_every_module_of_the_tree_is_in_the_wheel_under_its_package(
        wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    wanted = {f"{FOLDERS[f.split('/')[0]]}/{f.split('/', 1)[1]}"
              for folder in FOLDERS for f in _tracked(folder, ".py")}
    assert wanted - names == set()


def test_the_wheel_carries_the_data_the_package_reads(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    data = {f"{FOLDERS[f.split('/')[0]]}/{f.split('/', 1)[1]}"
            for folder in ("ingest/data", "graph/retrieval/data", "queries/eval/scenarios")
            for f in _tracked(folder, "") if not f.endswith(".py")}
    assert data, "no bundled data found in the tree"
    assert data - names == set()


def test_the_console_script_is_the_packaged_cli(wheel: zipfile.ZipFile) -> None:
    (points,) = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
    assert "vintage = vintage.cli.main:main" in wheel.read(points).decode()


def test_the_wheel_carries_the_explorers_built_pages(wheel: zipfile.ZipFile) -> None:
    # Built by `make ui` (a prerequisite of `make test`), git-ignored: every built file ships.
    static = ROOT / "api" / "ui" / "static"
    built = {f"vintage/ui/static/{p.relative_to(static).as_posix()}"
             for p in static.rglob("*") if p.is_file()}
    assert "vintage/ui/static/index.html" in built, "the explorer is not built: run make ui"
    assert built - set(wheel.namelist()) == set()
