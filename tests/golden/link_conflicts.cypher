UNWIND $rows AS row
MATCH (a:Fact {tenant: $tenant, id: row.fact_id}) USING INDEX SEEK a:Fact(tenant, id)
MATCH (b:Fact {tenant: $tenant, id: row.other_id}) USING INDEX SEEK b:Fact(tenant, id)
MERGE (a)-[r:CONFLICTS_WITH]->(b)
ON CREATE SET r.recorded_at = row.recorded_at
// params
{
  "rows": [
    {
      "fact_id": "a",
      "other_id": "b",
      "recorded_at": "2019-04-30 00:00:00+00:00"
    }
  ],
  "tenant": "acme"
}
