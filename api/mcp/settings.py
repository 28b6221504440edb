"""The MCP tools of the tenant's embedder: ``embedder_choice`` (any key reads the choice that
holds), ``choose_embedder`` and ``withdraw_embedder`` (an admin key, for its own tenant), the
same decisions as ``GET|POST /v1/embedder`` and ``vintage config embedder NAME --tenant T``
(``vintage.graph.retrieval.choice``), audited with the key's principal as actor."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from vintage.graph.access import Forbidden, Principal
from vintage.graph.retrieval.choice import NAMES, recorded, set_embedder
from vintage.graph.store.protocol import Store
from vintage.http.models_settings import EmbedderOut

Why = Annotated[str, Field(min_length=1, max_length=2000, description="Kept in the event.")]
ADMIN_ONLY = "choosing the embedder needs an admin key"


class Settings:
    """Mixed into ``vintage.mcp.tools.Tools``: its store and its key's principal."""

    NAMES: tuple[str, ...] = ("embedder_choice", "choose_embedder", "withdraw_embedder")
    store: Store

    def principal(self) -> Principal:
        raise NotImplementedError

    def _chooser(self) -> Principal:
        p = self.principal()
        if not p.can_manage_keys:
            raise Forbidden(ADMIN_ONLY)
        return p

    def embedder_choice(self) -> EmbedderOut:
        """The embedder that holds for the key's tenant: its own choice or the store's (any
        key)."""
        return EmbedderOut.of(recorded(self.store, self.principal().tenant))

    def choose_embedder(
        self, embedder: Annotated[str, Field(min_length=1, max_length=2000,
                                             description=f"One of: {NAMES}.")],
        reason: Why = "chosen over MCP",
    ) -> EmbedderOut:
        """Choose the tenant's own embedder (an admin key; audited): entries by another model
        are re-embedded by the next search."""
        p = self._chooser()
        return EmbedderOut.of(set_embedder(self.store, embedder, tenant=p.tenant,
                                           actor=p.actor, reason=reason), changed=True)

    def withdraw_embedder(self, reason: Why) -> EmbedderOut:
        """End the tenant's own embedder choice: the store's holds for it again (an admin
        key; audited)."""
        p = self._chooser()
        return EmbedderOut.of(set_embedder(self.store, None, tenant=p.tenant, actor=p.actor,
                                           reason=reason), changed=True)
