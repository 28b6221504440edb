UNWIND $rows AS row
MATCH (f:Fact {tenant: $tenant, id: row.fact_id})
MATCH (s:Source {tenant: $tenant, id: row.source_id})
MERGE (f)-[r:SUPPORTED_BY]->(s)
ON CREATE SET r.available_at = row.available_at, r.recorded_at = row.recorded_at
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
