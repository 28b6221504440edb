UNWIND $ids AS fact_id
MATCH (f:Fact {tenant: $tenant, id: fact_id})-[r:SUPPORTED_BY]->(s:Source)
WHERE r.available_at <= $known_at
WITH fact_id, r.available_at AS at, s.id AS source_id
ORDER BY at, source_id
WITH fact_id, collect(source_id)[0] AS first_source, min(at) AS first_at, max(at) AS last_at
RETURN fact_id, first_source, toString(first_at) AS first_at, toString(last_at) AS last_at
// params
{
  "ids": [
    "a"
  ],
  "known_at": "2019-04-30 00:00:00+00:00",
  "tenant": "acme"
}
