UNWIND $rows AS row
MATCH (f:Fact {tenant: $tenant, id: row.id}) USING INDEX SEEK f:Fact(tenant, id)
SET f._vintage_lock = true
REMOVE f._vintage_lock
WITH f, row
WHERE f.erased_at IS NULL
SET f.search_terms = row.terms, f.embedding_model = row.model
REMOVE f:Unindexed
WITH f, row
CALL db.create.setNodeVectorProperty(f, 'embedding', row.vector)
// params
{
  "rows": [
    {
      "id": "a",
      "model": "minilm",
      "terms": "t.0 k.preference b.1",
      "vector": [
        0.6,
        0.8
      ]
    }
  ],
  "tenant": "acme"
}
