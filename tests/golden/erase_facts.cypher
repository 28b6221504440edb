UNWIND $rows AS row
MATCH (f:Fact {tenant: $tenant, id: row.fact_id}) USING INDEX SEEK f:Fact(tenant, id)
SET f.value = '', f.content_hash = 'erased', f.retention_reason = null, f.owner = null,
    f.ciphertext = null, f.search_terms = null, f.embedding = null, f.embedding_model = null,
    f.erased_at = row.at, f.invalidated_at = coalesce(f.invalidated_at, row.at)
REMOVE f:Unindexed
// params
{
  "rows": [
    {
      "at": "2019-04-30 00:00:00+00:00",
      "fact_id": "f"
    }
  ],
  "tenant": "acme"
}
