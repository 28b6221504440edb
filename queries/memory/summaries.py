"""Summaries of memories: derived facts with lineage to what they summarise, so that a
correction closes them (the cascade) and an erasure removes them (``vintage.graph.memory.forget``).

The summariser is a recipe. The built-in one renders structured memories deterministically
(``key: value`` lines, sorted by key); an LLM summariser is a Python recipe the user registers
(``vintage.graph.derivations.recipes.register``) and passes in; none is faked here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from vintage.graph.core.model import Scope, Value
from vintage.graph.derivations.derived import Derived, Output, derive
from vintage.graph.derivations.recipes import Recipe, function, register
from vintage.graph.memory.gate import MEMORY_EPOCH
from vintage.graph.memory.scoping import require_scope
from vintage.graph.store.protocol import Store, StoreError
from vintage.queries.memory.recall import recall

SUMMARY_PREDICATE = "summary:memories"


@register("render_memories", "1")
def _render(inputs: Mapping[str, Value], parameters: Mapping[str, Value]) -> Value:
    return "\n".join(f"{key}: {value}" for key, value in sorted(inputs.items()))


RENDER = function("render_memories", "1")


def summarise(
    store: Store, scope: Scope, subject: str, *, keys: Sequence[str] | None = None,
    recipe: Recipe = RENDER, actor: str,
) -> Derived:
    """Summarise the subject's active memories (those under ``keys``, if given) as one derived
    fact ``summary:memories`` whose inputs are the memories themselves. It is written in
    ``scope``, which names a user, project or thread: a tenant-wide summary would carry every
    user's memories into one fact."""
    require_scope(scope, "a summary")
    found = [m for m in recall(store, scope, subject) if keys is None or m.key in keys]
    if not found:
        raise StoreError(f"{subject} has no active memories to summarise")
    return derive(store, scope, recipe, {m.key: m.id for m in found},
                  Output(subject, SUMMARY_PREDICATE, MEMORY_EPOCH, None), actor=actor)
