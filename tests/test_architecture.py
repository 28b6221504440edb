"""The house keeps its shape: no import cycles, layers that only look down, no private names
borrowed across modules, modules a reader can hold in mind. Read from the source (``ast``),
so a violation fails here, by file and name, before it spreads."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
# The folders of the repository's top level and the package each is (pyproject.toml maps them):
# api/ is the vintage package itself, with the interfaces; the others are its rooms.
FOLDERS = {"api": "vintage", "graph": "vintage.graph", "queries": "vintage.queries",
           "ingest": "vintage.ingest"}
MAX_LINES = 320  # "near 300": a module past this is two concerns
# Who may import whom, by layer: an interface calls down, never the reverse.
ALLOWED = {
    "graph": {"graph"},
    "ingest": {"graph", "ingest"},
    "queries": {"graph", "queries"},
    "api": {"graph", "queries", "ingest", "api"},
}
# The temporal core and its neighbours know no backend and no memory; only the backend chooser
# names backends.
CORE_ROOMS = ("vintage.graph.core", "vintage.graph.store", "vintage.graph.writes",
              "vintage.graph.derivations", "vintage.graph.sealing")
CORE_MAY_NAME_BACKENDS = {"vintage.graph.store.backends"}


def _modules() -> dict[str, Path]:
    found = {}
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            parts = parts[:-1] if parts[-1] == "__init__" else parts
            found[".".join((package, *parts))] = path
    return found


MODULES = _modules()


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module imported, names taken from it) for every import of the project's own code."""
    return [(m, n) for m, n in _every_import(path) if m.split(".")[0] == "vintage"]


def _every_import(path: Path) -> list[tuple[str, list[str]]]:
    """(module imported, names taken from it) for every absolute import of the file."""
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [a.name for a in node.names]
            found.append((node.module, names))
            # ``from vintage.graph.neo4j import launcher`` imports the module
            # vintage.graph.neo4j.launcher
            found += [(f"{node.module}.{n}", []) for n in names if f"{node.module}.{n}" in MODULES]
        elif isinstance(node, ast.Import):
            found += [(a.name, []) for a in node.names]
    return found


def _layer(module: str) -> str:
    """graph, queries or ingest for a module of those rooms; api for the rest of vintage."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ("graph", "queries", "ingest") else "api"


def _graph() -> nx.DiGraph:
    g = nx.DiGraph()
    for name, path in MODULES.items():
        g.add_node(name)
        for target, _ in _imports(path):
            if target in MODULES and target != name and MODULES[target].name != "__init__.py":
                g.add_edge(name, target)
    return g


def test_no_two_files_import_each_other_even_through_others() -> None:
    cycles = list(nx.simple_cycles(_graph()))
    assert cycles == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_module_imports_only_from_the_layers_below_it(name: str) -> None:
    home = _layer(name)
    wrong = sorted({t for t, _ in _imports(MODULES[name]) if _layer(t) not in ALLOWED[home]})
    assert wrong == [], f"{name} reaches sideways or up"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith(CORE_ROOMS)))
def test_the_temporal_core_names_no_backend_and_no_memory(name: str) -> None:
    if name in CORE_MAY_NAME_BACKENDS:
        return
    rooms = ("vintage.graph.embedded", "vintage.graph.neo4j", "vintage.graph.memory",
             "vintage.graph.access", "vintage.graph.retrieval")
    wrong = sorted({t for t, _ in _imports(MODULES[name]) if t.startswith(rooms)})
    assert wrong == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_private_name_is_borrowed_from_another_module(name: str) -> None:
    borrowed = sorted({f"{t}.{n}" for t, names in _imports(MODULES[name]) for n in names
                       if n.startswith("_") and not n.startswith("__")})
    assert borrowed == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_module_stays_near_three_hundred_lines(name: str) -> None:
    lines = len(MODULES[name].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{name} has {lines} lines"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_code_imports_only_through_the_vintage_namespace(name: str) -> None:
    """``import graph`` would load a second copy of a room under a name the wheel does not have."""
    bare = sorted({t for t, _ in _every_import(MODULES[name]) if t.split(".")[0] in FOLDERS})
    assert bare == []


def test_the_wheel_lists_every_package_of_the_tree() -> None:
    """pyproject.toml lists the packages (a find would name them by folder): none forgotten."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    packages = {n for n, p in MODULES.items() if p.name == "__init__.py"}
    assert listed == packages
