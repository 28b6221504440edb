MATCH (f:Fact)-[r:SUPPORTED_BY]->(s:Source)
WHERE f.tenant = $tenant AND f.id IN $ids
RETURN f.id AS fact_id, s.id AS source_id, r.available_at AS available_at,
       r.recorded_at AS recorded_at
ORDER BY fact_id, available_at, source_id
// params
{
  "ids": [
    "a"
  ],
  "tenant": "acme"
}
