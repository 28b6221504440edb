"""Golden files for the Cypher that reads a Graphiti graph (vintage.ingest.graphiti.cypher): the
text and parameters, no server needed. Regenerate after an intended change with
``UPDATE_GOLDEN=1 pytest tests/test_graphiti_cypher_golden.py`` and review the diff like code."""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Callable

import pytest

from tests.test_cypher_golden import GOLDEN, render
from vintage.graph.neo4j.cypher import Query
from vintage.ingest.graphiti import cypher

GROUPS = ["chat-1", "团队-2"]
CASES: dict[str, Callable[[], Query]] = {
    "graphiti_groups_present": cypher.groups_present,
    "graphiti_entities": lambda: cypher.entities(GROUPS),
    "graphiti_episodes": lambda: cypher.episodes(GROUPS),
    "graphiti_edges": lambda: cypher.edges(GROUPS),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_graphiti_reads_match_their_golden_files(name: str) -> None:
    path = GOLDEN / f"{name}.cypher"
    text = render(CASES[name]())
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden file {path.name}; run with UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")


def test_every_graphiti_builder_has_a_case() -> None:
    builders = {name for name, fn in vars(cypher).items()
                if inspect.isfunction(fn) and fn.__module__ == cypher.__name__}
    assert builders == {"groups_present", "entities", "episodes", "edges"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_graphiti_reads_only_read(name: str) -> None:
    text = CASES[name]().text.upper()
    assert not re.search(r"\b(CREATE|MERGE|SET|DELETE|REMOVE|DETACH|CALL)\b", text), name


def test_a_group_is_a_parameter_never_text() -> None:
    for build in CASES.values():
        assert "chat-1" not in build().text
