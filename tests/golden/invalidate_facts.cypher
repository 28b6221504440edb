UNWIND $rows AS row
MATCH (f:Fact {tenant: $tenant, id: row.fact_id})
WHERE f.invalidated_at IS NULL
SET f.invalidated_at = row.at
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
