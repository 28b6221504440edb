UNWIND $ids AS fact_id
MATCH (f:Fact {tenant: $tenant, id: fact_id})-[r:SUPPORTED_BY]->(s:Source)
USING INDEX SEEK f:Fact(tenant, id)
WHERE r.recorded_at <= $at
    AND (r.invalidated_at IS NULL OR $at < r.invalidated_at)
    AND (r.gaps_from IS NULL OR none(i IN range(0, size(r.gaps_from) - 1) WHERE r.gaps_from[i] <= $at AND $at < r.gaps_to[i]))
  AND r.available_at <= $known_at
WITH fact_id, r.available_at AS at, s.id AS source_id
ORDER BY at, source_id
WITH fact_id, collect(source_id)[0] AS first_source, min(at) AS first_at, max(at) AS last_at
RETURN fact_id, first_source, toString(first_at) AS first_at, toString(last_at) AS last_at
// params
{
  "at": "2019-04-30 00:00:00+00:00",
  "ids": [
    "a"
  ],
  "known_at": "2019-04-30 00:00:00+00:00",
  "tenant": "acme"
}
