"""Vintage: a bitemporal knowledge graph on Neo4j, as a Python library.

``import vintage`` gives what a program needs to open a store, write, ask as of a cutoff, walk
lineage and use agent memory; everything else is in the rooms below it (``vintage.graph``,
``vintage.queries``, ``vintage.ingest``, and the interfaces ``vintage.cli``, ``vintage.http``,
``vintage.mcp``, ``vintage.client``). Names are loaded on first use, so ``import vintage`` (and
the import of any room, which runs this module first) stays cheap and free of cycles.

    import vintage
    store = vintage.open_store(".vintage/store")     # or "bolt://127.0.0.1:7687"
    found = vintage.facts_as_of(store, vintage.Scope(tenant="acme"), subjects=["PYPL"],
                                known_at=vintage.instant("2025-10-30"))
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# name -> the module that defines it (the façade re-exports; it defines nothing of its own)
_EXPORTS = {
    # open a store, and the time vocabulary
    "open_store": "vintage.graph.store.backends",
    "Store": "vintage.graph.store.protocol",
    "instant": "vintage.graph.core.temporal",
    "as_of": "vintage.graph.core.temporal",
    # the records and writes
    "Scope": "vintage.graph.core.model",
    "Subject": "vintage.graph.core.model",
    "SourceIn": "vintage.graph.core.model",
    "FactIn": "vintage.graph.core.model",
    "Batch": "vintage.graph.writes.semantics",
    "record": "vintage.graph.writes.semantics",
    "derive": "vintage.graph.derivations.derived",
    "Output": "vintage.graph.derivations.derived",
    "expression": "vintage.graph.derivations.recipes",
    # as-of questions and lineage
    "facts_as_of": "vintage.queries.lineage.asof",
    "history": "vintage.queries.lineage.asof",
    "ask": "vintage.queries.metrics.question",
    "explain": "vintage.queries.lineage.explain",
    "impact": "vintage.queries.lineage.impact",
    # agent memory, search and context
    "MemoryIn": "vintage.graph.memory.gate",
    "remember": "vintage.graph.memory.remember",
    "SearchRequest": "vintage.queries.search.request",
    "search": "vintage.queries.search.run",
    "build_pack": "vintage.queries.search.pack",
    "embedder": "vintage.graph.retrieval.embedder",
    "embedder_for": "vintage.graph.retrieval.choice",
    # a table's rows (an answer, facts, a search, an impact): as dicts, or a pandas DataFrame
    "rows": "vintage.render.rows",
    "to_pandas": "vintage.render.rows",
}
_RENAMED = {"instant": "parse_instant", "embedder": "embedder_from_env"}

__all__ = [
    "Batch",
    "FactIn",
    "MemoryIn",
    "Output",
    "Scope",
    "SearchRequest",
    "SourceIn",
    "Store",
    "Subject",
    "as_of",
    "ask",
    "build_pack",
    "derive",
    "embedder",
    "embedder_for",
    "explain",
    "expression",
    "facts_as_of",
    "history",
    "impact",
    "instant",
    "open_store",
    "record",
    "remember",
    "rows",
    "search",
    "to_pandas",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'vintage' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), _RENAMED.get(name, name))
    globals()[name] = value  # once loaded, a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:  # what the names above are, for type checkers and editors
    from vintage.graph.core.model import FactIn, Scope, SourceIn, Subject
    from vintage.graph.core.temporal import as_of
    from vintage.graph.core.temporal import parse_instant as instant
    from vintage.graph.derivations.derived import Output, derive
    from vintage.graph.derivations.recipes import expression
    from vintage.graph.memory.gate import MemoryIn
    from vintage.graph.memory.remember import remember
    from vintage.graph.retrieval.choice import embedder_for
    from vintage.graph.retrieval.embedder import embedder_from_env as embedder
    from vintage.graph.store.backends import open_store
    from vintage.graph.store.protocol import Store
    from vintage.graph.writes.semantics import Batch, record
    from vintage.queries.lineage.asof import facts_as_of, history
    from vintage.queries.lineage.explain import explain
    from vintage.queries.lineage.impact import impact
    from vintage.queries.metrics.question import ask
    from vintage.queries.search.pack import build_pack
    from vintage.queries.search.request import SearchRequest
    from vintage.queries.search.run import search
    from vintage.render.rows import rows, to_pandas
