SELECT 1 FROM facts f INDEXED BY facts_live WHERE f.tenant = :tenant AND f.erased = 0
  AND NOT EXISTS (SELECT 1 FROM entries e INDEXED BY entries_model WHERE e.tenant = f.tenant AND e.model = :model AND e.fact_id = f.id) LIMIT 1
-- params
{
  "model": "model",
  "tenant": "acme"
}
