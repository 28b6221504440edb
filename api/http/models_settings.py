"""The bodies and answers of the embedder routes (``vintage.http.routes_settings``), apart from
the routes: the MCP server answers with the same models (``vintage.mcp.settings``) without
loading FastAPI, and ``vintage --server URL config embedder`` reads them back."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from vintage.graph.retrieval.choice import NAMES, REEMBEDDED, Choice
from vintage.http.models import Out

CHOICE_EXAMPLE: dict[str, Any] = {
    "embedder": "e5", "for": "support-cn", "at": "2026-06-01T12:00:00Z",
    "actor": "key:k3f9a0c1d2e4b5a6(ops)", "reason": "our users write Chinese", "note": None}


class EmbedderChoice(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"embedder": "e5", "reason": "our users write Chinese"}]})

    embedder: str = Field(min_length=1, max_length=2000, description=f"One of: {NAMES}.")
    reason: str = Field("chosen over the API", min_length=1, max_length=2000,
                        description="Kept in the event.")


class EmbedderOut(Out):
    """The embedder that holds for the key's tenant: its own choice (``for`` names the
    tenant) or the store's (``for`` is ``store``); all null when nothing is recorded yet (the
    first search records ``VINTAGE_EMBEDDER``'s, default minilm)."""

    model_config = ConfigDict(populate_by_name=True,
                              json_schema_extra={"examples": [CHOICE_EXAMPLE]})

    embedder: str | None
    for_: str | None = Field(alias="for", description="The tenant whose choice it is, or store.")
    at: datetime | None
    actor: str | None
    reason: str | None
    note: str | None = Field(None, description="After a change: what becomes of the entries "
                                               "indexed by another model.")

    @classmethod
    def of(cls, held: Choice | None, *, changed: bool = False) -> EmbedderOut:
        if held is None:
            return cls(embedder=None, for_=None, at=None, actor=None, reason=None)
        return cls(embedder=held.embedder, for_=held.tenant or "store", at=held.at,
                   actor=held.actor, reason=held.reason, note=REEMBEDDED if changed else None)
