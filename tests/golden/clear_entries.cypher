MATCH (f:Fact)
USING INDEX SEEK f:Fact(tenant, embedding_model)
WHERE f.tenant = $tenant AND f.embedding_model IS NOT NULL
WITH f LIMIT $limit
REMOVE f.search_terms, f.embedding, f.embedding_model
FOREACH (queued IN CASE WHEN f.erased_at IS NULL THEN [1] ELSE [] END | SET f:Unindexed)
RETURN count(f) AS cleared
// params
{
  "limit": 10000,
  "tenant": "acme"
}
