"""The case files the Java build reads (tests/golden/rank_cases.json, cascade_cases.json): each
statement's text once, in a list, and each use of it as its index and its parameters, with an
instant marked as one so that the Java side (``RankCases.java``) reads it back as a datetime."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from vintage.graph.neo4j.cypher import Query


def typed(value: Any) -> Any:
    """JSON for a parameter, an instant marked as one."""
    if isinstance(value, datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, dict):
        return {k: typed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [typed(v) for v in value]
    return value


class Statements:
    """The distinct statement texts of a case file, in first-use order."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def ref(self, q: Query) -> dict[str, Any]:
        """A use of ``q``: its text's index and its parameters."""
        if q.text not in self.texts:
            self.texts.append(q.text)
        return {"text": self.texts.index(q.text), "params": typed(q.params)}
