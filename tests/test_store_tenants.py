"""A store names the tenants it holds (``ListsTenants.tenants``, its owner's listing) and never
its own settings: the embedder a store records is an event of a reserved name
(``SETTINGS_TENANT``), which the read itself leaves out, in SQL and in Cypher alike, so that
no caller can list it as a tenant (it did: ``stats --all-tenants`` failed after a search)."""

from __future__ import annotations

from vintage.graph.core.model import Event, Scope, new_event_id
from vintage.graph.retrieval.choice import set_embedder
from vintage.graph.sqlite.store import SqliteStore
from vintage.graph.store.capabilities import SETTINGS_TENANT, ListsTenants
from vintage.graph.store.protocol import Store


def test_a_store_that_recorded_its_embedder_lists_its_tenants_and_not_its_settings(
    store: Store, scope: Scope,
) -> None:
    assert isinstance(store, ListsTenants)
    event = Event(id=new_event_id(), tenant=scope.tenant, at=store.now(), actor="test",
                  action="record", reason="a change in the tenant")
    store.write(scope.tenant, lambda tx: tx.append_events(event))
    set_embedder(store, "minilm", actor="test", reason="the store's embedder, recorded")
    assert store.events(SETTINGS_TENANT, actions=["embedder"])  # the setting is there
    found = store.tenants()
    assert scope.tenant in found and SETTINGS_TENANT not in found
    assert found == sorted(found)
    if isinstance(store, SqliteStore):  # a server holds other tests' tenants too
        assert found == [scope.tenant]

