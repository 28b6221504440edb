UNWIND $ids AS fact_id
MATCH (f:Fact {tenant: $tenant, id: fact_id})-[r:SUPPORTED_BY]->(s:Source)
USING INDEX SEEK f:Fact(tenant, id)
RETURN f.id AS fact_id, s.id AS source_id, toString(r.available_at) AS available_at,
       toString(r.recorded_at) AS recorded_at
ORDER BY fact_id, r.available_at, source_id
// params
{
  "ids": [
    "a"
  ],
  "tenant": "acme"
}
