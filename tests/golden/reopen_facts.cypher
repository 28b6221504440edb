UNWIND $rows AS row
MATCH (f:Fact {tenant: $tenant, id: row.fact_id}) USING INDEX SEEK f:Fact(tenant, id)
SET f._vintage_lock = true REMOVE f._vintage_lock
WITH f, row
WHERE f.invalidated_at IS NOT NULL
SET f.gaps_from = coalesce(f.gaps_from, []) + [f.invalidated_at],
    f.gaps_to = coalesce(f.gaps_to, []) + [row.at],
    f.invalidated_at = null
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
