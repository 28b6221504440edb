UNWIND $ids AS fact_id
MATCH (f:Fact {tenant: $tenant, id: fact_id})-[r:SUPPORTED_BY]->(s:Source)
USING INDEX SEEK f:Fact(tenant, id)
WHERE r.recorded_at <= $at
    AND (r.invalidated_at IS NULL OR $at < r.invalidated_at)
    AND (r.gaps_from IS NULL OR none(i IN range(0, size(r.gaps_from) - 1) WHERE r.gaps_from[i] <= $at AND $at < r.gaps_to[i]))
RETURN f.id AS fact_id, s.id AS source_id, toString(r.available_at) AS available_at,
       toString(r.recorded_at) AS recorded_at
ORDER BY fact_id, r.available_at, source_id
// params
{
  "at": "2019-04-30 00:00:00+00:00",
  "ids": [
    "a"
  ],
  "tenant": "acme"
}
