UNWIND $rows AS row
MATCH (f:Fact {tenant: $tenant, id: row.fact_id})
WHERE f.superseded_at IS NULL
SET f.superseded_at = row.superseded_at, f.superseded_recorded_at = row.recorded_at
RETURN count(f) AS closed
// params
{
  "rows": [
    {
      "id": "x",
      "recorded_at": "2019-04-30 00:00:00+00:00"
    }
  ],
  "tenant": "acme"
}
